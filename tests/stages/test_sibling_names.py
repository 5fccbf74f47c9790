"""Names that tell siblings apart (issue 39, item 3), on real titles grouped by hand into sibling groups
(ICML 2013-2024 under reinforcement learning, ICLR 2024-2025 under large language models, copied from
../shared/data): each child is named by what its own papers say, never by the parent's subject again,
never twice, never with a defect."""

from __future__ import annotations

import pytest

from icml_topics.evaluate.names import name_defects, name_support
from icml_topics.stages.naming import name_key
from icml_topics.stages.sibling_names import ChildPapers, sibling_names

RL_CHILDREN = {
    "offline": [
        "Information-Theoretic Considerations in Batch Reinforcement Learning",
        "Enhancing Value Function Estimation through First-Order State-Action Dynamics in Offline Reinforcement Learning",
        "Q-value Regularized Transformer for Offline Reinforcement Learning",
        "Federated Offline Reinforcement Learning: Collaborative Single-Policy Coverage Suffices",
        "Pessimism Meets Risk: Risk-Sensitive Offline Reinforcement Learning",
        "Information-Directed Pessimism for Offline Reinforcement Learning",
        "Adaptive Advantage-Guided Policy Regularization for Offline Reinforcement Learning",
        "Reinformer: Max-Return Sequence Modeling for Offline RL",
    ],
    "multi-agent": [
        "Mean Field Multi-Agent Reinforcement Learning",
        "Finite-Time Analysis of Distributed TD(0) with Linear Function Approximation on Multi-Agent Reinforcement Learning",
        "Actor-Attention-Critic for Multi-Agent Reinforcement Learning",
        "Detecting Influence Structures in Multi-Agent Reinforcement Learning",
        "Controlling Behavioral Diversity in Multi-Agent Reinforcement Learning",
        "Modeling Others using Oneself in Multi-Agent Reinforcement Learning",
        "Optimistic Multi-Agent Policy Gradient",
    ],
    "exploration": [
        "Random Latent Exploration for Deep Reinforcement Learning",
        "Efficient Bias-Span-Constrained Exploration-Exploitation in Reinforcement Learning",
        "Exploration and Anti-Exploration with Distributional Random Network Distillation",
        "Coordinated Exploration in Concurrent Reinforcement Learning",
        "Provably Efficient Exploration in Quantum Reinforcement Learning with Logarithmic Worst-Case Regret",
        "Breadth-First Exploration on Adaptive Grid for Reinforcement Learning",
        "Exploration Conscious Reinforcement Learning Revisited",
    ],
    "imitation": [
        "Random Expert Distillation: Imitation Learning via Expert Policy Support Estimation",
        "Deeply AggreVaTeD: Differentiable Imitation Learning for Sequential Prediction",
        "Imitation Learning from Imperfect Demonstration",
        "EvIL: Evolution Strategies for Generalisable Imitation Learning",
        "Hybrid Inverse Reinforcement Learning",
        "OLLIE: Imitation Learning from Offline Pretraining to Online Finetuning",
        "Agnostic Interactive Imitation Learning: New Theory and Practical Algorithms",
    ],
    "human feedback": [
        "RLAIF vs. RLHF: Scaling Reinforcement Learning from Human Feedback with AI Feedback",
        "Understanding the Learning Dynamics of Alignment with Human Feedback",
        "Dense Reward for Free in Reinforcement Learning from Human Feedback",
        "Nash Learning from Human Feedback",
        "Principled Penalty-based Methods for Bilevel Reinforcement Learning and RLHF",
        "A Minimaximalist Approach to Reinforcement Learning from Human Feedback",
        "Interactive Learning from Policy-Dependent Human Feedback",
    ],
}
LLM_CHILDREN = {
    "jailbreak": [
        "LLM Jailbreak Detection for (Almost) Free!",
        "AttnGCG: Enhancing Jailbreaking Attacks on LLMs with Attention Manipulation",
        "How Jailbreak Defenses Work and Ensemble? A Mechanistic Investigation",
        "Understanding Jailbreak Success: A Study of Latent Space Dynamics in Large Language Models",
        "Shake-It-Off: Jailbreaking Black-Box Large Language Models by Shaking Off Objectionable Semantics",
        "Injecting Universal Jailbreak Backdoors into LLMs in Minutes",
        "Jailbreaking Leading Safety-Aligned LLMs with Simple Adaptive Attacks",
    ],
    "watermark": [
        "ESpeW: Robust Copyright Protection for LLM-based EaaS via Embedding-Specific Watermark",
        "Provable Robust Watermarking for AI-Generated Text",
        "Can Watermarked LLMs be Identified by Users via Crafted Prompts?",
        "Unremovable Watermarks for Open-Source Language Models",
        "Towards Codable Watermarking for Injecting Multi-Bits Information to LLMs",
        "Double-I Watermark: Protecting Model Copyright for LLM Fine-tuning",
    ],
    "kv cache": [
        "In-context KV-Cache Eviction for LLMs via Attention-Gate",
        "Model Tells You Where to Merge: Adaptive KV Cache Merging for LLMs on Long-Context Tasks",
        "SimLayerKV: A Simple Framework for Layer-Level KV Cache Reduction",
        "ShadowKV: KV Cache in Shadows for High-Throughput Long-Context LLM Inference",
        "Palu: KV-Cache Compression with Low-Rank Projection",
        "IntelLLM: Little Hints Make a Big Difference for LLM KV Cache Compression",
        "LoRC: Low-Rank Compression for LLMs KV Cache with a Progressive Compression Strategy",
    ],
}
RL, LLM = "Reinforcement learning (RL)", "Large language models (LLMs)"
# the word each child's name must hold (any form), written out by hand
RL_EXPECTED = {
    "offline": "offline",
    "multi-agent": "multi-agent",
    "exploration": "exploration",
    "imitation": "imitation",
    "human feedback": "human feedback",
}
LLM_EXPECTED = {"jailbreak": "jailbreak", "watermark": "watermark", "kv cache": "kv"}


@pytest.mark.parametrize(
    ("parent", "children", "expected"), [(RL, RL_CHILDREN, RL_EXPECTED), (LLM, LLM_CHILDREN, LLM_EXPECTED)]
)
def test_each_child_is_named_by_what_sets_it_apart(parent, children, expected):
    names = sibling_names(parent, children)
    assert set(names) == set(children)
    for child, word in expected.items():
        assert word in names[child].lower(), (child, names[child])
    # never the parent's subject alone, never twice, never a defect, given the parent and the siblings
    assert len({name_key(n) for n in names.values()}) == len(names)
    for child, name in names.items():
        others = [n for c, n in names.items() if c != child]
        context = {"titles": children[child], "sibling_titles": [children[c] for c in children if c != child]}
        found = name_defects(name, parent=parent, siblings=others, **context)
        # issue 49: "exploration" is a word of 10% of ML abstracts; with no phrase of its own (its titles say
        # "exploration" and little else twice), the child keeps it as the last resort, still flagged
        assert found == [] or (found == ["generic name"] and child == "exploration"), (name, found)
    # every child's name is supported by its papers and not by its siblings'
    share, _ = name_support(
        names, children, dict.fromkeys(children, list(children)), parents=dict.fromkeys(children, parent)
    )
    assert share == 1.0


def test_no_child_repeats_the_parent_or_a_name_taken_in_the_level():
    names = sibling_names(LLM, LLM_CHILDREN, taken=["jailbreaking"])
    assert name_key(names["jailbreak"]) != name_key("jailbreaking")
    for name in names.values():
        assert "language model" not in name.lower() and "llm" not in name.lower(), name


def test_author_keywords_count_and_the_output_is_deterministic():
    children = {k: ChildPapers(v, keywords=["AI safety"] if k == "jailbreak" else []) for k, v in LLM_CHILDREN.items()}
    assert sibling_names(LLM, children) == sibling_names(LLM, children)


def test_a_lone_child_or_no_children():
    assert sibling_names(RL, {}) == {}
    names = sibling_names(RL, {"offline": RL_CHILDREN["offline"]})
    assert "offline" in names["offline"]


#: ten online-RL titles, three of which say "offline RL": a sibling that carries it at most half as often
ONLINE_RL = [
    "Exploration bonuses for online RL",
    "Curiosity-driven exploration bonuses in sparse rewards",
    "Exploration bonuses from random network distillation",
    "Count-based exploration bonuses at scale",
    "Exploration bonuses for continuous control",
    "Optimistic exploration bonuses with function approximation",
    "Offline RL pretraining for online exploration",
    "Offline RL data for exploration bonuses",
    "From offline RL to online fine-tuning",
    "Exploration bonuses in procedurally generated games",
]


@pytest.mark.parametrize(
    "eighth",
    [
        # 8 of 10 carry "offline RL": the contrast alone (0.5 against 0.6) named the child for the minority phrase
        "Model-based offline RL with pessimism",
        # 7 of 10 (session 8): ranked by its share less half its sibling's (0.55 against 0.6), the wider margin
        # named the child; inside the gate a phrase is ranked by its own share alone (the name stays when
        # siblings change)
        "Model-based batch control with pessimism",
    ],
    ids=["8-of-10", "7-of-10"],
)
def test_the_phrase_most_papers_carry_wins_inside_the_gate_whatever_the_margin(eighth):
    """Issue 49, representative first: "offline RL" is carried by most of the child's 10 papers and 3 of its
    sibling's (at most half as often: distinct); "conservative Q-learning" by 6 of them and none of the
    sibling's. The phrase most papers carry names the child, not the one with the wider margin."""
    offline = [
        "Offline RL with conservative Q-learning for robots",
        "Conservative Q-learning revisited: offline RL at scale",
        "Offline RL from human demonstrations with conservative Q-learning",
        "Conservative Q-learning for offline RL in healthcare",
        "Uncertainty and conservative Q-learning in offline RL",
        "Conservative Q-learning meets offline RL benchmarks",
        "Offline RL with diffusion policies",
        eighth,
        "Value regularisation for batch agents",
        "Return-conditioned transformers for control",
    ]
    names = sibling_names(RL, {"offline": offline, "online": ONLINE_RL})
    assert names["offline"] == "offline RL", names
    assert "exploration" in names["online"], names


def test_an_acronym_keeps_its_long_form_where_the_papers_give_it():
    """Issue 49: "RLVR" alone says nothing to a reader who does not know it; the abstracts write it out."""
    from icml_topics.stages.sibling_names import ChildPapers

    rlvr_titles = [
        "RLVR for math reasoning",
        "Scaling RLVR to long chains of thought",
        "Does RLVR teach new reasoning?",
        "Entropy collapse in RLVR",
    ]
    rlvr_texts = [
        f"{t}. We study reinforcement learning with verifiable rewards (RLVR) for language models." for t in rlvr_titles
    ]
    bandit_titles = ["Contextual bandits with regret bounds", "Regret bounds for linear contextual bandits"]
    names = sibling_names(
        "Large language models", {"rlvr": ChildPapers(rlvr_titles, rlvr_texts), "bandits": ChildPapers(bandit_titles)}
    )
    assert names["rlvr"] == "reinforcement learning with verifiable rewards (RLVR)", names


def test_a_phrase_few_of_its_papers_carry_never_names_a_node():
    """Issue 49: "hierarchical reinforcement learning" named a 118-paper node that 8% of its papers carry,
    because no sibling's papers carried it. A phrase fewer than a tenth of the node's papers carry is no
    name, however distinct: here the phrase all the node's papers carry is, though its sibling's carry it too
    (the sibling is named for what sets it apart)."""
    domains = "robotics healthcare finance logistics education energy retail agriculture aviation shipping"
    more = "mining forestry fisheries gaming advertising insurance telecom tourism weather sports law music art"
    words = (domains + " " + more).split()
    offline = [f"Offline RL for {w}" for w in words[:21]]  # 2 of 23 papers say "conservative critics"
    offline += ["Conservative critics for offline RL", "Offline RL with conservative critics"]
    online = [f"Offline RL with exploration bonuses in {w}" for w in words[:14]]
    online += [f"Offline RL for {w}" for w in words[14:20]]
    names = sibling_names(RL, {"a": offline, "b": online})
    assert "conservative" not in names["a"], names  # main before this: "conservative critics and offline RL"
    assert names["a"] == "offline RL", names
    assert "exploration" in names["b"], names


def test_a_small_sibling_does_not_bar_a_phrase_most_of_my_papers_carry():
    """Issue 49, stability: two of a 3-paper sibling's titles say "link prediction" (a share of 0.67, above the
    child's 0.6), so the child, 6 of whose 10 papers are on link prediction, lost the phrase and was named for
    its minority ("oversmoothing"); one paper more or less in that sibling flips the name after a resample. A
    sibling's share now counts as if it had ``SIBLING_PRIOR`` more papers at the rate of all the siblings'
    papers together (real ICLR 2024 titles)."""
    links = [
        "Attribute-Enhanced Similarity Ranking for Sparse Link Prediction",
        "Revisiting Link Prediction: a data perspective",
        "Pure Message Passing Can Estimate Common Neighbor for Link Prediction",
        "Adaptive Pairwise Encodings for Link Prediction",
        "Neural Common Neighbor with Completion for Link Prediction",
        "Accurate Link Prediction via PU Learning",
        "On information dropping and oversmoothing in graph neural networks",
        "Informed weight initialization of Graph Neural Networks and its effect on Oversmoothing",
        "Unifying over-smoothing and over-squashing in graph neural networks: A physics informed approach and beyond",
        "Enhancing Graph Injection Attacks Through Over-Smoothing Amplification",
    ]
    small = [
        "Inductive Link Prediction in Knowledge Graphs using Path-based Neural Networks",
        "Continual Knowledge Graph Link Prediction: Beyond Experience Replay",
        "Representation-space diffusion models for generating periodic materials",
    ]
    transformers = [
        "Activation Function Matters in Graph Transformers",
        "Understanding Graph Transformers by Generalized Propagation",
        "A Fast and Effective Alternative to Graph Transformers",
        "Graph Transformers for Large Graphs",
        "Exploring High-Order Message-Passing in Graph Transformers",
        "Topology-Informed Graph Transformer",
        "Polynormer: Polynomial-Expressive Graph Transformer in Linear Time",
        "Training Graph Transformers via Curriculum-Enhanced Attention Distillation",
    ]
    molecules = [
        "Trading-off Multiple Properties for Molecular Optimization",
        "Domain-Agnostic Molecular Generation with Chemical Feedback",
        "TorSeq: Torsion Sequential Modeling for Molecular 3D Conformation Generation",
        "PACIA: Parameter-Efficient Adapter for Few-Shot Molecular Property Prediction",
        "Molecular Conformation Generation via Shifting Scores",
        "Bi-level Contrastive Learning for Knowledge Enhanced Molecule Representations",
        "Parameter-Free Molecular Classification and Regression with Gzip",
        "Learning Over Molecular Conformer Ensembles: Datasets and Benchmarks",
        "Multi-Objective Molecular Design through Learning Latent Pareto Set",
    ]
    children = {"links": links, "small": small, "transformers": transformers, "molecules": molecules}
    names = sibling_names("Graph learning", children)
    assert name_key("link prediction") <= name_key(names["links"]), names
    assert names == sibling_names("Graph learning", dict(reversed(children.items())))


def test_a_sibling_without_a_phrases_words_is_not_scored_for_it(monkeypatch):
    """Issue 51: every candidate of every child was scored in every sibling, so a group of G children cost G^2
    (thousands of finest nodes share a theme at a million papers). A sibling whose titles lack a word of the
    phrase carries it in none of them: it must cost nothing, and the names stay the same."""
    from icml_topics.stages import sibling_names as module
    from icml_topics.stages.name_phrases import needed_stems

    children = {**RL_CHILDREN, **LLM_CHILDREN}
    expected = sibling_names("", children)
    asked: list[tuple[tuple[str, ...], object]] = []
    real = module.quick_share

    def counting(key, titles):
        asked.append((key, titles))
        return real(key, titles)

    monkeypatch.setattr(module, "quick_share", counting)
    assert sibling_names("", children) == expected
    assert asked
    lacking = []
    for key, titles in asked:
        want, alt = needed_stems(key)
        if not all(s in titles.postings for s in want) and (alt is None or alt not in titles.postings):
            lacking.append(key)
    assert lacking == []
