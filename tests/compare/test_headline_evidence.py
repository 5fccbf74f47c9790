"""Headlines you can check at a glance (issue 49, item 4): titles of the latest period, both shares with
intervals, stability, and a node whose name its own papers do not carry held back until renamed."""

from __future__ import annotations

import pandas as pd

from icml_topics.cli.compare import new_topics_text
from icml_topics.compare.headlines import STATUS_MEANINGS
from icml_topics.compare.topic_trends import topic_status

SPLAT = [f"Gaussian splatting for {w} scenes" for w in ("dynamic", "large", "urban", "indoor", "sparse-view")] * 6
OTHER = [f"Regret bounds for {w} bandits" for w in ("linear", "contextual", "dueling", "combinatorial")] * 10
MIXED = [f"{w} with graph neural networks" for w in ("Molecules", "Traffic", "Proteins")] * 10


def _docs() -> pd.DataFrame:
    rows = [(2023, 0, t) for t in OTHER] + [(2024, 0, t) for t in OTHER[:10]]
    rows += [(2024, 1, t) for t in SPLAT] + [(2024, 2, t) for t in MIXED]
    frame = pd.DataFrame(rows, columns=["year", "topic_0", "title"])
    return frame.assign(status="ok", topic_similarity=1.0 - 0.001 * frame.index)


def _tree() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "level": [0, 0, 0],
            "topic": [0, 1, 2],
            "parent": [-1, -1, -1],
            "label": ["bandits", "gaussian splatting", "loss"],  # "loss": no paper of node 2 says it
            "theme": ["Theory", "Theory", "Theory"],
            "stability": [0.9, 0.8, 0.95],
        }
    )


def test_a_headline_shows_titles_shares_and_stability_and_a_bad_name_is_held_back():
    status = topic_status(_docs(), _tree(), by="year")
    new = status.set_index("topic")
    assert new.loc[1, "status"] == "new" and new.loc[2, "status"] == "new"
    assert new.loc[1, "name_defects"] == ""
    assert "mixed node" in new.loc[2, "name_defects"] or "unsupported" in new.loc[2, "name_defects"]
    assert new.loc[1, "latest_titles"] == SPLAT[:3]  # nearest their node's centroid first
    assert new.loc[0, "before_lower"] <= new.loc[0, "share_before"] <= new.loc[0, "before_upper"]
    text = new_topics_text(status)
    assert "gaussian splatting (level 0)" in text and "stability 0.80" in text
    assert "e.g. Gaussian splatting for dynamic scenes" in text
    assert "1 node held back until renamed: names fail the checks of names (loss:" in text
    assert "loss (level 0)" not in text
    for status_name in ("new", "emerging", "stable"):
        assert f"  {status_name}: {STATUS_MEANINGS[status_name]}" in text
