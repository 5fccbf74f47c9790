"""The topic tree treemap and its section in the fit report, from the session's fitted model."""

from __future__ import annotations

import html

import pytest

from icml_topics.plotting.topic_tree import plot_topic_tree
from icml_topics.report import build_fit_report


def test_treemap_nests_every_node_in_its_parent_under_its_theme(fitted):
    tree = fitted.topic_tree_
    trace = plot_topic_tree(tree).data[0]
    top = tree["level"].max()
    themes = set(tree.loc[tree["level"] == top, "theme"])
    assert trace.type == "treemap" and len(trace.ids) == len(tree) + len(themes)
    ids = set(trace.ids)
    for node, parent in zip(trace.ids, trace.parents):
        if node.startswith("theme:"):  # the root: one box per theme
            assert parent == "" and node[6:] in themes
            continue
        level = int(node.split(":")[0])
        row = tree[(tree["level"] == level) & (tree["topic"] == int(node.split(":")[1]))].iloc[0]
        assert parent == (f"theme:{row['theme']}" if level == top else f"{level + 1}:{row['parent']}") and parent in ids
    sizes = dict(zip(trace.ids, trace.values))
    for node, parent in zip(trace.ids, trace.parents):  # branchvalues="total": a parent holds its children
        assert parent == "" or sizes[parent] >= sizes[node]


def test_treemap_names_the_columns_it_needs(fitted):
    with pytest.raises(ValueError, match=r"missing: \['parent'\]"):
        plot_topic_tree(fitted.topic_tree_.drop(columns="parent"))


def test_fit_report_shows_the_tree(fitted):
    page = build_fit_report(fitted.documents_, fitted.topics_, fitted.themes_, tree=fitted.topic_tree_).to_html()
    assert ">Topic tree</h2>" in page
    top_label = fitted.topics_at(int(fitted.topic_tree_["level"].max()))["label"].iloc[0]
    assert html.escape(top_label, quote=False) in page
    without = build_fit_report(fitted.documents_, fitted.topics_, fitted.themes_).to_html()
    assert ">Topic tree</h2>" not in without
