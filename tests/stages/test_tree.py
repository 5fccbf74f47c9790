"""The topic tree stage (stages/tree.py) on real abstracts: nesting, distinct names, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from icml_topics.stages.naming import name_key, name_topics
from icml_topics.stages.tree import TopicTree, cluster_layers, fill, fit_tree, nest


def test_near_copies_of_a_name_share_a_key():
    assert name_key("generative adversarial networks (GANs)") == name_key("generative adversarial network (GAN)")
    assert name_key("large language models (LLMs)") == name_key("large language models")
    assert name_key("policy optimization and reinforcement learning") == name_key(
        "reinforcement learning and policy optimization"
    )
    assert name_key("offline reinforcement learning") != name_key("reinforcement learning")


def test_names_of_a_level_are_told_apart_not_numbered():
    keywords = {
        0: ["generative adversarial networks", "gans", "discriminator", "mode collapse"],
        1: ["generative adversarial network", "gan", "image synthesis", "stylegan"],
    }
    names = name_topics(keywords, distinct=name_key)
    assert name_key(names[0]) != name_key(names[1]), names
    assert not any(name.endswith(")") and name.rsplit("(", 1)[-1][:-1].isdigit() for name in names.values()), names


def test_a_node_is_not_named_as_its_parent():
    keywords = {0: ["reinforcement learning", "rl", "offline reinforcement learning", "policy"]}
    names = name_topics(keywords, distinct=name_key, avoid={0: ["reinforcement learning (RL)"]})
    assert name_key(names[0]) != name_key("reinforcement learning (RL)"), names


@pytest.fixture(scope="module")
def small(fitted):
    """The real 240-paper sample's embeddings and texts (from the session's fitted model)."""
    return fitted.state_.embeddings, fitted.state_.texts


def _first_words(texts):
    def keyphrases(labels):
        out = {}
        for t in sorted(set(labels.tolist()) - {-1}):
            words = " ".join(texts[i] for i in np.flatnonzero(labels == t)[:3]).lower().split()
            out[t] = [w for w in words if len(w) > 6][:5]
        return out

    return keyphrases


def test_evoc_layers_are_deterministic_under_random_state(small):
    emb, _ = small
    a = cluster_layers(emb, random_state=3, cache_dir=None, base_min_cluster_size=5)
    b = cluster_layers(emb, random_state=3, cache_dir=None, base_min_cluster_size=5)
    assert len(a) == len(b) and len(a) >= 1
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_nest_makes_every_paper_follow_its_nodes_parent():
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(12, 4)).astype(np.float32)
    fine = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, -1])
    coarse = np.array([0, 0, 1, 0, 0, 0, 1, 1, -1, -1, -1, 1])  # node 0 split, node 3 all noise
    labels, parents = nest([fine, coarse], emb)
    assert parents[0][0] == 0 and parents[0][1] == 0 and parents[0][2] == 1
    assert parents[0][3] in (0, 1)  # nearest coarse centroid
    assert labels[11, 1] == 1  # a paper without a fine node keeps its coarse one
    rows = labels[:, 0] != -1
    assert [parents[0][t] for t in labels[rows, 0]] == labels[rows, 1].tolist()


def test_fill_places_a_paper_without_a_node_only_where_it_looks_like_a_member():
    rng = np.random.default_rng(0)
    a, b, c = np.eye(3, dtype=np.float32)
    members = [a + rng.normal(scale=0.05, size=3) for _ in range(6)] + [
        b + rng.normal(scale=0.05, size=3) for _ in range(6)
    ]
    near_a, far, between = a + 0.01, c, (a + b) / 2
    emb = np.vstack([*members, near_a, far, between, near_a]).astype(np.float32)
    fine = np.array([0] * 6 + [1] * 6 + [-1, -1, -1, -1])
    coarse = np.array([0] * 12 + [0, -1, -1, -1])  # one coarse node; the last paper has no coarse node either
    labels = np.column_stack([fine, coarse])
    out = fill(labels, [{0: 0, 1: 0}, {0: -1}], emb)
    assert out[12, 0] == 0  # near node 0's centroid, inside its coarse node: joins node 0
    assert out[13].tolist() == [-1, -1]  # far from every node: stays without one
    assert out[14].tolist() == [-1, 0]  # between the two fine nodes: neither fine node, but the coarse one
    assert out[15].tolist() == [0, 0]  # no coarse node first, then as near node 0 as its members: both
    np.testing.assert_array_equal(out[:12], labels[:12])  # EVoC's own papers keep their nodes
    TopicTree(out, ({0: 0, 1: 0}, {0: -1}), ({0: "a", 1: "b"}, {0: "c"}), ({0: [], 1: []}, {0: []})).check(len(emb))


def test_fit_tree_levels_nest_and_names_differ_within_each_level(small):
    emb, texts = small
    tree = fit_tree(emb, texts, _first_words(texts), random_state=0, cache_dir=None)
    assert isinstance(tree, TopicTree) and tree.n_levels >= 3
    tree.check(len(emb))
    sizes = [len(tree.nodes(level)) for level in range(tree.n_levels)]
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] >= 2, sizes
    for level in range(tree.n_levels):
        keys = [name_key(n) for n in tree.names[level].values()]
        assert len(set(keys)) == len(keys), tree.names[level]
    again = fit_tree(emb, texts, _first_words(texts), random_state=0, cache_dir=None)
    np.testing.assert_array_equal(tree.labels, again.labels)
    assert tree.parents == again.parents and tree.names == again.names


def test_check_names_a_paper_outside_its_nodes_parent(small):
    emb, texts = small
    tree = fit_tree(emb, texts, _first_words(texts), random_state=0, cache_dir=None)
    bad = tree.labels.copy()
    row = int(np.flatnonzero(bad[:, 0] != -1)[0])
    others = [t for t in tree.nodes(1) if t != bad[row, 1]]
    bad[row, 1] = others[0]
    with pytest.raises(ValueError, match="not nested"):
        TopicTree(bad, tree.parents, tree.names, tree.keywords).check(len(emb))
    with pytest.raises(ValueError, match="shape"):
        tree.check(len(emb) + 1)


def test_a_child_is_not_joined_to_its_parents_words_and_numbers_are_never_doubled():
    keywords = {
        0: ["reinforcement learning", "rl", "policy"],
        1: ["reinforcement learning", "deterministic policy gradient"],
    }
    texts = {
        0: ["Reinforcement learning with a policy."],
        1: ["Deterministic policy gradient reinforcement learning.", "A deterministic policy gradient for RL."],
    }
    names = name_topics(keywords, texts, distinct=name_key, avoid={1: ["policy gradient and reinforcement learning"]})
    assert names[1] == "deterministic policy gradient", names
    same = {t: ["differential privacy", "privacy"] for t in range(3)}
    same[2] = ["differential privacy", "local differential privacy"]
    names = name_topics(same, distinct=name_key)
    assert names[2] == "local differential privacy", names  # the node's own phrase, not a number
    assert not any(n.count("(") > 1 for n in names.values()), names
