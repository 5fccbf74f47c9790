"""One topic hierarchy under the themes (issue 39), seen through TopicMap on 240 real ICML abstracts:
``documents_.topic`` is the finest level, every table uses the same node ids, every themed paper is
placed, another seed gives the same tree, and edits, transform, save/load and set_taxonomy keep it.

By default 240 papers get one level (their themes are too small for two that do not repeat each other,
issue 51); the tests of two nested levels fit the same papers with ``topic_sizes=(40, 12)``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from icml_topics import TopicMap


def _ok(tm: TopicMap) -> pd.DataFrame:
    return tm.documents_[tm.documents_["status"] == "ok"]


@pytest.fixture(scope="module")
def two_levels(fitted_two_levels) -> TopicMap:
    """The same 240 papers with two explicit levels (topics of ~40 papers, subtopics of ~12): the session's
    ``fitted_two_levels`` (conftest), read-only (the edits below work on a copy of its state)."""
    return fitted_two_levels


def test_topic_is_the_finest_level_and_no_two_nodes_share_an_id(fitted):
    docs, tree = _ok(fitted), fitted.topic_tree_
    assert (docs["topic"] == docs["topic_0"]).all()
    assert set(fitted.topics_["topic"].astype(int)) - {-1} == set(tree.loc[tree["level"] == 0, "topic"])
    assert not tree["topic"].duplicated().any()  # ids unique across levels
    top = tree[tree["level"] == tree["level"].max()]
    assert (top["parent"] == -1).all() and top["theme"].str.len().gt(0).all()
    for node in top.itertuples():  # every node's papers share its theme: themes are the root
        assert set(docs.loc[docs[f"topic_{node.level}"] == node.topic, "theme"]) == {node.theme}


def test_every_paper_is_placed_with_its_similarity(two_levels):
    fitted = two_levels
    docs = _ok(fitted)
    assert (docs[["topic_0", "topic_1"]] >= 0).all().all()
    sim = docs["topic_similarity"]
    assert sim.notna().all() and sim.between(0, 1).all()
    assert fitted.topic_tree_["stability"].between(0, 1).all() or fitted.topic_tree_["stability"].isna().any()
    assert set(fitted.topics_.columns) >= {"stability", "size", "label"}


def test_labels_are_not_repeated_within_a_level(fitted):
    for _, level in fitted.topic_tree_.groupby("level"):
        assert not level["label"].str.lower().duplicated().any(), level["label"].tolist()


def test_another_seed_gives_the_same_tree(two_levels, real_sample):
    fitted = two_levels
    other = TopicMap(random_state=1, topic_sizes=(40, 12)).fit(real_sample, embeddings=fitted.embeddings_)
    assert other.documents_["theme"].tolist() == fitted.documents_["theme"].tolist()
    for column in ("topic_0", "topic_1"):
        assert other.documents_[column].tolist() == fitted.documents_[column].tolist()


def test_transform_places_a_new_paper_under_its_own_theme(two_levels):
    fitted = two_levels
    text = (
        "We study offline reinforcement learning with conservative value estimates: a policy learned from a "
        "fixed dataset of transitions avoids actions the data does not cover, with regret bounds."
    )
    placed = fitted.transform([text])
    row = placed.iloc[0]
    assert row["theme"] != "" and row["topic"] >= 0
    node_theme = fitted.topic_tree_.set_index(["level", "topic"]).loc[(0, int(row["topic"])), "theme"]
    assert node_theme == row["theme"]
    parent = fitted.topic_tree_.set_index(["level", "topic"]).loc[(0, int(row["topic"])), "parent"]
    assert row["topic_1"] == parent and 0 < row["topic_similarity"] <= 1


def test_merge_and_rename_keep_the_tree_and_the_topics_one_partition(two_levels):
    fitted = two_levels
    from icml_topics.state import derive

    tree = fitted.topic_tree_
    siblings = tree[tree["level"] == 0].groupby("parent")["topic"].apply(list)
    pair = next(kids[:2] for kids in siblings if len(kids) >= 2)
    tm = TopicMap(random_state=0)
    tm._set_state(fitted.state_)
    tm.merge_topics(pair, label="merged subtopic")
    tm.rename_topic(pair[0], "renamed subtopic")
    docs = _ok(tm)
    assert (docs["topic"] == docs["topic_0"]).all() and pair[1] not in set(docs["topic"])
    assert tm.topic_tree_.set_index(["level", "topic"]).loc[(0, pair[0]), "label"] == "renamed subtopic"
    tm.state_.tree.check(len(tm.embeddings_))
    assert derive(tm.state_).topic_tree.equals(tm.topic_tree_)


def test_save_and_load_keep_stability_and_similarity(fitted, tmp_path):
    fitted.save(tmp_path / "model")
    back = TopicMap.load(tmp_path / "model")
    pd.testing.assert_frame_equal(back.topic_tree_, fitted.topic_tree_)
    np.testing.assert_allclose(back.state_.tree.similarity, fitted.state_.tree.similarity)
    pd.testing.assert_series_equal(back.documents_["topic_similarity"], fitted.documents_["topic_similarity"])


def test_set_taxonomy_builds_the_tree_again_under_the_new_themes(two_levels):
    fitted = two_levels
    tm = TopicMap(random_state=0, topic_sizes=(40, 12))
    tm._set_state(fitted.state_)
    tm.set_taxonomy({"Bandits": ["multi-armed bandits", "regret"], "Graphs": ["graph neural networks"]})
    docs = _ok(tm)
    assert set(docs["theme"]) <= {"Bandits", "Graphs", ""} and (docs["theme"] == "").any()
    for node, rows in docs.groupby("topic_1"):
        assert rows["theme"].nunique() == 1, node  # papers without a theme get nodes of their own
    assert (docs["topic"] >= 0).all()
    with pytest.raises(ValueError, match="topic_sizes"):
        TopicMap(topic_sizes=(24, 90)).fit(["a b c"] * 3)


def test_the_report_says_which_embedding_path_cpu_and_version_made_the_tree(fitted, tmp_path):
    import html

    from icml_topics import __version__
    from icml_topics.embedding.precision import cpu_features

    page = html.unescape(fitted.report(tmp_path / "report.html").read_text(encoding="utf-8"))
    footer = page[page.index('<footer class="page-footer">') :]
    model = cpu_features().split("|")[1]
    assert f"icml_topics {__version__}" in footer and f"embeddings: {fitted.embedding_path_} on" in footer
    assert model in footer
