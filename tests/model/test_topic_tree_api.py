"""The topic tree through the facade: topic_tree_, topics_at, topic_<level> columns, CSVs, save/load, transform."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from icml_topics.stages.naming import name_key


def _levels(tm) -> list[int]:
    return sorted(set(tm.topic_tree_["level"].tolist()))


def test_topic_tree_has_two_nested_levels_under_the_themes_with_parents_above(fitted_two_levels):
    fitted = fitted_two_levels
    tree = fitted.topic_tree_
    for column in ("level", "topic", "parent", "label", "size", "theme", "purity", "x", "y"):
        assert column in tree.columns
    levels = _levels(fitted)
    assert levels == list(range(len(levels))) and len(levels) >= 2
    top = levels[-1]
    assert (tree.loc[tree["level"] == top, "parent"] == -1).all()  # under their theme (the theme column)
    for level in levels[:-1]:
        above = set(tree.loc[tree["level"] == level + 1, "topic"])
        assert set(tree.loc[tree["level"] == level, "parent"]) <= above
        # a parent holds at least the papers of its children
        kids = tree[tree["level"] == level].groupby("parent")["size"].sum()
        sizes = tree[tree["level"] == level + 1].set_index("topic")["size"]
        assert (kids <= sizes.loc[kids.index]).all()
    counts = tree.groupby("level")["topic"].count()
    assert counts.is_monotonic_decreasing and counts.iloc[-1] >= 2


def test_every_level_is_named_without_near_copies(fitted):
    for _, rows in fitted.topic_tree_.groupby("level"):
        labels = rows["label"].tolist()
        assert all(isinstance(n, str) and n.strip() for n in labels)
        assert len({name_key(n) for n in labels}) == len(labels), labels


def test_documents_have_one_column_per_level_matching_the_tree(fitted):
    docs = fitted.documents_
    ok = docs["status"] == "ok"
    tree = fitted.topic_tree_
    for level in _levels(fitted):
        column = docs[f"topic_{level}"]
        assert str(column.dtype) == "Int64"
        assert column[~ok].isna().all() and column[ok].notna().all()
        counts = column[ok][column[ok] != -1].value_counts()
        sizes = tree[tree["level"] == level].set_index("topic")["size"]
        assert counts.sort_index().tolist() == sizes.sort_index().tolist()
    assert list(docs.columns).index("topic_0") == list(docs.columns).index("y") + 1
    # today's topic column is untouched: the fine topics of the fit
    np.testing.assert_array_equal(docs.loc[ok, "topic"].to_numpy(dtype=np.int64), fitted.state_.labels)


def test_topics_at_returns_one_level_and_names_the_valid_ones(fitted_two_levels):
    fitted = fitted_two_levels
    top = _levels(fitted)[-1]
    rows = fitted.topics_at(top)
    assert set(rows["level"]) == {top} and len(rows) == (fitted.topic_tree_["level"] == top).sum()
    with pytest.raises(ValueError, match=r"level=99 is not a level of this topic tree: use one of \[0, 1"):
        fitted.topics_at(99)


def test_outputs_write_topic_tree_csv_and_level_columns(fitted, tmp_path):
    from icml_topics.outputs import write_outputs

    paths = write_outputs(fitted, tmp_path / "out", save_model=False, report=False, static_map=False)
    tree = pd.read_csv(paths["tree"])
    assert {"level", "topic", "parent", "label", "size", "theme"} <= set(tree.columns)
    assert len(tree) == len(fitted.topic_tree_)
    docs = pd.read_csv(paths["documents"])
    for level in _levels(fitted):
        assert docs[f"topic_{level}"].tolist() == fitted.documents_[f"topic_{level}"].astype("float").tolist()


def test_save_load_keeps_the_tree_and_rejects_a_broken_one(fitted, tmp_path):
    from icml_topics import TopicMap

    path = fitted.save(tmp_path / "model")
    loaded = TopicMap.load(path)
    pd.testing.assert_frame_equal(loaded.topic_tree_, fitted.topic_tree_)
    columns = [f"topic_{level}" for level in _levels(fitted)]
    pd.testing.assert_frame_equal(loaded.documents_[columns], fitted.documents_[columns])
    # a tree whose rows do not match the model is refused, with what to do
    np.save(path / "tree_labels.npy", fitted.state_.tree.labels[:-1])
    from icml_topics._io import write_manifest

    write_manifest(path)
    with pytest.raises(ValueError, match="topic tree is inconsistent.*save the model again"):
        TopicMap.load(path)


def test_transform_places_papers_in_nested_nodes(fitted, real_sample):
    placed = fitted.transform(real_sample.head(20))
    columns = [f"topic_{level}" for level in _levels(fitted)]
    tree = fitted.state_.tree
    for _, row in placed[columns].iterrows():
        for level in range(len(columns) - 1):
            if int(row.iloc[level]) != -1:  # a fitted paper left out of a level keeps its -1 there
                assert tree.parents[level][int(row.iloc[level])] == int(row.iloc[level + 1])
    # the fit's own papers keep the nodes they were fitted in, at every level
    fitted_nodes = fitted.documents_.loc[placed.index, columns]
    pd.testing.assert_frame_equal(placed[columns].astype("int64"), fitted_nodes.astype("int64"))


def test_transform_on_the_fit_s_own_papers_returns_their_fit(fitted, real_sample):
    """Every paper of the fitted corpus placed again gets its fitted topic, tree nodes and position (100%)."""
    placed = fitted.transform(real_sample)
    docs = fitted.documents_.loc[placed.index]
    ok = placed["status"] == "ok"
    assert ok.sum() == (docs["status"] == "ok").sum() > 200
    columns = ["topic", *(f"topic_{level}" for level in _levels(fitted))]
    for column in columns:
        agree = (placed.loc[ok, column].astype("int64") == docs.loc[ok, column].astype("int64")).mean()
        assert agree == 1.0, (column, agree)
    np.testing.assert_allclose(placed.loc[ok, ["x", "y"]].to_numpy(float), docs.loc[ok, ["x", "y"]].to_numpy(float))


def test_transform_of_the_fit_s_abstracts_as_strings_returns_their_fit_without_embedding(
    fitted, real_sample, monkeypatch
):
    """The README's ``tm.transform(<abstracts>)`` on the fit's own abstracts, as plain strings (no titles, so
    another text than the fit embedded): each gets its fitted topic, tree nodes, theme and position (100%),
    from its stored embedding; only the one new abstract is embedded."""
    embedded: list[str] = []
    real_embedder = fitted._embedder

    def counting_embedder(*args, **kwargs):
        embedder = real_embedder(*args, **kwargs)

        def embed(texts, **options):
            embedded.extend(texts)
            return embedder(texts, **options)

        return embed

    monkeypatch.setattr(fitted, "_embedder", counting_embedder)
    new = "We learn a world model from pixels and plan with it to control a real robot arm in a kitchen."
    abstracts = [*real_sample["abstract"].astype(str), new]
    placed = fitted.transform(abstracts)
    assert embedded == [new]
    docs = fitted.documents_
    ok = (docs["status"] == "ok").to_numpy()
    assert ok.sum() > 200
    mine, theirs = placed.iloc[: len(docs)][ok], docs[ok]
    for column in ["topic", "theme", *(f"topic_{level}" for level in _levels(fitted))]:
        agree = (mine[column].astype(str).to_numpy() == theirs[column].astype(str).to_numpy()).mean()
        assert agree == 1.0, (column, agree)
    np.testing.assert_allclose(mine[["x", "y"]].to_numpy(float), theirs[["x", "y"]].to_numpy(float))
    np.testing.assert_allclose(mine["theme_score"].to_numpy(float), theirs["theme_score"].to_numpy(float))
    assert placed.iloc[-1]["status"] == "ok"


def test_merging_topics_keeps_the_tree(fitted):
    import copy

    tm = copy.deepcopy(fitted)
    tree = fitted.topic_tree_
    a, b = (int(t) for t in fitted.topics_["topic"].iloc[:2])
    tm.merge_topics([a, b])
    after = tm.topic_tree_.set_index(["level", "topic"])
    before = tree.set_index(["level", "topic"])
    kept, gone = (a, b) if before.loc[(0, a), "size"] >= before.loc[(0, b), "size"] else (b, a)
    assert (0, gone) not in after.index  # the finest level is topics_: the merge is in the tree too
    assert after.loc[(0, kept), "size"] == before.loc[(0, a), "size"] + before.loc[(0, b), "size"]
    docs = tm.documents_[tm.documents_["status"] == "ok"]
    assert (docs["topic"] == docs["topic_0"]).all()
    tm.state_.tree.check(len(tm.embeddings_))  # still nested
