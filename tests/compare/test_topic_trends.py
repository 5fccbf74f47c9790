"""Topic-level trends on hand-built node tables: counts, intervals, growth, FDR status, what's new."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from icml_topics.compare import read_trend_info, theme_movers
from icml_topics.compare.topic_trends import (
    benjamini_hochberg,
    binomial_trend,
    node_counts,
    topic_changes,
    topic_shares,
    topic_status,
    topic_trends,
    whats_new,
)


def _docs(blocks: list[tuple[int, int, int]], outliers: dict[int, int] | None = None) -> pd.DataFrame:
    """(year, node, papers) blocks as a documents table with topic_0 and a coarse topic_1 (node // 10)."""
    rows = [(y, t) for y, t, n in blocks for _ in range(n)]
    rows += [(y, -1) for y, n in (outliers or {}).items() for _ in range(n)]
    frame = pd.DataFrame(rows, columns=["year", "topic_0"])
    frame["topic_1"] = np.where(frame["topic_0"] >= 0, frame["topic_0"] // 10, -1)
    frame["status"] = "ok"
    return frame


def test_counts_and_shares_use_every_modelled_paper_of_the_period_as_denominator():
    docs = _docs([(2019, 0, 3), (2019, 11, 1), (2024, 0, 1), (2024, 12, 4)], outliers={2019: 6})
    dropped = pd.DataFrame({"year": [2019], "topic_0": [0], "topic_1": [0], "status": ["dropped"]})
    counts = node_counts(pd.concat([docs, dropped], ignore_index=True), by="year")
    assert counts.periods == [2019, 2024] and counts.totals.tolist() == [10, 5]
    table = counts.nodes.assign(n2019=counts.counts[:, 0], n2024=counts.counts[:, 1])
    assert table[["level", "topic", "n2019", "n2024"]].values.tolist() == [
        [0, 0, 3, 1],
        [0, 11, 1, 0],
        [0, 12, 0, 4],
        [1, 0, 3, 1],
        [1, 1, 1, 4],
    ]
    shares = topic_shares(counts)
    row = shares[(shares.level == 0) & (shares.topic == 12) & (shares.period == 2019)].iloc[0]
    assert (row.n, row.total, row.share, row.lower) == (0, 10, 0.0, 0.0) and 0.25 < row.upper < 0.3


def test_a_tree_table_names_the_nodes():
    docs = _docs([(2019, 0, 5), (2024, 0, 5)])
    tree = pd.DataFrame(
        {
            "level": [0, 1],
            "topic": [0, 0],
            "parent": [0, -1],
            "label": ["offline RL", "RL"],
            "size": [10, 10],
            "theme": ["Reinforcement learning"] * 2,
        }
    )
    trends = topic_trends(docs, tree)
    assert set(trends["label"]) == {"offline RL", "RL"}
    assert {"level", "topic", "label", "period", "n", "total", "share", "lower", "upper", "status"} <= set(trends)
    assert (trends["theme"] == "Reinforcement learning").all()


def test_trends_name_each_column_once_with_the_trees_stability():
    docs = _docs([(2019, 0, 5), (2024, 0, 5), (2024, 11, 5)])
    tree = pd.DataFrame(
        {
            "level": [0, 0, 1, 1],
            "topic": [0, 11, 0, 1],
            "parent": [0, 1, -1, -1],
            "label": ["offline RL", "bandits", "RL", "online"],
            "size": [10, 5, 10, 5],
            "stability": [0.9, 0.4, 1.0, 0.6],
            "theme": ["Reinforcement learning"] * 4,
        }
    )
    trends = topic_trends(docs, tree)
    assert trends.columns.is_unique and not [c for c in trends.columns if c.endswith(("_x", "_y"))]
    stability = trends.drop_duplicates(["level", "topic"]).set_index(["level", "topic"])["stability"]
    assert stability.to_dict() == {(0, 0): 0.9, (0, 11): 0.4, (1, 0): 1.0, (1, 1): 0.6}


def test_change_interval_matches_the_theme_movers_newcombe_interval():
    docs = _docs([(2019, 0, 30), (2019, 1, 70), (2024, 0, 45), (2024, 1, 35)])
    changes = topic_changes(docs, a=2019, b=2024).query("level == 0").set_index("topic")
    movers = theme_movers(docs.assign(theme=docs["topic_0"].astype(str)), a=2019, b=2024).set_index("theme")
    for topic in (0, 1):
        assert changes.loc[topic, ["diff", "diff_lower", "diff_upper"]].tolist() == pytest.approx(
            movers.loc[str(topic), ["diff", "diff_lower", "diff_upper"]].tolist()
        )


def test_growth_is_the_slope_of_an_unpenalised_logistic_regression():
    from sklearn.linear_model import LogisticRegression

    counts = np.array([[5, 9, 20, 31], [40, 35, 30, 22]])
    totals = np.array([200, 220, 260, 300])
    years = np.array([2016, 2017, 2018, 2019])
    slope, lo, hi = binomial_trend(counts, totals, years)
    for row in range(2):
        x = np.repeat(years, totals)[:, None] - 2017.5
        y = np.concatenate([np.r_[np.ones(k), np.zeros(n - k)] for k, n in zip(counts[row], totals)])
        reference = LogisticRegression(C=np.inf, tol=1e-10, max_iter=1000).fit(x, y).coef_[0, 0]
        assert slope[row] == pytest.approx(reference, abs=1e-4)
        assert lo[row] < slope[row] < hi[row]
    assert slope[0] > 0 > slope[1]
    # undefined where the node is in one period only (separation) or there are two periods
    assert np.isnan(binomial_trend(np.array([[0, 0, 9]]), totals[:3], years[:3])[0][0])
    assert np.isnan(binomial_trend(np.array([[3, 9]]), totals[:2], years[:2])[0][0])


def test_benjamini_hochberg_against_a_hand_computation():
    p = np.array([0.001, 0.008, 0.039, 0.041, 0.6, np.nan])
    q = benjamini_hochberg(p)
    # m = 5 tests: 0.001*5/1, 0.008*5/2, min(0.039*5/3, 0.041*5/4), 0.041*5/4, 0.6
    assert q[:5] == pytest.approx([0.005, 0.02, 0.05125, 0.05125, 0.6])
    assert np.isnan(q[5])


def test_status_new_emerging_declining_vanished_and_small_years_make_no_headline():
    blocks = [(y, 0, 50) for y in (2016, 2017, 2018)] + [(2024, 0, 50)]  # stable large node
    blocks += [(y, 1, 40) for y in (2016, 2017, 2018)]  # gone in 2024
    blocks += [(y, 2, 30) for y in (2016, 2017, 2018)] + [(2024, 2, 8)]  # falls
    blocks += [(2024, 3, 40), (2017, 3, 1)]  # new: at most 2 papers in every earlier year
    blocks += [(y, 4, 3) for y in (2016, 2017, 2018)] + [(2024, 4, 30)]  # rises from 3 a year: emerging
    blocks += [(2024, 5, 2)]  # two papers in the last year, none before: noise, not news
    blocks += [(y, 6, 77) for y in (2016, 2017, 2018)] + [(2024, 6, 65)]
    status = topic_status(_docs(blocks)).query("level == 0").set_index("topic")["status"].to_dict()
    assert status == {0: "stable", 1: "vanished", 2: "declining", 3: "new", 4: "emerging", 5: "stable", 6: "stable"}


def test_status_reads_only_the_latest_period_and_earlier_ones():
    docs = _docs([(2019, 0, 20), (2020, 0, 20), (2020, 1, 30), (2021, 1, 200)])
    at_2020 = topic_status(docs, latest=2020).query("level == 0").set_index("topic")
    alone = topic_status(docs[docs["year"] <= 2020], latest=2020).query("level == 0").set_index("topic")
    assert at_2020.loc[1, "status"] == "new" and at_2020.loc[1, "n_latest"] == 30
    pd.testing.assert_frame_equal(at_2020.drop(columns="size"), alone.drop(columns="size"))
    assert read_trend_info(at_2020).before == (2019,) and read_trend_info(at_2020).latest == 2020


def test_venues_have_no_growth_and_compare_with_all_other_values():
    docs = pd.DataFrame({"venue": ["ICML"] * 30 + ["NeurIPS"] * 30, "topic_0": [0] * 25 + [1] * 5 + [1] * 30})
    status = topic_status(docs, by="venue", latest="NeurIPS").set_index("topic")
    assert status["growth"].isna().all()
    assert status.loc[1, "status"] == "emerging"


def test_whats_new_orders_new_before_emerging_and_checks_statuses():
    blocks = [(y, 0, 50) for y in (2016, 2017)] + [(2024, 0, 50), (2024, 3, 40)]
    blocks += [(y, 4, 3) for y in (2016, 2017)] + [(2024, 4, 40)]
    new = whats_new(topic_status(_docs(blocks)))
    assert new[["level", "topic", "status"]].values.tolist() == [[0, 3, "new"], [0, 4, "emerging"]]
    with pytest.raises(ValueError, match="not statuses"):
        whats_new(topic_status(_docs(blocks)), statuses=["rising"])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"latest": 1999}, "not a year"), ({"fdr": 1.5}, "false-discovery"), ({"new_max": -1}, "non-negative")],
)
def test_bad_arguments_name_the_fix(kwargs, match):
    with pytest.raises(ValueError, match=match):
        topic_status(_docs([(2019, 0, 5), (2024, 0, 5)]), **kwargs)


def test_one_period_and_missing_columns_are_clear_errors():
    with pytest.raises(ValueError, match="at least two"):
        topic_status(_docs([(2019, 0, 5)]))
    with pytest.raises(ValueError, match="no topic_<level> column"):
        topic_status(pd.DataFrame({"year": [2019, 2024]}))
    with pytest.raises(ValueError, match="by='year'"):
        topic_status(_docs([(2019, 0, 5)]), by="decade")


def test_whats_new_lists_a_parent_holding_only_its_childs_papers_once():
    """Level-1 node 1 has one child (level-0 node 3): the same 40 new papers are one finding, not two."""
    blocks = [(y, 0, 50) for y in (2016, 2017)] + [(2024, 0, 50), (2024, 3, 40)]
    docs = _docs(blocks)
    docs["topic_1"] = np.where(docs["topic_0"] == 3, 1, 0)
    tree = pd.DataFrame(
        {
            "level": [0, 0, 1, 1],
            "topic": [0, 3, 0, 1],
            "parent": [0, 1, -1, -1],
            "label": ["offline RL", "world models", "RL", "model-based RL"],
            "size": [150, 40, 150, 40],
            "theme": ["Reinforcement learning"] * 4,
        }
    )
    status = topic_status(docs, tree)
    assert status.loc[status["status"] == "new", ["level", "topic"]].values.tolist() == [[0, 3], [1, 1]]
    new = whats_new(status)
    assert new[["level", "topic", "label"]].values.tolist() == [[0, 3, "world models"]]
    assert new["also_at_levels"].tolist() == [[1]]
