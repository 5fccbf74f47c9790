"""Theme shares with intervals and rising / declining themes (icml_topics.compare.trends)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from icml_topics.compare import (
    compare_venues,
    newcombe_interval,
    period_label,
    read_trend_info,
    theme_movers,
    theme_shares,
    wilson_interval,
    year_theme_table,
)

Z95 = 1.959963984540054  # standard-normal 97.5% quantile


def make_docs(counts: dict[tuple[object, str], int], by: str = "year") -> pd.DataFrame:
    """A documents_-like table with ``counts[(by value, theme)]`` modelled rows each."""
    rows = [{by: key, "theme": theme, "status": "ok"} for (key, theme), n in counts.items() for _ in range(n)]
    docs = pd.DataFrame(rows)
    if by == "year":
        docs["year"] = docs["year"].astype("Int64")
    return docs


def wilson_by_quadratic(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson bounds as the roots of (p_hat - p)^2 = z^2 p (1 - p) / n, solved for p."""
    p_hat = k / n
    a = 1 + z * z / n
    b = -(2 * p_hat + z * z / n)
    c = p_hat * p_hat
    disc = math.sqrt(b * b - 4 * a * c)
    return (-b - disc) / (2 * a), (-b + disc) / (2 * a)


def cell(shares: pd.DataFrame, key: object, theme: str, by: str = "year") -> pd.Series:
    rows = shares[(shares[by] == key) & (shares["theme"] == theme)]
    assert len(rows) == 1
    return rows.iloc[0]


# --- theme_shares -----------------------------------------------------------------------------


def test_wilson_interval_for_3_of_38_matches_the_quadratic_solution() -> None:
    docs = make_docs({(2019, "RL"): 3, (2019, "Vision"): 35})
    row = cell(theme_shares(docs), 2019, "RL")
    lo, hi = wilson_by_quadratic(3, 38)
    assert row["n"] == 3 and row["total"] == 38
    assert row["share"] == pytest.approx(3 / 38)
    assert row["lower"] == pytest.approx(lo, abs=1e-12)
    assert row["upper"] == pytest.approx(hi, abs=1e-12)
    assert (round(lo, 3), round(hi, 3)) == (0.027, 0.208)


@pytest.mark.parametrize(
    ("k", "n", "lower", "upper"),
    # Newcombe (1998a), Statistics in Medicine 17:857, Table I, method 3 (Wilson score).
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)],
)
def test_wilson_interval_matches_published_values(k: int, n: int, lower: float, upper: float) -> None:
    lo, hi = wilson_interval(k, n)
    assert (round(float(lo), 4), round(float(hi), 4)) == (lower, upper)


def test_zero_count_cells_are_listed_with_lower_zero_and_positive_upper() -> None:
    docs = make_docs({(2019, "RL"): 50, (2024, "RL"): 30, (2024, "LLMs"): 20})
    shares = theme_shares(docs)
    assert len(shares) == 4  # 2 years x 2 themes, the empty (2019, LLMs) cell included
    row = cell(shares, 2019, "LLMs")
    assert (row["n"], row["total"], row["share"], row["lower"]) == (0, 50, 0.0, 0.0)
    # For k = 0 the upper Wilson bound reduces to z^2 / (n + z^2).
    assert row["upper"] == pytest.approx(Z95**2 / (50 + Z95**2))


def test_rows_sorted_by_year_then_theme_with_the_contract_columns() -> None:
    docs = make_docs({(2024, "b"): 1, (2019, "c"): 2, (2024, "a"): 3})
    shares = theme_shares(docs)
    assert list(shares.columns) == ["year", "theme", "n", "total", "share", "lower", "upper"]
    assert list(zip(shares["year"], shares["theme"])) == [
        (2019, "a"),
        (2019, "b"),
        (2019, "c"),
        (2024, "a"),
        (2024, "b"),
        (2024, "c"),
    ]
    assert shares.groupby("year")["share"].sum().tolist() == pytest.approx([1.0, 1.0])


def test_true_shares_lie_within_the_intervals_for_a_large_synthetic_corpus() -> None:
    truth = {2019: [0.4, 0.3, 0.2, 0.1], 2022: [0.25, 0.25, 0.25, 0.25], 2024: [0.1, 0.2, 0.3, 0.4]}
    themes = ["A", "B", "C", "D"]
    rng = np.random.default_rng(7)
    counts = {}
    for year, p in truth.items():
        for theme, k in zip(themes, rng.multinomial(2000, p), strict=True):
            counts[(year, theme)] = int(k)
    for method in ("wilson", "bootstrap"):
        shares = theme_shares(make_docs(counts), method=method)
        for year, p in truth.items():
            for theme, true_share in zip(themes, p, strict=True):
                row = cell(shares, year, theme)
                assert row["lower"] <= true_share <= row["upper"], (method, year, theme, row.to_dict())
                assert row["upper"] - row["lower"] < 0.06  # narrow: ~2 * 1.96 * sqrt(.25 * .75 / 2000)


def test_coverage_is_close_to_nominal_for_many_small_years() -> None:
    # 300 independent 38-paper "years"; each true share must be covered ~95% of the time.
    rng = np.random.default_rng(2026)
    truth = {"A": 0.1, "B": 0.3, "C": 0.6}
    counts = {}
    for year in range(300):
        for theme, k in zip(truth, rng.multinomial(38, list(truth.values())), strict=True):
            counts[(year, theme)] = int(k)
    shares = theme_shares(make_docs(counts))
    covered = (shares["lower"] <= shares["theme"].map(truth)) & (shares["theme"].map(truth) <= shares["upper"])
    assert len(shares) == 900
    assert covered.mean() >= 0.90


def test_a_38_paper_year_gets_a_much_wider_interval_than_a_2000_paper_year() -> None:
    docs = make_docs({(2019, "RL"): 19, (2019, "Other"): 19, (2024, "RL"): 1000, (2024, "Other"): 1000})
    shares = theme_shares(docs)
    small, large = cell(shares, 2019, "RL"), cell(shares, 2024, "RL")
    assert small["share"] == large["share"] == 0.5
    width_small, width_large = small["upper"] - small["lower"], large["upper"] - large["lower"]
    assert width_small > 0.25  # about +-15 points
    assert width_small > 5 * width_large  # widths scale ~ 1/sqrt(n): sqrt(2000/38) ~ 7


def test_dropped_rows_are_excluded_and_unassigned_rows_count_in_the_year_total() -> None:
    docs = make_docs({(2019, "RL"): 6, (2019, ""): 2})
    docs = pd.concat(
        [docs, pd.DataFrame({"year": [2019, 2019], "theme": [None, "RL"], "status": ["ok", "dropped"]})],
        ignore_index=True,
    )
    docs["year"] = docs["year"].astype("Int64")
    shares = theme_shares(docs)
    assert shares["theme"].tolist() == ["RL"]
    assert (shares["n"].iloc[0], shares["total"].iloc[0]) == (6, 9)  # 6 RL + 2 "" + 1 missing theme
    with_none = theme_shares(docs, include_unassigned=True)
    assert with_none["theme"].tolist() == ["RL", "(no theme)"]
    assert with_none["n"].tolist() == [6, 3]
    assert with_none["share"].sum() == pytest.approx(1.0)
    # Toggling include_unassigned does not change the other themes' shares.
    assert with_none["share"].iloc[0] == shares["share"].iloc[0]


def test_a_status_column_of_another_meaning_is_reported_not_silently_emptied() -> None:
    # Raw proceedings tables use "status" for the presentation type (Poster / Oral).
    docs = pd.DataFrame({"year": [2019, 2019], "theme": ["RL", "GNN"], "status": ["Poster", "Oral"]})
    with pytest.raises(ValueError, match=r"no row has status 'ok' \(values: \['Oral', 'Poster'\]\).*drop"):
        theme_shares(docs)
    assert theme_shares(docs.drop(columns="status"))["n"].tolist() == [1, 1]


def test_rows_without_a_year_are_left_out() -> None:
    docs = make_docs({(2019, "RL"): 2})
    docs = pd.concat([docs, pd.DataFrame({"year": [pd.NA], "theme": ["RL"], "status": ["ok"]})], ignore_index=True)
    docs["year"] = docs["year"].astype("Int64")
    assert theme_shares(docs)["total"].tolist() == [2]


def test_shares_by_venue_and_by_topic_label() -> None:
    docs = make_docs({("ICML", "RL"): 3, ("NeurIPS", "RL"): 1, ("NeurIPS", "GNN"): 3}, by="venue")
    shares = theme_shares(docs, by="venue")
    assert list(shares.columns[:2]) == ["venue", "theme"]
    assert cell(shares, "NeurIPS", "GNN", by="venue")["share"] == pytest.approx(0.75)
    docs["topic_label"] = docs["theme"].map({"RL": "policy gradients", "GNN": "message passing"})
    by_topic = theme_shares(docs, by="venue", group="topic_label")
    assert set(by_topic["topic_label"]) == {"policy gradients", "message passing"}


def test_bootstrap_is_reproducible_and_validates_n_boot() -> None:
    docs = make_docs({(2019, "RL"): 30, (2019, "GNN"): 70})
    a = theme_shares(docs, method="bootstrap", n_boot=500, random_state=3)
    b = theme_shares(docs, method="bootstrap", n_boot=500, random_state=3)
    pd.testing.assert_frame_equal(a, b)
    assert (a["lower"] < a["share"]).all() and (a["share"] < a["upper"]).all()
    with pytest.raises(ValueError, match="n_boot"):
        theme_shares(docs, method="bootstrap", n_boot=5)
    with pytest.raises(ValueError, match="method"):
        theme_shares(docs, method="exact")  # type: ignore[arg-type]


def test_unknown_columns_and_levels_give_errors_that_list_the_fix() -> None:
    docs = make_docs({(2019, "RL"): 2})
    with pytest.raises(ValueError, match=r"by='yr' is not a column.*'year'"):
        theme_shares(docs, by="yr")
    with pytest.raises(ValueError, match=r"group='themes' is not a column.*'theme'"):
        theme_shares(docs, group="themes")
    with pytest.raises(ValueError, match="confidence must be a confidence level"):
        theme_shares(docs, confidence=95)


# --- theme_movers -----------------------------------------------------------------------------


def test_movers_detect_a_planted_rising_theme_and_a_flat_one() -> None:
    docs = make_docs(
        {
            (2019, "LLMs"): 100,
            (2019, "Optimisation"): 200,
            (2019, "Kernels"): 700,
            (2024, "LLMs"): 300,
            (2024, "Optimisation"): 200,
            (2024, "Kernels"): 500,
        }
    )
    movers = theme_movers(docs, a=2019, b=2024)
    assert list(movers.columns) == [
        "theme",
        "n_a",
        "total_a",
        "share_a",
        "n_b",
        "total_b",
        "share_b",
        "diff",
        "diff_lower",
        "diff_upper",
        "ratio",
        "significant",
        "direction",
        "baseline",
        "compared",
    ]
    assert movers["theme"].tolist() == ["LLMs", "Optimisation", "Kernels"]  # by diff, descending
    assert movers["direction"].tolist() == ["rising", "stable", "declining"]
    assert movers["significant"].tolist() == [True, False, True]
    llms = movers.iloc[0]
    assert (llms["share_a"], llms["share_b"], llms["diff"], llms["ratio"]) == pytest.approx((0.1, 0.3, 0.2, 3.0))
    assert llms["diff_lower"] < 0.2 < llms["diff_upper"]
    flat = movers.iloc[1]
    assert flat["diff"] == 0 and flat["diff_lower"] < 0 < flat["diff_upper"]


def test_movers_interval_matches_newcombes_published_example() -> None:
    # Newcombe (1998b), Statistics in Medicine 17:873, example (a): 56/70 vs 48/80, method 10.
    docs = make_docs({(2020, "X"): 48, (2020, "Y"): 32, (2021, "X"): 56, (2021, "Y"): 14})
    row = theme_movers(docs, a=2020, b=2021).set_index("theme").loc["X"]
    assert row["diff"] == pytest.approx(0.2)
    assert (round(row["diff_lower"], 4), round(row["diff_upper"], 4)) == (0.0524, 0.3339)
    d, lo, hi = newcombe_interval(48, 80, 56, 70)
    assert (float(lo), float(hi)) == pytest.approx((row["diff_lower"], row["diff_upper"]))


def test_a_doubling_in_a_small_year_is_stable_but_the_same_shift_at_scale_is_rising() -> None:
    small = theme_movers(make_docs({(2019, "T"): 3, (2019, "U"): 35, (2024, "T"): 6, (2024, "U"): 34}), a=2019, b=2024)
    big = theme_movers(
        make_docs({(2019, "T"): 150, (2019, "U"): 1750, (2024, "T"): 300, (2024, "U"): 1700}), a=2019, b=2024
    )
    assert small.set_index("theme").loc["T", "direction"] == "stable"
    assert big.set_index("theme").loc["T", "direction"] == "rising"


def test_periods_pool_several_years() -> None:
    docs = make_docs(
        {
            (2013, "RL"): 1,
            (2013, "GNN"): 9,
            (2014, "RL"): 2,
            (2014, "GNN"): 8,
            (2015, "RL"): 3,
            (2015, "GNN"): 7,
            (2016, "RL"): 10,
            (2016, "GNN"): 10,
            (2024, "RL"): 40,
            (2024, "GNN"): 10,
        }
    )
    movers = theme_movers(docs, a=range(2013, 2016), b=[2016, 2024]).set_index("theme")
    assert (movers.loc["RL", "n_a"], movers.loc["RL", "total_a"]) == (6, 30)
    assert (movers.loc["RL", "n_b"], movers.loc["RL", "total_b"]) == (50, 70)
    info = read_trend_info(movers)
    assert info.a_label == "2013–2015" and info.b_label == "2016, 2024" and info.a == (2013, 2014, 2015)
    assert period_label(range(2013, 2020)) == "2013–2019"


def test_movers_min_count_and_themes_new_in_b() -> None:
    docs = make_docs({(2019, "RL"): 50, (2019, "Rare"): 1, (2024, "RL"): 50, (2024, "LLMs"): 50})
    movers = theme_movers(docs, a=2019, b=2024).set_index("theme")
    assert set(movers.index) == {"RL", "Rare", "LLMs"}
    assert movers.loc["LLMs", "ratio"] == math.inf
    assert movers.loc["LLMs", "n_a"] == 0
    assert set(theme_movers(docs, a=2019, b=2024, min_count=2)["theme"]) == {"RL", "LLMs"}


def test_movers_errors_name_the_problem_and_list_what_is_present() -> None:
    docs = make_docs({(2019, "RL"): 2, (2024, "RL"): 2})
    with pytest.raises(ValueError, match=r"a=2030 has no modelled documents.*\[2019, 2024\]"):
        theme_movers(docs, a=2030, b=2024)
    with pytest.raises(ValueError, match=r"b=2010–2012 has no modelled documents"):
        theme_movers(docs, a=2019, b=range(2010, 2013))
    with pytest.raises(ValueError, match=r"overlap.*\[2019\]"):
        theme_movers(docs, a=[2019, 2024], b=2019)
    with pytest.raises(ValueError, match=r"by='yaer' is not a column.*'year'"):
        theme_movers(docs, by="yaer", a=2019, b=2024)


def test_compare_venues_is_movers_by_venue() -> None:
    docs = make_docs(
        {("ICML", "RL"): 80, ("ICML", "GNN"): 20, ("NeurIPS", "RL"): 20, ("NeurIPS", "GNN"): 80}, by="venue"
    )
    movers = compare_venues(docs).set_index("theme")
    assert movers.loc["GNN", "direction"] == "rising" and movers.loc["RL", "direction"] == "declining"
    assert read_trend_info(movers).a_label == "ICML" and read_trend_info(movers).by == "venue"
    with pytest.raises(TypeError, match="by='venue'"):
        compare_venues(docs, by="year")


def test_year_theme_table_is_wide_with_the_largest_theme_first() -> None:
    docs = make_docs({(2019, "RL"): 1, (2019, "GNN"): 3, (2024, "RL"): 1, (2024, "GNN"): 1, (2024, "LLMs"): 2})
    wide = year_theme_table(docs)
    assert wide.index.tolist() == ["GNN", "LLMs", "RL"]  # 4, 2, 2 papers overall (ties by name)
    assert wide.columns.tolist() == [2019, 2024]
    assert wide.loc["GNN", 2019] == pytest.approx(0.75) and wide.loc["LLMs", 2019] == 0.0
    assert year_theme_table(docs, values="n").loc["LLMs", 2024] == 2
