"""What ``icml-topics compare`` prints about the topic tree: the top new and emerging topics, with intervals."""

from __future__ import annotations

import pandas as pd

from icml_topics.cli.compare import new_topics_text
from icml_topics.compare.topic_trends import topic_status


def _status(rows: list[tuple[int, int, int]]) -> pd.DataFrame:
    docs = pd.DataFrame([(y, t) for y, t, n in rows for _ in range(n)], columns=["year", "topic_0"])
    tree = pd.DataFrame({"level": [0, 0, 0], "topic": [0, 1, 2], "label": ["kernels", "diffusion", "LLM agents"]})
    return topic_status(docs, tree)


def test_the_cli_lists_new_and_emerging_topics_with_their_interval():
    text = new_topics_text(_status([(2023, 0, 60), (2023, 1, 3), (2024, 0, 30), (2024, 1, 30), (2024, 2, 30)]))
    lines = text.splitlines()
    assert lines[0] == "New and emerging topics in 2024 (baseline: 2023; false-discovery rate 5%):"
    assert lines[1].split()[0] == "new" and "LLM agents (level 0): 0.0% [0.0%, 5.7%] in 2023 -> 33.3% [" in lines[1]
    assert lines[2].split()[0] == "emerging" and "diffusion" in lines[2] and "4.8% [" in lines[2]
    assert "stability n/a" in lines[1]  # a table without stability: said, not hidden
    headlines = [line for line in lines if line.split()[0] in ("new", "emerging")]
    assert len(headlines) == 2  # kernels declined: not listed
    assert lines[-4].startswith("  new: a significant rise")  # what the statuses mean


def test_nothing_new_is_said_plainly():
    text = new_topics_text(_status([(2023, 0, 30), (2023, 1, 30), (2024, 0, 31), (2024, 1, 29)]))
    assert text.startswith("No topic is new or emerging in 2024")


def test_the_fdr_said_is_the_one_the_status_table_records():
    docs = pd.DataFrame([(y, t) for y, t, n in [(2023, 0, 60), (2024, 0, 30), (2024, 1, 30)] for _ in range(n)])
    status = topic_status(docs.set_axis(["year", "topic_0"], axis=1), fdr=0.1)
    assert "false-discovery rate 10%" in new_topics_text(status)
