"""The compare report's names are checked where it shows them (issue 49): the nodes held back for their names,
one line each, and each novel paper's topic marked when its name fails the checks of names."""

from __future__ import annotations

import pandas as pd

from icml_topics.compare.topic_tables import TopicTables
from icml_topics.compare.topic_trends import topic_status
from icml_topics.report.builder import Report
from icml_topics.report.topic_sections import add_topic_sections

SPLAT = [f"Gaussian splatting for {w} scenes" for w in ("dynamic", "large", "urban", "indoor", "sparse-view")] * 6
OTHER = [f"Regret bounds for {w} bandits" for w in ("linear", "contextual", "dueling", "combinatorial")] * 10
MIXED = [f"{w} with graph neural networks" for w in ("Molecules", "Traffic", "Proteins")] * 10


def _tables() -> tuple[TopicTables, pd.DataFrame]:
    rows = [(2023, 0, t) for t in OTHER] + [(2024, 0, t) for t in OTHER[:10]]
    rows += [(2024, 1, t) for t in SPLAT] + [(2024, 2, t) for t in MIXED]
    docs = pd.DataFrame(rows, columns=["year", "topic_0", "title"])
    docs = docs.assign(status="ok", topic=docs["topic_0"], topic_similarity=1.0 - 0.001 * docs.index)
    labels = {0: "bandits", 1: "gaussian splatting", 2: "loss"}  # "loss": no paper of node 2 says it
    docs["topic_label"] = docs["topic"].map(labels)
    tree = pd.DataFrame(
        {"level": [0, 0, 0], "topic": [0, 1, 2], "parent": [-1, -1, -1], "label": list(labels.values()),
         "theme": ["Theory"] * 3, "stability": [0.9, 0.8, 0.95], "size": [50, 30, 30]}
    )  # fmt: skip
    late = docs[docs["year"] == 2024]
    novelty = pd.DataFrame(
        {"year": late["year"], "title": late["title"], "novelty": 0.5 + 0.001 * late.index,
         "novelty_percentile": 50.0, "nearest_earlier_title": OTHER[0]},
        index=late.index,
    )  # fmt: skip
    return TopicTables(status=topic_status(docs, tree, by="year"), tree=tree, novelty=novelty), docs


def test_the_report_marks_a_novel_paper_s_topic_whose_name_fails_and_lists_held_back_nodes_one_a_line():
    tables, docs = _tables()
    report = Report("names")
    add_topic_sections(report, tables, by="year", labels=docs["topic_label"], documents=docs)
    page = report.to_html()
    assert "loss (name fails: " in page  # the novel papers of node 2
    assert "gaussian splatting (name fails" not in page and "gaussian splatting" in page
    assert "<li>&#x27;loss&#x27; (level 0, node 2): " in page or "<li>'loss' (level 0, node 2): " in page, page[:0]
