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
