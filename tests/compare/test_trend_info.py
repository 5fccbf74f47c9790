"""The trend tables' metadata (one typed ``TrendInfo`` under one attrs key) and ``confidence=`` with ``level=``
accepted for one release (icml_topics.compare.trend_info, icml_topics.compare._confidence)."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest

from icml_topics.compare import (
    TrendInfo,
    acceptance_shares,
    compare_venues,
    newcombe_interval,
    node_acceptance,
    read_trend_info,
    theme_movers,
    theme_shares,
    topic_changes,
    topic_shares,
    topic_status,
    topic_trends,
    whats_new,
    wilson_interval,
)
from icml_topics.compare.trend_info import TREND_INFO


def _docs() -> pd.DataFrame:
    rows = [(2023, 0, "RL")] * 40 + [(2023, 1, "GNN")] * 10 + [(2024, 0, "RL")] * 10 + [(2024, 1, "GNN")] * 40
    docs = pd.DataFrame(rows, columns=["year", "topic_0", "theme"])
    docs["status"] = "ok"
    docs["decision"] = ["poster", "rejected"] * (len(docs) // 2)
    return docs


# --- producers record one TrendInfo -------------------------------------------------------------


def test_every_producer_records_its_statistics_under_one_attrs_key():
    docs = _docs()
    shares = theme_shares(docs, confidence=0.9)
    assert list(shares.attrs) == [TREND_INFO]
    assert read_trend_info(shares) == TrendInfo(by="year", group="theme", confidence=0.9, method="wilson")
    movers = theme_movers(docs, a=2023, b=2024)
    info = read_trend_info(movers)
    assert (info.by, info.a, info.b, info.a_label, info.confidence) == ("year", (2023,), (2024,), "2023", 0.95)
    status = topic_status(docs, fdr=0.1, confidence=0.8)
    info = read_trend_info(status)
    assert (info.latest, info.before, info.baseline, info.baseline_label) == (2024, (2023,), "pooled", "2023")
    assert (info.fdr, info.confidence) == (0.1, 0.8)
    assert read_trend_info(topic_trends(docs, fdr=0.1)).fdr == 0.1  # the status' info, joined on
    assert read_trend_info(whats_new(status)) == read_trend_info(status)
    assert read_trend_info(topic_shares(docs, confidence=0.9)).confidence == 0.9
    assert read_trend_info(topic_changes(docs, a=2023, b=2024)).b_label == "2024"
    acceptance = acceptance_shares(docs, confidence=0.9)
    assert read_trend_info(acceptance).confidence == 0.9 and "unknown_decisions" in acceptance.attrs
    assert read_trend_info(node_acceptance(docs, confidence=0.9)).confidence == 0.9


def test_a_table_without_a_record_reads_as_the_defaults_and_a_required_value_is_an_error():
    bare = theme_movers(_docs(), a=2023, b=2024)
    bare.attrs = {}
    info = read_trend_info(bare)
    assert (info.confidence, info.fdr, info.a) == (0.95, 0.05, ())
    with pytest.raises(ValueError, match=r"movers does not record a, b .*; pass periods"):
        read_trend_info(bare, require=("a", "b"), name="movers", hint="; pass periods")
    with pytest.raises(ValueError, match="require names no TrendInfo field"):
        read_trend_info(bare, require=("level",))
    bare.attrs[TREND_INFO] = {"level": 0.9}
    with pytest.raises(TypeError, match="not a TrendInfo"):
        read_trend_info(bare)


def test_the_record_is_immutable_and_survives_slicing():
    status = topic_status(_docs())
    info = read_trend_info(status)
    with pytest.raises(AttributeError):
        info.fdr = 0.5  # type: ignore[misc]
    assert read_trend_info(status[status["status"] != "stable"]) == info


# --- confidence=, and level= for one more release ----------------------------------------------


@pytest.mark.parametrize(
    ("function", "args"),
    [
        (theme_shares, {}),
        (theme_movers, {"a": 2023, "b": 2024}),
        (topic_status, {}),
        (topic_trends, {}),
        (topic_shares, {}),
        (topic_changes, {"a": 2023, "b": 2024}),
        (acceptance_shares, {}),
        (node_acceptance, {}),
    ],
)
def test_level_still_sets_the_confidence_with_a_deprecation_warning(function, args):
    docs = _docs()
    with pytest.warns(DeprecationWarning, match=r"level=\.\.\.\) is deprecated.*pass confidence=0\.8"):
        old = function(docs, level=0.8, **args)
    new = function(docs, confidence=0.8, **args)
    pd.testing.assert_frame_equal(old, new)
    assert read_trend_info(old).confidence == 0.8
    assert not np.allclose(_lower(old), _lower(function(docs, **args)))  # the value is used: other intervals
    signature = inspect.signature(function)
    assert "confidence" in signature.parameters and "level" not in signature.parameters


def _lower(table: pd.DataFrame) -> pd.Series:
    """The lower bounds of a table's intervals (``lower``, ``change_lower`` or ``diff_lower``)."""
    return table[next(c for c in ("lower", "change_lower", "diff_lower") if c in table.columns)]


def test_the_intervals_take_confidence_and_refuse_both_names():
    with pytest.warns(DeprecationWarning, match="confidence="):
        assert wilson_interval(3, 38, level=0.9) == wilson_interval(3, 38, confidence=0.9)
    with pytest.warns(DeprecationWarning):
        old = newcombe_interval(48, 80, 56, 70, level=0.9)
    assert np.allclose(old, newcombe_interval(48, 80, 56, 70, confidence=0.9))
    with pytest.raises(TypeError, match="pass confidence= only"):
        theme_shares(_docs(), level=0.9, confidence=0.9)
    with pytest.raises(ValueError, match=r"confidence must be a confidence level.*confidence=0\.95"):
        theme_shares(_docs(), confidence=95)


def test_compare_venues_passes_the_old_name_on_as_confidence():
    docs = _docs().assign(venue=lambda d: np.where(d["year"] == 2023, "ICML", "NeurIPS"))
    with pytest.warns(DeprecationWarning):
        movers = compare_venues(docs, level=0.8)
    assert read_trend_info(movers).confidence == 0.8


def test_the_package_raises_no_deprecation_warning_of_its_own():
    docs = _docs()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        topic_trends(docs, fdr=0.1)
        theme_movers(docs, a=2023, b=2024)
        node_acceptance(docs)
