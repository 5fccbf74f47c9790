"""A decision column of one outcome gives no acceptance tables (issue 40 item 4): ICML's file holds accepted
papers only (``Poster`` / ``Oral``), so ``compare`` writes no ``acceptance_*.csv`` and no "Review decisions"
section, and says why in one line; ICLR's submissions (rejected ones too) still get them."""

from __future__ import annotations

import gzip
import itertools
import json

import pandas as pd
import pytest
from _reliability_helpers import run_cli, session_cache
from conftest import SHARED_DATA, require

ICLR = SHARED_DATA / "iclr-2024-2025-areas.jsonl.gz"


def test_compare_of_accepted_papers_only_writes_no_acceptance_tables(real_sample, tmp_path):
    # 40 real ICML papers of 2019 and 40 of 2024 from the session's sample (their vectors are in its cache)
    sample = real_sample.groupby("year").head(40).reset_index(drop=True)
    assert sample["year"].value_counts().to_dict() == {2019: 40, 2024: 40}
    assert set(sample["status"]) == {"Poster", "Oral"}  # the real file: accepted papers only
    path = tmp_path / "icml-sample.jsonl"
    sample.to_json(path, orient="records", lines=True)
    out = tmp_path / "cmp"
    done = run_cli(
        "compare", str(path), "--by", "year", "--no-align", "--out", str(out), cache=session_cache(), process=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (out / "report.html").exists()
    assert not list(out.glob("acceptance*")), sorted(p.name for p in out.iterdir())
    said = done.stdout + done.stderr
    assert "Acceptance shares are not computed: all 80 papers with a known decision" in said
    assert "are accepted" in said and "No acceptance_*.csv is written" in said
    assert "Review decisions" not in (out / "report.html").read_text(encoding="utf-8")
    from icml_topics import TopicMap

    with pytest.raises(ValueError, match="one outcome only"):
        TopicMap.load(out / "model").acceptance("theme")


def test_compare_of_submissions_with_rejections_writes_acceptance_tables(tmp_path):
    with gzip.open(require(ICLR), "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in itertools.islice(f, 0, None, 200)]  # every 200th: both years
    frame = pd.DataFrame(rows)
    assert {"rejected", "poster"} <= set(frame["status"].dropna()) and frame["year"].nunique() == 2
    from icml_topics.workflows import compare

    result = compare(frame, by="year", out=tmp_path / "cmp", align=False, random_state=0)
    names = sorted(p.name for p in (tmp_path / "cmp").iterdir())
    assert "acceptance_by_theme.csv" in names and "acceptance_by_topic.csv" in names
    table = pd.read_csv(tmp_path / "cmp" / "acceptance_by_theme.csv")
    assert 0 < table["accepted"].sum() < table["n"].sum()
    assert result.topics.acceptance is not None
    assert "Review decisions" in (tmp_path / "cmp" / "report.html").read_text(encoding="utf-8")
