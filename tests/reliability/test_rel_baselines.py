"""Every comparison names its baseline (issue 40, item 4): the trend CSVs, the CLI lines and the report.

Real ICML abstracts: the session's sample (120 of 2019, 120 of 2024) plus 60 of 2018, so that the pooled
baseline of 2024 (2013, 2018 and 2019 together) differs from the previous year (2019), and 3 of 2013, a
year too small to be compared on its own (the report says so)."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from _reliability_helpers import run_cli, session_cache

from icml_topics.compare import topic_status
from icml_topics.errors import InvalidValueError
from icml_topics.workflows import compare

POOLED = "2013, 2018, 2019 pooled"  # every year before 2024 in the corpus below
STATISTICS = {"diff", "change", "growth", "p_value", "novelty"}  # a column of any of these: a change, a baseline


@pytest.fixture(scope="module")
def corpus(real_sample, icml_frame) -> pd.DataFrame:
    extra = [icml_frame[icml_frame["year"] == y].sample(n=n, random_state=7) for y, n in ((2018, 60), (2013, 3))]
    return pd.concat([real_sample, *extra], ignore_index=True)


@pytest.fixture(scope="module")
def compared(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("baselines") / "out"
    return compare(corpus, by="year", out=out, align=False, random_state=0), out


def _years(label: str) -> set[int]:
    return {int(y) for y in re.findall(r"\b(\d{4})\b", label)}


def test_every_trend_csv_names_its_baseline(compared, corpus):
    result, out = compared
    years = set(corpus["year"])
    with_statistics = {}
    for path in sorted(out.glob("*.csv")):
        table = pd.read_csv(path, dtype={"baseline": str, "compared": str})  # "2019" stays text
        if STATISTICS & set(table.columns):
            with_statistics[path.name] = table
    assert {"movers.csv", "topic_status.csv", "topic_trends.csv", "novelty.csv"} <= set(with_statistics)
    for name, table in with_statistics.items():
        assert "baseline" in table.columns, f"{name} has no baseline column"
        rows = table[table["novelty"].notna()] if name == "novelty.csv" else table
        assert len(rows) and rows["baseline"].notna().all() and (rows["baseline"].str.strip() != "").all(), name
        for label in rows["baseline"].unique():
            assert _years(label) and _years(label) <= years, (name, label)  # real periods of the data
            assert label.endswith(" pooled") == (len(_years(label)) > 1), (name, label)
    assert set(with_statistics["movers.csv"]["baseline"]) == {"2019"}  # --a 2019 (the default)
    assert set(with_statistics["movers.csv"]["compared"]) == {"2024"}
    for name in ("topic_status.csv", "topic_trends.csv"):
        assert set(with_statistics[name]["baseline"]) == {POOLED}, name
        assert set(with_statistics[name]["compared"]) == {"2024"}, name
    novelty = with_statistics["novelty.csv"].dropna(subset=["novelty"])
    assert set(novelty.loc[novelty["year"] == 2024, "baseline"]) == {POOLED}
    assert set(novelty.loc[novelty["year"] == 2019, "baseline"]) == {"2013, 2018 pooled"}


def test_the_previous_baseline_is_selectable_and_counts_one_year(compared):
    result, _ = compared
    docs = result.model.documents_
    ok = docs[docs["status"] == "ok"]
    pooled = result.model.topic_status(by="year", latest=2024)
    previous = result.model.topic_status(by="year", latest=2024, baseline="previous")
    assert set(pooled["baseline"]) == {POOLED} and set(previous["baseline"]) == {"2019"}
    assert (pooled["total_before"] == int(ok["year"].isin([2013, 2018, 2019]).sum())).all()
    assert (previous["total_before"] == int((ok["year"] == 2019).sum())).all()
    new = result.model.whats_new(2024, baseline="previous")
    assert set(new["baseline"]) <= {"2019"}


def test_a_wrong_baseline_is_refused_with_the_choices():
    docs = pd.DataFrame({"year": [2023] * 40 + [2024] * 40, "topic_0": [0] * 40 + [1] * 40})
    with pytest.raises(InvalidValueError, match=r"baseline='last'.*'pooled'.*'previous'"):
        topic_status(docs, baseline="last")
    venues = docs.assign(venue=["ICML"] * 40 + ["NeurIPS"] * 40)
    with pytest.raises(InvalidValueError, match="ordered in time"):
        topic_status(venues, by="venue", baseline="previous")
    small = pd.DataFrame({"year": [2023] * 10 + [2024] * 40, "topic_0": [0] * 10 + [1] * 40})
    with pytest.raises(InvalidValueError, match="no year before 2024 has 30"):
        topic_status(small, baseline="previous")


def test_topic_wording_names_each_node_and_its_theme(compared):
    result, out = compared
    wording = pd.read_csv(out / "topic_wording.csv")
    assert {"label", "theme"} <= set(wording.columns)
    tree = result.model.topic_tree_.set_index(["level", "topic"])
    for row in wording.head(20).itertuples(index=False):
        assert row.label == tree.loc[(row.level, row.topic), "label"]


def test_the_report_names_the_baselines_and_the_skipped_year(compared):
    _, out = compared
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "baseline: 2019" in page  # the movers
    assert f"baseline: {POOLED}" in page  # what is new in 2024
    assert "Not compared on their own: year 2013 (3 papers)" in page


def test_the_cli_names_the_baseline_of_both_lines(corpus, tmp_path):
    source = tmp_path / "corpus.jsonl"
    corpus.to_json(source, orient="records", lines=True)
    run = run_cli(
        "compare", str(source), "--by", "year", "--out", str(tmp_path / "out"), "--no-align", "--random-state", "0",
        cache=session_cache(), process=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stdout.splitlines()
    assert "Biggest movers from 2019 to 2024 (baseline: 2019):" in lines
    news = [line for line in lines if "new or emerging in 2024" in line or "New and emerging topics in 2024" in line]
    assert len(news) == 1 and f"(baseline: {POOLED};" in news[0]
