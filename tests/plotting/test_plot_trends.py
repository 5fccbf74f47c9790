"""Trend and alignment figures (icml_topics.plotting.trends / .alignment)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from icml_topics.compare import align_topics, theme_movers, theme_shares, year_theme_table
from icml_topics.plotting.alignment import plot_alignment_sankey
from icml_topics.plotting.trends import plot_theme_shares, plot_year_theme_heatmap
from icml_topics.plotting.two_periods import plot_movers


@pytest.fixture(scope="module")
def docs() -> pd.DataFrame:
    counts = {
        (2019, "RL"): 20,
        (2019, "GNN"): 15,
        (2019, "Kernels"): 3,  # a 38-paper year
        (2024, "RL"): 40,
        (2024, "GNN"): 30,
        (2024, "LLMs"): 90,
        (2024, "Kernels"): 40,
        (2026, "RL"): 30,
        (2026, "GNN"): 30,
        (2026, "LLMs"): 130,
        (2026, "Kernels"): 10,
    }
    rows = [{"year": y, "theme": t, "status": "ok"} for (y, t), n in counts.items() for _ in range(n)]
    out = pd.DataFrame(rows)
    out["year"] = out["year"].astype("Int64")
    return out


def test_theme_shares_plot_has_one_line_per_theme_with_interval_error_bars(docs: pd.DataFrame) -> None:
    shares = theme_shares(docs)
    fig = plot_theme_shares(shares)
    assert isinstance(fig, go.Figure)
    # Ordered by pooled share: LLMs 220/438, RL 90/438, GNN 75/438, Kernels 53/438.
    assert [t.name for t in fig.data] == ["LLMs", "RL", "GNN", "Kernels"]
    for trace in fig.data:
        rows = shares[shares["theme"] == trace.name].sort_values("year")
        drawn = ~np.isnan(np.asarray(trace.y, dtype=float))  # breaks before 2024 and 2026: years without data
        assert list(np.asarray(trace.x, dtype=float)[drawn]) == [2019, 2024, 2026]
        np.testing.assert_allclose(np.asarray(trace.y, dtype=float)[drawn], rows["share"])
        np.testing.assert_allclose(np.asarray(trace.error_y.array, dtype=float)[drawn], rows["upper"] - rows["share"])
        np.testing.assert_allclose(
            np.asarray(trace.error_y.arrayminus, dtype=float)[drawn], rows["share"] - rows["lower"]
        )
        assert "papers" in trace.hovertemplate and "95% CI" in trace.hovertemplate
    assert fig.layout.template.layout.paper_bgcolor == "white"  # plotly_white
    assert "Share of papers per theme by year" in fig.layout.title.text
    assert fig.layout.yaxis.tickformat == ".0%"
    assert "<html>" in fig.to_html(include_plotlyjs=False, full_html=True)


def test_theme_share_lines_break_across_years_without_data() -> None:
    """ICML has 2013-2015 and 2019, 2024: no line joins 2015 to 2019 or 2019 to 2024, in lines and bands."""
    years = {2013: 40, 2014: 50, 2015: 60, 2019: 80, 2024: 100}
    rows = [
        {"year": y, "theme": t, "status": "ok"}
        for y, n in years.items()
        for i in range(n)
        for t in [("RL", "GNN")[i % 2]]
    ]
    shares = theme_shares(pd.DataFrame(rows))
    fig = plot_theme_shares(shares)
    for trace in fig.data:
        x, y = np.asarray(trace.x, dtype=float), np.asarray(trace.y, dtype=float)
        segments = np.split(x, np.flatnonzero(np.isnan(y)))
        joined = [tuple(seg[~np.isnan(y[np.isin(x, seg)])]) for seg in segments]
        assert [tuple(v for v in seg if v in years) for seg in joined] == [(2013, 2014, 2015), (2019,), (2024,)]
    banded = plot_theme_shares(shares, intervals="bands")
    bands = [t for t in banded.data if t.fill == "toself"]
    assert sorted({(min(t.x), max(t.x)) for t in bands}) == [(2013, 2015)]  # one band per theme, 2013-2015
    for line in (t for t in banded.data if t.fill != "toself"):  # the lone years keep their interval as a bar
        x, bar = np.asarray(line.x, dtype=float), np.asarray(line.error_y.array, dtype=float)
        assert sorted(x[~np.isnan(bar)]) == [2019, 2024]


def test_theme_shares_plot_top_themes_and_bands(docs: pd.DataFrame) -> None:
    shares = theme_shares(docs)
    assert [t.name for t in plot_theme_shares(shares, top=2).data] == ["LLMs", "RL"]
    assert [t.name for t in plot_theme_shares(shares, themes=["Kernels", "RL"]).data] == ["Kernels", "RL"]
    consecutive = theme_shares(docs.assign(year=docs["year"].map({2019: 2024, 2024: 2025, 2026: 2026})))
    banded = plot_theme_shares(consecutive, top=2, intervals="bands")
    assert len(banded.data) == 4  # band + line per theme
    assert banded.data[0].fill == "toself" and banded.data[1].name == "LLMs"
    with pytest.raises(ValueError, match=r"themes \['Robotics'\] are not in shares_df; available"):
        plot_theme_shares(shares, themes=["Robotics"])


def test_theme_colours_do_not_depend_on_the_subset_shown(docs: pd.DataFrame) -> None:
    shares = theme_shares(docs)
    full = {t.name: t.line.color for t in plot_theme_shares(shares).data}
    subset = {t.name: t.line.color for t in plot_theme_shares(shares, themes=["GNN"]).data}
    assert subset["GNN"] == full["GNN"]
    assert len(set(full.values())) == 4


def test_heatmap_from_the_long_table_shows_share_and_counts(docs: pd.DataFrame) -> None:
    shares = theme_shares(docs)
    fig = plot_year_theme_heatmap(shares)
    assert len(fig.data) == 1 and isinstance(fig.data[0], go.Heatmap)
    heat = fig.data[0]
    assert list(heat.x) == ["2019", "2024", "2026"]
    assert list(heat.y) == ["LLMs", "RL", "GNN", "Kernels"]
    z = np.asarray(heat.z, dtype=float)
    assert z[0, 0] == 0.0 and z[0, 2] == pytest.approx(130 / 200)
    custom = np.asarray(heat.customdata, dtype=float)
    assert custom[3, 0, :2].tolist() == [3, 38]  # Kernels in 2019: n, total
    assert "customdata[0]" in heat.hovertemplate and "%{z:.1%}" in heat.hovertemplate
    assert fig.layout.title.text.startswith("Share of papers per theme and year")
    fig.to_html(include_plotlyjs=False)


def test_heatmap_from_the_wide_table(docs: pd.DataFrame) -> None:
    wide = year_theme_table(docs)
    heat = plot_year_theme_heatmap(wide).data[0]
    assert list(heat.y) == wide.index.tolist() and list(heat.x) == ["2019", "2024", "2026"]
    np.testing.assert_allclose(np.asarray(heat.z, dtype=float), wide.to_numpy(float))
    with pytest.raises(TypeError, match="DataFrame"):
        plot_year_theme_heatmap([1, 2])  # type: ignore[arg-type]


def test_movers_plot_bars_error_bars_and_period_labels(docs: pd.DataFrame) -> None:
    movers = theme_movers(docs, a=2019, b=[2024, 2026])
    fig = plot_movers(movers)
    directions = [t.name for t in fig.data]
    assert directions == [d for d in ("rising", "stable", "declining") if d in set(movers["direction"])]
    for trace in fig.data:
        rows = movers[movers["direction"] == trace.name].sort_values("diff", ascending=False)
        assert list(trace.y) == rows["theme"].tolist()
        np.testing.assert_allclose(trace.x, rows["diff"] * 100)  # percentage points
        np.testing.assert_allclose(trace.error_x.array, (rows["diff_upper"] - rows["diff"]) * 100)
        np.testing.assert_allclose(trace.error_x.arrayminus, (rows["diff"] - rows["diff_lower"]) * 100)
        assert trace.orientation == "h"
    assert "2019 → 2024, 2026" in fig.layout.title.text
    assert list(fig.layout.yaxis.categoryarray) == movers["theme"].tolist()  # biggest rise first
    fig.to_html(include_plotlyjs=False)


def test_movers_plot_top_keeps_the_largest_absolute_changes() -> None:
    movers = pd.DataFrame(
        {
            "theme": ["a", "b", "c", "d"],
            "n_a": 1,
            "total_a": 10,
            "share_a": 0.1,
            "n_b": 1,
            "total_b": 10,
            "share_b": 0.1,
            "diff": [0.3, 0.01, -0.02, -0.4],
            "diff_lower": [0.1, -0.1, -0.1, -0.5],
            "diff_upper": [0.5, 0.1, 0.1, -0.2],
            "ratio": 1.0,
            "significant": [True, False, False, True],
            "direction": ["rising", "stable", "stable", "declining"],
        }
    )
    fig = plot_movers(movers, top=3, label_a="ICML", label_b="NeurIPS")
    assert list(fig.layout.yaxis.categoryarray) == ["a", "c", "d"]  # "b" has the smallest |diff|
    assert "ICML → NeurIPS" in fig.layout.title.text


def alignment_case():
    e = np.eye(4)
    topics_a = pd.DataFrame(
        {
            "topic": [-1, 0, 1, 2],
            "label": ["Outliers", "RL", "GNN", "Kernels"],
            "size": [5, 30, 20, 10],
            "keywords": [["x"], ["rl"], ["graph"], ["kernel"]],
        }
    )
    topics_b = pd.DataFrame(
        {
            "topic": [0, 1, 2],
            "label": ["RL", "GNN", "LLMs"],
            "size": [25, 15, 40],
            "keywords": [["rl"], ["graph"], ["llm"]],
        }
    )
    emb_a = np.stack([e[0], e[0], e[1], e[2]])
    emb_b = np.stack([e[0], e[1], e[3]])
    return align_topics(topics_a, emb_a, topics_b, emb_b)  # RL, GNN matched; Kernels vanished; LLMs new


def test_alignment_sankey_nodes_links_and_hover() -> None:
    al = alignment_case()
    fig = plot_alignment_sankey(al, label_a="2019", label_b="2024")
    sankey = fig.data[0]
    assert isinstance(sankey, go.Sankey)
    # 3 topics of A, "New in 2024", 3 topics of B, "Vanished after 2019".
    assert list(sankey.node.label) == [
        "RL",
        "GNN",
        "Kernels",
        "New in 2024",
        "RL",
        "GNN",
        "LLMs",
        "Vanished after 2019",
    ]
    links = sorted(zip(sankey.link.source, sankey.link.target, sankey.link.value))
    # matched links weigh the mean of both sizes; new / vanished links their own size.
    assert links == [(0, 4, 27.5), (1, 5, 17.5), (2, 7, 10.0), (3, 6, 40.0)]
    assert all("similarity" in text for text in sankey.link.customdata[:2])
    assert "2019 → 2024" in fig.layout.title.text and "1 vanished" in fig.layout.title.text
    fig.to_html(include_plotlyjs=False)


def test_alignment_sankey_min_similarity_hides_weak_links() -> None:
    al = alignment_case()
    fig = plot_alignment_sankey(al, min_similarity=1.01)
    assert len(fig.data[0].link.source) == 2  # only the new and vanished flows remain
    with pytest.raises(TypeError, match="TopicAlignment"):
        plot_alignment_sankey(object())  # type: ignore[arg-type]
