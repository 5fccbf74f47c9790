"""The topic-level tables of a comparison (``topic_tables``: what ``compare`` writes) on the session's fit of 240
real ICML abstracts: each node counted and tested once, the tables the same as ``topic_status`` and
``topic_trends`` give alone."""

from __future__ import annotations

import sys
from collections import Counter

import pandas as pd

from icml_topics.compare import read_trend_info, topic_status, topic_trends
from icml_topics.compare.topic_tables import topic_tables

TRENDS = sys.modules["icml_topics.compare.topic_trends"]  # the module (the package exports a function of its name)


def test_compare_counts_and_tests_every_node_once_for_its_status_and_trend_tables(fitted, monkeypatch):
    # issue 50: topic_status ran twice per compare, once alone and once inside topic_trends
    calls: Counter[str] = Counter()
    for name in ("node_counts", "_status_frame", "headline_evidence"):  # the real functions, counted
        real = getattr(TRENDS, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(TRENDS, name, counted)
    tables, trends = topic_tables(fitted.tables_, fitted.state_.texts, "year")
    assert calls == {"node_counts": 1, "_status_frame": 1, "headline_evidence": 1}
    monkeypatch.undo()
    docs, tree = fitted.tables_.documents, fitted.tables_.topic_tree
    alone = topic_status(docs, tree, by="year")
    assert {"latest_titles", "name_defects"} <= set(tables.status.columns)  # the headline evidence, once
    pd.testing.assert_frame_equal(tables.status, alone)
    pd.testing.assert_frame_equal(trends, topic_trends(docs, tree, by="year"))
    assert "latest_titles" not in trends.columns  # the trend table never carried the evidence
    assert read_trend_info(tables.status) == read_trend_info(alone)
    assert read_trend_info(trends).method == "wilson" and read_trend_info(trends).latest == 2024
