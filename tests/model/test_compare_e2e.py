"""Cross-year comparison end to end on real ICML abstracts: report, tables, alignment, real browser."""

from __future__ import annotations

import pandas as pd
import pytest

from icml_topics.workflows import compare


@pytest.fixture(scope="module")
def comparison(fitted, real_sample, seeds_path, tmp_path_factory):
    seeds = pd.read_json(seeds_path, lines=True)
    corpus = pd.concat([real_sample, seeds], ignore_index=True)
    out = tmp_path_factory.mktemp("compare")
    return compare(corpus, by="year", out=out, a=2019, b=2024, align=True, min_align_docs=100, random_state=0), out


def test_tables_behind_the_report(comparison):
    result, out = comparison
    for name in (
        "report.html",
        "theme_shares.csv",
        "theme_table.csv",
        "movers.csv",
        "alignment.csv",
        "documents.csv",
    ):
        assert (out / name).is_file(), name
    shares = pd.read_csv(out / "theme_shares.csv")
    assert set(shares["year"]) == {2019, 2024, 2026}
    totals = shares.groupby("year")["total"].first().to_dict()
    assert totals == {2019: 120, 2024: 120, 2026: 38}
    assert ((shares["lower"] <= shares["share"]) & (shares["share"] <= shares["upper"])).all()
    # the 38-paper year is honest: its intervals are wider than those of the 120-paper years
    width = (shares["upper"] - shares["lower"]).groupby(shares["year"]).mean()
    assert width[2026] > 1.3 * max(width[2019], width[2024])
    movers = pd.read_csv(out / "movers.csv")
    assert set(movers["direction"]) <= {"rising", "declining", "stable"}
    assert ((movers["diff_lower"] <= movers["diff"]) & (movers["diff"] <= movers["diff_upper"])).all()


def test_topic_level_tables_are_written_once_each(comparison):
    result, out = comparison
    assert not (out / "tables").exists()  # the report writes no second copy of any table
    tree = pd.read_csv(out / "topic_tree.csv")
    assert {"level", "topic", "parent", "label", "size", "theme"} <= set(tree.columns)
    trends = pd.read_csv(out / "topic_trends.csv")
    assert {"level", "topic", "label", "period", "n", "total", "share", "lower", "upper", "status"} <= set(trends)
    assert set(trends["period"]) == {2019, 2024, 2026}
    # one row per node and period; shares agree with the counts; the status is the node's in 2026
    assert len(trends) == 3 * len(tree)
    assert (trends["share"] - trends["n"] / trends["total"]).abs().max() < 1e-12
    assert set(trends["status"]) <= {"new", "emerging", "stable", "declining", "vanished"}
    assert trends.groupby(["level", "topic"])["status"].nunique().eq(1).all()
    status = pd.read_csv(out / "topic_status.csv")
    assert len(status) == len(tree) and (status["total_latest"] == 38).all()
    # 38 seed papers: no headline from noise in the small year
    assert (status["q_value"] > 0.05).sum() >= 0.75 * len(status)  # 38 papers in 2026: few headlines
    novelty = pd.read_csv(out / "novelty.csv")
    assert novelty.loc[novelty["year"] == 2019, "novelty"].isna().all()
    assert novelty.loc[novelty["year"] == 2026, "novelty_percentile"].between(0, 100).all()
    wording = pd.read_csv(out / "topic_wording.csv")
    assert set(wording["period"]) <= {2019, 2024, 2026} and len(wording) > 0
    docs = pd.read_csv(out / "documents.csv")
    assert "topic" in docs.columns
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "What is new in 2026" in page and "Topic tree" in page


def test_alignment_of_separately_fitted_years(comparison):
    result, _ = comparison
    alignment = result.alignment
    assert alignment is not None
    summary = alignment.summary
    assert set(summary["status"]) <= {"matched", "split", "merged", "finer", "coarser", "vanished", "new"}
    # every topic of each year appears once in the summary
    assert summary.groupby("side")["topic"].apply(lambda s: s.is_unique).all()
    pairs = alignment.pairs
    assert len(pairs) > 0 and (pairs["similarity"] >= 0.7).all()
    # related fields across five years still share topics: RL-like topics match
    assert (summary["status"] != "new").any() and (summary["status"] != "vanished").any()


def test_report_renders_in_a_real_browser(comparison, tmp_path):
    from browser import CHROMIUM_MISSING, chromium_available, render_in_browser

    if not chromium_available():
        pytest.skip(CHROMIUM_MISSING)
    _, out = comparison
    result = render_in_browser(out / "report.html", tmp_path / "compare.png")
    assert result.plot_count >= 6
    assert result.rendered_plot_count == result.plot_count
    assert result.errors == []
    assert (tmp_path / "compare.png").stat().st_size > 10_000
