"""Keyphrase clean-up and the name-quality checker: the bad names quoted in issue 11 must all be
flagged, good names must not; cleaned keyword lists hold each idea once."""

from __future__ import annotations

import pytest

from icml_topics.evaluate.names import clean_share, name_defects
from icml_topics.stages.keyphrases import clean_keyphrases, dangling
from icml_topics.text import stem

BAD_NAMES = {
    "reinforcement learning rl and agents learn": {"acronym echo", "dangling word", "repeated word"},
    "policy learning and agent learn": {"dangling word", "repeated word"},
    "trained convolutional and cnn": {"dangling word"},
    "differential privacy dp and differentially private": {"acronym echo", "repeated word"},
    "adversarial robustness and adversarially": {"repeated word"},
    "federated learning fl": {"acronym echo"},
    "time series forecasting and forecast": {"repeated word"},
    "post-training quantization ptq and quantizing": {"acronym echo", "repeated word"},
    "oversmoothing and over-smoothing": {"repeated word"},  # one word with and without its hyphen (issue 49)
    "catastrophic forgetting and continual learning cl": {"acronym echo"},
    "a very long topic name that keeps going and going well past sixty characters": {"too long"},
}
GOOD_NAMES = [
    "federated learning (FL)",
    "graph neural networks (GNNs)",
    "offline reinforcement learning and policy optimization",
    "differential privacy",
    "time series forecasting",
    "neural architecture search",
    "causal inference and treatment effects",
    "large language models (LLMs) and in-context learning",
    "bayesian optimization and gaussian processes",
    "MCMC and posterior sampling",
    "multi-armed bandits and regret bounds",
    "knowledge distillation",
    "mixture of experts",
    "principal component analysis (PCA)",
    "stochastic gradient descent (SGD)",
    "variational inference",
]


@pytest.mark.parametrize("name", sorted(BAD_NAMES))
def test_bad_names_from_the_issue_are_flagged(name):
    assert BAD_NAMES[name] <= set(name_defects(name))


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_good_names_are_not_flagged(name):
    assert name_defects(name) == []


def test_unrelated_phrases_are_flagged_by_co_occurrence(icml_frame):
    """On real ICML abstracts "bayesian optimization" and "metropolis-hastings" never share a paper,
    "diffusion models" and "score matching" often do."""
    from icml_topics.evaluate.names import PhraseCorpus

    corpus = PhraseCorpus((icml_frame["title"].fillna("") + ". " + icml_frame["abstract"].fillna("")).tolist())
    assert "unrelated phrases" in name_defects("bayesian optimization and metropolis-hastings", corpus=corpus)
    for good in (
        "diffusion models and score matching",
        "catastrophic forgetting and continual learning",
        "bandits and regret bounds",
    ):
        assert name_defects(good, corpus=corpus) == [], good


def test_rare_phrases_fall_back_on_embeddings():
    from icml_topics import embed

    assert "unrelated phrases" in name_defects("diffusion models and tax law", embed)
    assert name_defects("catastrophic forgetting and continual learning", embed) == []


def test_clean_share_counts_names_without_defects():
    share, bad = clean_share(
        ["federated learning fl", "federated learning (FL)", "graph neural networks", "forecast and forecasting"]
    )
    assert share == 0.5
    assert set(bad) == {"federated learning fl", "forecast and forecasting"}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            ["graph neural", "graph neural networks", "graph neural network", "networks gnns"],
            ["graph neural networks (GNNs)"],
        ),
        (
            ["reinforcement learning rl", "reinforcement learning", "learning rl", "reinforcement"],
            ["reinforcement learning (RL)"],
        ),
        (["differential privacy dp", "differentially private", "privacy"], ["differential privacy (DP)"]),
        (["time series forecasting", "forecast", "forecasting"], ["time series forecasting"]),
        (["post-training quantization ptq", "quantizing", "quantization"], ["post-training quantization (PTQ)"]),
        (["optimisation", "optimization", "regularisation"], ["optimization", "regularization"]),
        (
            ["principal component analysis", "component analysis pca", "analysis pca", "principal component"],
            ["principal component analysis (PCA)"],
        ),
        (["large language models", "language models llms", "large language"], ["large language models (LLMs)"]),
    ],
)
def test_keyword_lists_hold_each_idea_once(raw, expected):
    assert clean_keyphrases(raw) == expected


def test_word_forms_share_a_stem_and_fragments_dangle():
    assert stem("learns") == stem("learning") == stem("learned")
    assert stem("behaviour") == stem("behavior") and stem("optimisation") == stem("optimization")
    assert stem("generative") != stem("generalization")
    for fragment in ("agents learn", "trained convolutional", "and adaptive", "learning rl", "graph neural"):
        assert dangling(fragment), fragment
    for phrase in ("adversarial robustness", "causal inference", "neural architecture search", "knowledge graph"):
        assert not dangling(phrase), phrase


# --- issue 39: names that tell siblings apart ---------------------------------------------------------
# Real titles (ICLR 2024-2025 and ICML 2013-2024, copied from ../shared/data), grouped by hand.
JAILBREAK_TITLES = [
    "LLM Jailbreak Detection for (Almost) Free!",
    "AttnGCG: Enhancing Jailbreaking Attacks on LLMs with Attention Manipulation",
    "How Jailbreak Defenses Work and Ensemble? A Mechanistic Investigation",
    "Understanding Jailbreak Success: A Study of Latent Space Dynamics in Large Language Models",
    "Shake-It-Off: Jailbreaking Black-Box Large Language Models by Shaking Off Objectionable Semantics",
    "Leveraging the Context through Multi-Round Interactions for Jailbreaking Attacks",
    "Injecting Universal Jailbreak Backdoors into LLMs in Minutes",
    "Jailbreaking Leading Safety-Aligned LLMs with Simple Adaptive Attacks",
]
ADVERSARIAL_IMAGE_TITLES = [
    "Multi-attacks: A single adversarial perturbation for multiple images and target labels",
    "Assessing Robustness via Score-based Adversarial Image Generation",
    "Counterfactual Image Generation for adversarially robust and interpretable Classifiers",
    "Leveraging image representations for bounded adversarial attacks and robustness",
    "CosPGD: an efficient white-box adversarial attack for pixel-wise prediction tasks",
]
WATERMARK_TITLES = [
    "Watermark Anything With Localized Messages",
    "Provable Robust Watermarking for AI-Generated Text",
    "Can Watermarked LLMs be Identified by Users via Crafted Prompts?",
    "Unremovable Watermarks for Open-Source Language Models",
    "Towards Codable Watermarking for Injecting Multi-Bits Information to LLMs",
]
# an RL node named "policy optimization algorithms" / "learns policies" whose papers are about
# state abstraction, skills and exploration (issue 39)
ABSTRACTION_TITLES = [
    "State Abstractions for Lifelong Reinforcement Learning",
    "Near Optimal Behavior via Approximate State Abstraction",
    "Abstraction Selection in Model-based Reinforcement Learning",
    "When Do Skills Help Reinforcement Learning? A Theoretical Analysis of Temporal Abstractions",
    "Finding Options that Minimize Planning Time",
    "Probabilistic Subgoal Representations for Hierarchical Reinforcement Learning",
    "Geometric Active Exploration in Markov Decision Processes: the Benefit of Abstraction",
    "Exploration Conscious Reinforcement Learning Revisited",
]
FEDERATED_TITLES = [
    "Recovering Labels from Local Updates in Federated Learning",
    "Certifiably Byzantine-Robust Federated Conformal Prediction",
    "Noise-Aware Algorithm for Heterogeneous Differentially Private Federated Learning",
    "Effective Federated Graph Matching",
]
PRIVACY_TITLES = [
    "Improving the Gaussian Mechanism for Differential Privacy: Analytical Calibration and Optimal Denoising",
    "Differentially private exact recovery for stochastic block models",
    "ViP: A Differentially Private Foundation Model for Computer Vision",
    "Position: Considerations for Differentially Private Learning with Large-Scale Public Pretraining",
    "Privacy Profiles for Private Selection",
]
ATTACK_TITLES = [
    "Fast Adversarial Attacks on Language Models In One GPU Minute",
    "Parsimonious Black-Box Adversarial Attacks via Efficient Combinatorial Optimization",
    "Extending Adversarial Attacks to Produce Adversarial Class Probability Distributions",
    "Towards Optimal Adversarial Robust Q-learning with Bellman Infinity-error",
]
# the ICML top-level "time series" node: causal discovery, forecasting, PDE neural operators, attributions
TIME_SERIES_MIXED_TITLES = [
    "A decoder-only foundation model for time-series forecasting",
    "Unified Training of Universal Time Series Forecasting Transformers",
    "Stable Differentiable Causal Discovery",
    "Score-Based Causal Discovery of Latent Variable Causal Models",
    "Foundations of Testing for Finite-Sample Causal Discovery",
    "Beyond Regular Grids: Fourier-Based Neural Operators on Arbitrary Domains",
    "HAMLET: Graph Transformer Neural Operator for Partial Differential Equations",
    "Axiomatic Attribution for Deep Networks",
    "Multiply-Robust Causal Change Attribution",
]
# the ICML top-level "gradient descent" node (823 papers at purity 0.23): optimization of every kind
OPTIMIZATION_TITLES = [
    "Information Complexity of Stochastic Convex Optimization: Applications to Generalization, Memorization, and Tracing",
    "Dissecting Adam: The Sign, Magnitude and Variance of Stochastic Gradients",
    "Stochastic Weakly Convex Optimization beyond Lipschitz Continuity",
    "Stochastic Variance Reduction for Nonconvex Optimization",
    "MoMo: Momentum Models for Adaptive Learning Rates",
    "Global Convergence of Stochastic Gradient Descent for Some Non-convex Matrix Problems",
    "Screening rules for Lasso with non-convex Sparse Regularizers",
    "Efficient Regret Minimization in Non-Convex Games",
]
RL = "Reinforcement learning (RL)"
LLM = "Large language models (LLMs)"

# every name quoted in issue 39, with the context that makes it wrong and the defect it must get
ISSUE_39_NAMES = [
    ("deep reinforcement", {}, "fragment"),
    ("modern deep reinforcement", {}, "fragment"),
    ("reinforcement learning human", {}, "fragment"),
    ("policies reinforcement learning", {}, "noun pile"),
    ("learns policies", {}, "verb start"),
    ("learns policies", {"parent": RL, "titles": ABSTRACTION_TITLES}, "unsupported by its papers"),
    ("policy optimization algorithms", {"parent": RL, "titles": ABSTRACTION_TITLES}, "unsupported by its papers"),
    (
        "adversarial images",
        {"titles": JAILBREAK_TITLES, "sibling_titles": [ADVERSARIAL_IMAGE_TITLES]},
        "unsupported by its papers",
    ),
    ("large language models (LLMs)", {"parent": LLM}, "parent echo"),
    (
        "large language models (LLMs)",
        {"siblings": ["large language models (LLMs)", "large language model (LLM)"]},
        "same as a sibling",
    ),
    ("large language model (LLM) and reasoning", {"parent": LLM}, "parent echo"),
    (
        "large language models (LLMs) and question answering",
        {"siblings": ["large language models (LLMs) and malicious actors"]},
        "same as a sibling",
    ),
    ("LLMs and in-context learning", {"parent": LLM}, "parent echo"),
    (
        "LLMs and in-context learning",
        {"titles": JAILBREAK_TITLES[:2] + ABSTRACTION_TITLES + TIME_SERIES_MIXED_TITLES},
        "mixed node",
    ),
    ("federated learning (FL)", {"titles": FEDERATED_TITLES + PRIVACY_TITLES + ATTACK_TITLES}, "mixed node"),
    ("time series", {"titles": TIME_SERIES_MIXED_TITLES}, "mixed node"),
    ("gradient descent", {"titles": OPTIMIZATION_TITLES}, "unsupported by its papers"),
    ("gradient descent", {"titles": OPTIMIZATION_TITLES}, "mixed node"),
]
# the issue's good names, in the contexts it gives them
GOOD_SIBLING_NAMES = [
    ("offline reinforcement learning", {"parent": RL}),
    ("multi-agent reinforcement learning", {"parent": RL}),
    ("exploration bonuses", {"parent": RL}),  # issue 49: a bare "exploration" is a word of 10% of papers
    ("imitation and inverse reinforcement learning", {"parent": RL}),
    ("reinforcement learning from human feedback", {"parent": RL}),
    ("offline RL", {"parent": RL}),
    ("RL from human feedback", {"parent": RL}),
    (
        "jailbreaks and red-teaming",
        {"parent": LLM, "titles": JAILBREAK_TITLES, "sibling_titles": [WATERMARK_TITLES, ADVERSARIAL_IMAGE_TITLES]},
    ),
    ("watermarking", {"parent": LLM, "titles": WATERMARK_TITLES, "sibling_titles": [JAILBREAK_TITLES]}),
    ("KV-cache compression", {"parent": LLM, "siblings": ["watermarking", "jailbreaks and red-teaming"]}),
    ("federated learning (FL)", {"titles": FEDERATED_TITLES, "sibling_titles": [PRIVACY_TITLES, ATTACK_TITLES]}),
]


@pytest.mark.parametrize(("name", "context", "defect"), ISSUE_39_NAMES)
def test_every_name_quoted_in_issue_39_is_flagged(name, context, defect):
    assert defect in name_defects(name, **context)


@pytest.mark.parametrize(("name", "context"), GOOD_SIBLING_NAMES)
def test_names_that_tell_siblings_apart_pass(name, context):
    assert name_defects(name, **context) == []


def test_the_old_defects_keep_their_behaviour_without_context():
    assert name_defects("federated learning (FL)") == []
    assert name_defects("policy learning and agent learn") == ["repeated word", "dangling word"]


def test_name_support_needs_own_papers_and_not_the_siblings():
    from icml_topics.evaluate.names import name_support

    titles = {"a": JAILBREAK_TITLES, "b": WATERMARK_TITLES, "c": ADVERSARIAL_IMAGE_TITLES}
    siblings = {k: list(titles) for k in titles}
    share, per_node = name_support(
        {"a": "jailbreaks", "b": "watermarking", "c": "adversarial attacks"}, titles, siblings
    )
    assert share == 1.0 and per_node["a"] == (1.0, 0.0)
    # the jailbreak node named after the images node's subject: its own titles do not say it
    share, per_node = name_support(
        {"a": "adversarial images", "b": "watermarking", "c": "jailbreaks"}, titles, siblings
    )
    assert share == pytest.approx(1 / 3)
    # the parent's subject says nothing: "LLMs" under "Large language models (LLMs)" is supported by no title
    share, _ = name_support(
        {"a": "LLMs", "b": "watermarking", "c": "adversarial attacks"},
        titles,
        siblings,
        parents=dict.fromkeys(titles, LLM),
    )
    assert share == pytest.approx(2 / 3)


def test_word_roles_are_measured_on_text():
    from icml_topics.evaluate.name_words import word_roles

    text = ["we learn a reinforcement learning policy.", "it learns to use reinforcement learning policies."] * 60
    roles = word_roles(text)
    assert roles["reinforcement"] == ("bound", "learning")
    assert roles["policies"] == ("head", "")
    assert roles["learns"] == ("verb", "")


def test_first_stops_at_the_first_defect_and_finds_none_where_there_is_none():
    """``first=True`` (the repair pass's question: is the name clean?) answers with the first defect found, the
    checks on the papers last, and with [] exactly where the full list is empty."""
    from icml_topics.evaluate.names import name_defects

    assert name_defects("deep reinforcement") == ["fragment", "generic name"]
    assert name_defects("deep reinforcement", first=True) == ["fragment"]
    papers = ["KV cache eviction for agents", "KV cache quantization", "Paged KV cache serving"]
    assert name_defects("cache", papers=papers, first=True) == ["bare word"]  # found by the last check only
    assert name_defects("KV cache", papers=papers) == name_defects("KV cache", papers=papers, first=True) == []


@pytest.mark.parametrize(
    "name",
    ["point cloud", "3D point cloud", "protein", "knowledge graph", "reward model", "speech", "speech and audio"],
)
def test_a_name_may_end_on_a_noun_text_often_puts_before_another(name):
    """A noun that text mostly writes before another noun ("point cloud registration", "protein design") is an
    *adjunct*, not a modifier: a name ending on it is complete (on the code before, "point cloud" was a
    "fragment", so the namer of ``notebooks/what_changed.ipynb`` called 15 point-cloud papers "3d point"). A noun
    with no plural ("speech") is told by a research theme's name ending on it ("Speech & audio"): on the code
    before, the 21 speech papers of that notebook were "synthesis", said by 3 of their titles."""
    assert "fragment" not in name_defects(name)


@pytest.mark.parametrize("name", ["sparse", "training-free", "adaptive", "large"])
def test_a_name_ending_on_an_adjective_is_still_a_fragment(name):
    assert "fragment" in name_defects(name)


def test_word_roles_tell_a_noun_used_before_nouns_from_an_adjective():
    from icml_topics.evaluate.name_words import word_roles

    text = [
        "the point cloud data is sparse data.",
        "we use point clouds and the cloud.",
        "a cloud model is sparse.",
    ] * 40
    roles = word_roles(text)
    assert roles["cloud"] == ("adjunct", "")  # before a noun in most uses, but after "the" and with a plural
    assert roles["sparse"] == ("modifier", "")


def test_a_name_that_echoes_its_parent_is_that_one_defect(icml_frame):
    """ "graph neural networks (GNNs)" on GNN papers under a parent of the same name says nothing of its own:
    "parent echo". On the code before, its claims emptied by the parent's words, it was also "unsupported by its
    papers", "mixed node", "generic name" and "rare in its papers", on papers every one of which says it."""
    rows = icml_frame[icml_frame["title"].str.contains(r"graph neural network", case=False, na=False)].head(20)
    titles = rows["title"].tolist()
    papers = (rows["title"] + ". " + rows["abstract"]).tolist()
    name = "graph neural networks (GNNs)"
    found = name_defects(name, parent="graph neural networks", titles=titles, papers=papers)
    assert found == ["parent echo"]
    assert name_defects(name, titles=titles, papers=papers) == []
