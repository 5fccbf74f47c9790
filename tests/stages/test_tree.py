"""The topic tree stage (stages/tree.py) on real abstracts: nesting in themes, ids, distinct names, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from icml_topics.stages.hierarchy import Hierarchy, HierarchySettings
from icml_topics.stages.naming import name_key, name_topics
from icml_topics.stages.tree import TopicTree, build_tree, ranked_levels


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
    """The real 240-paper sample's embeddings, texts, titles and themes (from the session's fitted model)."""
    st = fitted.state_
    return st.embeddings, st.texts, st.modelled["title"].fillna("").tolist(), list(st.themes.docs.theme)


def _first_words(texts):
    def level_keyphrases(labels):
        out = {}
        for t in sorted(set(labels.tolist()) - {-1}):
            words = " ".join(texts[i] for i in np.flatnonzero(labels == t)[:3]).lower().split()
            out[t] = [w for w in words if len(w) > 6][:5]
        return out

    return lambda labels: [level_keyphrases(level) for level in labels.T]


def tree_themes(themes):
    """The sample's themes with the first 10 papers' removed (the fit gives almost every paper one)."""
    return ["" if i < 10 else t for i, t in enumerate(themes)]


def _tree(small, sizes=(40, 12), with_unthemed=False):
    emb, texts, titles, themes = small
    themes = tree_themes(themes) if with_unthemed else themes
    settings = HierarchySettings(("topic", "subtopic"), sizes)
    return build_tree(emb, themes, texts, titles, _first_words(texts), settings=settings, cache_dir=None)


def test_ranked_levels_number_the_finest_level_first_by_size_and_coarser_levels_after_it():
    labels = np.array([[0, 5], [0, 5], [0, 6], [1, 7], [-1, -1]])  # coarsest first, as fit_hierarchy gives
    h = Hierarchy(("topic", "subtopic"), labels, [{0: "A", 1: "B"}, {5: 0, 6: 0, 7: 1}],
                  [{0: 3, 1: 1}, {5: 2, 6: 1, 7: 1}], [{0: 1.0, 1: 0.5}, {5: 0.9, 6: 0.4, 7: 0.5}],
                  np.zeros((5, 2)), np.zeros((5, 2)))  # fmt: skip
    out, parents, stability = ranked_levels(h.labels, h.parents, h.stability)
    assert out[:, 0].tolist() == [0, 0, 1, 2, -1]  # subtopics: largest first, ties by first paper
    assert out[:, 1].tolist() == [3, 3, 3, 4, -1]  # topics go on after the subtopics' ids
    assert parents == [{0: 3, 1: 3, 2: 4}, {3: -1, 4: -1}]
    assert stability[0] == {0: 0.9, 1: 0.4, 2: 0.5} and stability[1] == {3: 1.0, 4: 0.5}


def test_tree_nests_in_themes_places_every_paper_and_names_differ_within_each_level(small):
    emb, _, _, themes = small
    tree = _tree(small, with_unthemed=True)
    assert isinstance(tree, TopicTree) and tree.n_levels == 2
    tree.check(len(emb))
    has_theme = np.array([bool(t) for t in tree_themes(themes)])
    assert (tree.labels >= 0).all() and not has_theme.all()  # papers without a theme get nodes of their own
    for node in tree.nodes(1):  # every topic's papers share one theme: themes are the root
        assert len({tree_themes(themes)[i] for i in np.flatnonzero(tree.labels[:, 1] == node)}) == 1
    assert not set(tree.nodes(0)) & set(tree.nodes(1))  # ids unique across levels
    assert tree.nodes(0) == list(range(len(tree.nodes(0))))
    for level in range(tree.n_levels):
        keys = [name_key(n) for n in tree.names[level].values()]
        assert len(set(keys)) == len(keys), tree.names[level]
    assert np.nanmin(tree.similarity) > 0 and not np.isnan(tree.similarity).any()
    again = _tree(small, with_unthemed=True)
    np.testing.assert_array_equal(tree.labels, again.labels)
    assert tree.parents == again.parents and tree.names == again.names


def test_check_names_a_paper_outside_its_nodes_parent(small):
    tree = _tree(small)
    emb = small[0]
    bad = tree.labels.copy()
    row = int(np.flatnonzero(bad[:, 0] != -1)[0])
    others = [t for t in tree.nodes(1) if t != bad[row, 1]]
    bad[row, 1] = others[0]
    with pytest.raises(ValueError, match="not nested"):
        TopicTree(bad, tree.parents, tree.names, tree.keywords).check(len(emb))
    with pytest.raises(ValueError, match="shape"):
        tree.check(len(emb) + 1)
    reused = (tree.parents[0], {**tree.parents[1], 0: -1})  # a topic with the id of a subtopic
    with pytest.raises(ValueError, match="reuses node ids"):
        TopicTree(tree.labels, reused, tree.names, tree.keywords).check(len(emb))


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
