"""Stage units: naming, size-aware defaults, the exact kNN graph, clustering fallbacks, stop words."""

from __future__ import annotations

import numpy as np
import pytest

from icml_topics.stages import knn_graph, name_topics, size_aware_defaults
from icml_topics.stages.naming import OUTLIER_LABEL, name_key, name_topic
from icml_topics.text import stop_words

_DOCS = [
    "Graph neural networks use message passing between nodes.",
    "We study message passing in graph neural networks and their expressivity.",
    "Offline reinforcement learning with policy optimization from logged data.",
    "Policy optimization for offline reinforcement learning under distribution shift.",
    "Causal discovery recovers structural equations from data.",
    "Structural equations and causal discovery with interventions.",
]


@pytest.mark.parametrize(
    ("keyphrases", "expected"),
    [
        (
            ["graph neural", "graph", "graph neural networks", "message passing"],
            "graph neural networks and message passing",
        ),
        (
            ["offline", "offline reinforcement learning", "policy optimization"],
            "offline reinforcement learning and policy optimization",
        ),
        (["learning causal", "causal discovery", "structural equations"], "causal discovery and structural equations"),
        (["bandit", "bandits"], "bandit"),
        (["federated learning fl", "federated learning", "clients"], "federated learning (FL)"),
        ([], "unnamed topic"),
    ],
)
def test_topic_names_are_readable_phrases(keyphrases, expected):
    assert name_topic(keyphrases, _DOCS) == expected


def test_phrases_are_joined_only_when_they_occur_together():
    """ "bayesian optimization" and "metropolis-hastings" never share a paper: no joint name."""
    docs = ["Bayesian optimization of hyperparameters with gaussian processes."] * 3 + [
        "A Metropolis-Hastings sampler."
    ] * 2
    assert name_topic(["bayesian optimization", "metropolis-hastings"], docs) == "bayesian optimization"


def test_duplicate_names_are_told_apart_and_outliers_named():
    names = name_topics({-1: ["x"], 0: ["kernel methods", "rkhs"], 1: ["kernel methods", "rkhs", "random features"]})
    assert names[-1] == OUTLIER_LABEL
    assert names[0] != names[1]
    assert names[0] == "kernel methods" and names[1] == "random features"  # the next distinct phrase


def test_a_name_told_apart_by_its_topic_id_gets_the_id_once():
    # name_key leaves parenthesised text out, so "X (1)" and "X" share a key: the id must not be added twice.
    keywords = ["graph neural networks (GNNs)"]
    names = name_topics({0: keywords, 1: keywords, 2: keywords}, distinct=name_key)
    assert names == {
        0: "graph neural networks (GNNs)",
        1: "graph neural networks (GNNs) (1)",
        2: "graph neural networks (GNNs) (2)",
    }


def test_a_custom_namer_is_used_and_a_failing_one_falls_back():
    seen = []

    def namer(info):
        seen.append(info)
        return f"Topic about {info.keyphrases[0]}"

    names = name_topics({0: ["reinforcement learning rl", "reinforcement learning"]}, {0: _DOCS[2:4]}, namer=namer)
    assert names[0] == "Topic about reinforcement learning (RL)"
    assert seen[0].representative_texts == _DOCS[2:4] and seen[0].default_name == "reinforcement learning (RL)"
    broken = name_topics({0: ["graph neural networks"]}, namer=lambda info: 1 / 0)
    assert broken[0] == "graph neural networks"


def test_defaults_scale_with_corpus_size():
    small, conference, everything = size_aware_defaults(38), size_aware_defaults(5630), size_aware_defaults(15300)
    assert small.reducer == "small" and conference.reducer == "umap"
    assert everything.reducer == "umap" and small.min_df == 1 and conference.min_df == 2
    assert small.n_neighbors == 15 and size_aware_defaults(5).n_neighbors == 4


def test_knn_graph_is_exact_and_self_first():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 16)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    idx, dist = knn_graph(x, 6, chunk=64)  # several chunks
    assert (idx[:, 0] == np.arange(300)).all() and (dist[:, 0] == 0).all()
    brute = np.argsort(-(x @ x.T), axis=1, kind="stable")[:, :6]
    assert (np.sort(idx, axis=1) == np.sort(brute, axis=1)).all()
    assert (np.diff(dist, axis=1) >= -1e-6).all()


def test_academic_stop_words_but_field_words_kept():
    words = set(stop_words())
    assert {"propose", "paper", "method", "results", "the"} <= words
    assert not {"learning", "model", "large", "reinforcement", "graph"} & words
