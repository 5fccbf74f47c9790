"""The tree's depth follows the corpus (issue 51): no level repeats the one above it (the 38-paper demo gets
one level, not 20 topics each with one identical child), the level count and the finest node size follow n
(real embeddings), and a tree of one or of three levels flows through ``documents_``, ``topic_tree_``,
``topic_status``, the report and the saved model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from icml_topics import TopicMap
from icml_topics.stages.hierarchy import HierarchySettings, fit_levels
from icml_topics.stages.hierarchy_shape import MAX_REPEATED, repeated_share


def _level_columns(tm: TopicMap) -> list[str]:
    return sorted(c for c in tm.documents_.columns if c.startswith("topic_") and c[6:].isdigit())


def test_the_demo_has_no_level_that_repeats_the_one_above(demo_fitted):
    docs = demo_fitted.documents_[demo_fitted.documents_["status"] == "ok"]
    columns = _level_columns(demo_fitted)  # finest first: topic_0, topic_1, ...
    assert columns and demo_fitted.topic_tree_["level"].nunique() == len(columns)
    for fine, coarse in zip(columns, columns[1:], strict=False):
        share = repeated_share(docs[coarse].to_numpy(), docs[fine].to_numpy())
        assert share <= MAX_REPEATED, (fine, coarse, share)
    assert docs["topic"].nunique() >= 3  # the demo still has topics under its themes


def _shape(emb: np.ndarray, themes: np.ndarray) -> tuple[int, float]:
    """Levels and the finest level's median papers a node of the default settings at this corpus size."""
    from icml_topics.fit_config import FitConfig

    settings = FitConfig.from_params({}).hierarchy_settings(len(emb))
    labels = fit_levels(emb, themes, settings)[0]
    finest = labels[:, -1]
    return labels.shape[1], float(np.median(np.unique(finest[finest >= 0], return_counts=True)[1]))


def test_levels_and_the_finest_size_follow_the_corpus_size(fitted):
    """300 and 5,000 papers from the 240 fitted papers' real embeddings (each tiled with small jitter, as the
    scaling benchmark does), under their real themes: more papers, more levels, finest nodes a readable size."""
    ok = fitted.documents_["status"] == "ok"
    base, themes = fitted.embeddings_, fitted.documents_.loc[ok, "theme"].to_numpy(dtype=object)
    rng = np.random.default_rng(0)
    shapes = {}
    for n in (300, 5000):
        src = np.arange(n) % len(base)
        emb = base[src] + 0.01 * rng.standard_normal((n, base.shape[1])).astype(np.float32)
        emb[: len(base)] = base
        shapes[n] = _shape(emb / np.linalg.norm(emb, axis=1, keepdims=True), themes[src])
    (small_levels, small_median), (large_levels, large_median) = shapes[300], shapes[5000]
    assert small_levels == 1 and large_levels == 2, shapes
    assert 3 <= small_median <= 60 and 10 <= large_median <= 60, shapes


def test_a_large_theme_builds_finer_levels_inside_each_placed_node():
    """A theme of more distinct papers than max_theme_size: the finest level is built inside each node
    placed from the sample, so it gets its full count (not one capped at the sample)."""
    rng = np.random.default_rng(1)
    centres = rng.standard_normal((40, 16))
    emb = centres[rng.integers(0, 40, 3000)] + 0.4 * rng.standard_normal((3000, 16))
    settings = HierarchySettings(("topic", "subtopic"), (300, 10), runs=2, max_theme_size=500)
    labels = fit_levels(emb, ["A"] * 3000, settings)[0]
    topics, subtopics = len(np.unique(labels[:, 0])), len(np.unique(labels[:, 1]))
    assert 5 <= topics <= 20 and subtopics >= 200, (topics, subtopics)  # 500 rows / 20 a node capped it at 25
    frame = pd.DataFrame({"t": labels[:, 0], "s": labels[:, 1]})
    assert (frame.groupby("s")["t"].nunique() == 1).all()  # nested


def test_no_consensus_of_the_default_tree_holds_more_than_two_thousand_papers(monkeypatch):
    """Each consensus takes time and memory in the square of its rows: by default a theme of 3,000 distinct
    papers is clustered from a 2,000-row sample into its coarser levels and its finest level inside each placed
    node (every consensus at most 2,000 rows), so the tree's cost grows linearly with the corpus (issue 51);
    its finest nodes stay on target and nest."""
    from icml_topics.fit_config import FitConfig
    from icml_topics.stages import hierarchy_theme

    rows_clustered: list[int] = []
    real_tree = hierarchy_theme.theme_tree

    def recording_tree(x, counts, settings):  # the real consensus, its size recorded
        rows_clustered.append(len(x))
        return real_tree(x, counts, settings)

    monkeypatch.setattr(hierarchy_theme, "theme_tree", recording_tree)
    rng = np.random.default_rng(5)
    centres = rng.standard_normal((60, 32))
    emb = centres[rng.integers(0, 60, 3000)] + 0.6 * rng.standard_normal((3000, 32))
    labels = fit_levels(emb, ["A"] * 3000, FitConfig.from_params({}).hierarchy_settings(3000))[0]
    assert rows_clustered[0] == 2000 and max(rows_clustered) <= 2000, rows_clustered
    assert len(rows_clustered) > 10  # the finest level: one consensus inside each placed node
    assert 10 <= np.median(np.unique(labels[:, -1], return_counts=True)[1]) <= 60
    frame = pd.DataFrame(labels)
    for lv in range(1, labels.shape[1]):
        assert (frame.groupby(lv)[lv - 1].nunique() == 1).all()  # nested


@pytest.mark.parametrize("sizes", [(12,), (60, 25, 8)])
def test_a_tree_of_one_or_three_levels_flows_through_every_output(fitted, real_sample, tmp_path, sizes):
    tm = TopicMap(random_state=0, topic_sizes=sizes).fit(real_sample, embeddings=fitted.embeddings_)
    docs = tm.documents_[tm.documents_["status"] == "ok"]
    columns = _level_columns(tm)
    assert len(columns) == len(sizes) and sorted(tm.topic_tree_["level"].unique()) == list(range(len(sizes)))
    assert (docs["topic"] == docs["topic_0"]).all() and (docs[columns] >= 0).all().all()
    for fine, coarse in zip(columns, columns[1:], strict=False):  # nested
        assert (docs.groupby(fine)[coarse].nunique() == 1).all()
    status = tm.topic_status(by="year")
    assert set(status["level"]) <= set(range(len(sizes))) and len(status) > 0
    page = tm.report(tmp_path / "report.html").read_text(encoding="utf-8")
    for label in tm.topic_tree_.loc[tm.topic_tree_["level"] == len(sizes) - 1, "label"].head(3):
        assert label.split()[0] in page
    back = TopicMap.load(tm.save(tmp_path / "model"))
    pd.testing.assert_frame_equal(back.topic_tree_, tm.topic_tree_)
    pd.testing.assert_frame_equal(back.documents_[columns], tm.documents_[columns])


def _median_branching(parent: np.ndarray, child: np.ndarray) -> float:
    """Median number of distinct ``child`` nodes under each ``parent`` value."""
    return float(pd.DataFrame({"p": parent, "c": child}).groupby("p")["c"].nunique().median())


def test_every_level_branches_at_least_three_ways_when_most_themes_are_small():
    """Most themes smaller than the median paper's theme (which sets the depth: here two levels), as in the
    real corpora (10k papers: median theme 267 papers, median paper's theme ~450): each small theme still gets
    three or more topics, each topic three or more subtopics, the finest median node a readable size
    (before the fix the 10k corpus had a median of 2 topics a theme)."""
    rng = np.random.default_rng(5)
    sizes = [100, 110, 120, 130, 140, 150, 160, 170, 600, 700, 800]
    emb, themes = [], []
    for t, n in enumerate(sizes):
        centre = 3.0 * rng.standard_normal(32)
        parts = centre + 1.2 * rng.standard_normal((12, 32))  # 12 subjects a theme, of uneven sizes
        emb.append(parts[rng.integers(0, 12, n)] + 0.5 * rng.standard_normal((n, 32)))
        themes += [f"theme {t}"] * n
    emb = np.vstack(emb)
    themes = np.array(themes, dtype=object)
    from icml_topics.fit_config import FitConfig

    labels = fit_levels(emb, themes, FitConfig.from_params({}).hierarchy_settings(len(emb)))[0]
    assert labels.shape[1] == 2 and (labels >= 0).all()
    top, finest = labels[:, 0], labels[:, -1]
    branching = [_median_branching(themes, top), _median_branching(top, finest)]
    assert all(3 <= b <= 20 for b in branching), branching
    assert 10 <= float(np.median(np.unique(finest, return_counts=True)[1])) <= 60
    assert repeated_share(top, finest) <= MAX_REPEATED


def test_a_small_corpus_cuts_no_node_too_small_to_judge_out_of_its_theme(fitted):
    """Below 2,000 papers the default tree cuts no node of fewer than ``MIN_NODE_SIZE`` (10) papers out of its
    theme: a smaller node's name cannot be judged by its papers (``compare.name_checks``). On the 240 real
    papers, the code before cut themes into nodes of 1-4 papers (median 4, 46 nodes); now a node under 10
    papers is its theme's only node (the theme is that small)."""
    from icml_topics.fit_config import FitConfig
    from icml_topics.stages.defaults import MIN_NODE_SIZE

    ok = fitted.documents_["status"] == "ok"
    emb, themes = fitted.embeddings_, fitted.documents_.loc[ok, "theme"].to_numpy(dtype=object)
    settings = FitConfig.from_params({}).hierarchy_settings(len(emb))
    labels = fit_levels(emb, themes, settings)[0]
    frame = pd.DataFrame({"theme": themes, "node": labels[:, -1]})
    sizes = frame.groupby("node").agg(theme=("theme", "first"), size=("theme", "size"))
    nodes_a_theme = sizes.groupby("theme")["size"].transform("size")
    small = sizes[sizes["size"] < MIN_NODE_SIZE]
    assert len(small) and (nodes_a_theme[small.index] == 1).all(), small.assign(nodes=nodes_a_theme)
    assert (sizes.loc[nodes_a_theme > 1, "size"] >= MIN_NODE_SIZE).all()
