"""Acceptance shares, the theme x area table, and the ICLR file's status read as the decision."""

from __future__ import annotations

import gzip
import itertools
import json
import logging

import numpy as np
import pandas as pd
import pytest
from conftest import SHARED_DATA, require

from icml_topics import read_corpus
from icml_topics.compare.decisions import acceptance_shares, area_table, is_accepted, node_acceptance

ICLR = SHARED_DATA / "iclr-2024-2025-areas.jsonl.gz"


def test_accepted_means_oral_spotlight_or_poster():
    values = pd.Series(
        ["oral", "Spotlight", "poster", "rejected", "withdrawn", "not_accepted", "desk_rejected", None, ""]
    )
    assert is_accepted(values).tolist() == [True, True, True, False, False, False, False, pd.NA, pd.NA]


def test_acceptance_share_counts_and_wilson_interval():
    docs = pd.DataFrame(
        {
            "status": ["ok"] * 11 + ["dropped"],
            "theme": ["RL"] * 8 + ["GNN"] * 2 + [""] + ["RL"],
            "decision": ["oral", "poster", "rejected", "withdrawn", "poster", None, "rejected", "spotlight"]
            + ["rejected", "poster", "poster", "poster"],
        }
    )
    table = acceptance_shares(docs).set_index("theme")
    # RL: 7 decided (one without), 4 accepted; the dropped row and the paper without a theme are left out
    assert table.loc["RL", ["accepted", "n"]].tolist() == [4, 7]
    assert table.loc["GNN", ["accepted", "n"]].tolist() == [1, 2]
    assert table.loc["RL", "lower"] < 4 / 7 < table.loc["RL", "upper"]
    docs["topic_0"] = [0] * 6 + [1] * 6
    nodes = node_acceptance(docs)
    assert nodes[["topic", "accepted", "n"]].values.tolist() == [[0, 3, 5], [1, 3, 5]]
    with pytest.raises(ValueError, match="no decision column"):
        acceptance_shares(docs.drop(columns="decision"))


def test_theme_by_area_table_shares():
    docs = pd.DataFrame({"theme": ["RL", "RL", "GNN", "GNN", "RL"], "area": ["rl", "rl", "graphs", "rl", ""]})
    table = area_table(docs).set_index(["area", "theme"])
    assert table.loc[("rl", "RL"), "n"] == 2 and table.loc[("rl", "RL"), "share_of_area"] == pytest.approx(2 / 3)
    assert table.loc[("rl", "GNN"), "share_of_group"] == pytest.approx(0.5)
    assert table.groupby(level="area")["share_of_area"].sum().tolist() == pytest.approx([1.0, 1.0])


def test_the_iclr_status_column_is_read_as_the_decision(tmp_path, caplog):
    path = require(ICLR)
    with gzip.open(path, "rt", encoding="utf-8") as f:
        lines = list(itertools.islice(f, 300))
    sample = tmp_path / "iclr-sample.jsonl"
    sample.write_text("".join(lines), encoding="utf-8")
    with caplog.at_level(logging.INFO, logger="icml_topics"):
        corpus = read_corpus(sample)
    expected = [json.loads(line).get("status") for line in lines]
    assert corpus["decision"].astype(object).where(corpus["decision"].notna(), None).tolist() == expected
    assert "status" not in corpus.columns and "area" in corpus.columns
    assert "column 'status' read as 'decision'" in caplog.text
    shares = acceptance_shares(corpus.assign(theme=np.where(corpus["year"] == 2024, "a", "b")))
    assert shares["n"].sum() == sum(v is not None for v in expected)


def test_documents_csv_keeps_the_decision_and_area_columns_that_hold_values(tmp_path):
    """The acceptance tables come from the decision column, so documents.csv keeps it (and the area),
    row by row; a column that holds nothing (the seeds' empty status) is not written."""
    import pandas as pd
    from conftest import BUNDLED_SEEDS

    from icml_topics import TopicMap
    from icml_topics.outputs import write_outputs

    seeds = pd.read_json(BUNDLED_SEEDS, lines=True)
    decisions = np.array(["poster", "rejected", "oral", None], dtype=object)[np.arange(len(seeds)) % 4]
    tm = TopicMap(random_state=0).fit(seeds.assign(status=decisions, area="reinforcement learning"))
    write_outputs(tm, tmp_path / "out", report=False, static_map=False)
    written = pd.read_csv(tmp_path / "out" / "documents.csv", keep_default_na=False)
    assert written["decision"].tolist() == [d or "" for d in decisions]
    assert (written["area"] == "reinforcement learning").all()
    write_outputs(TopicMap(random_state=0).fit(seeds), tmp_path / "plain", report=False, static_map=False)
    plain = pd.read_csv(tmp_path / "plain" / "documents.csv")
    assert "decision" not in plain.columns and "area" not in plain.columns
