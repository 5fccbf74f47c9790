"""Two-period trends: a dumbbell per theme instead of crossing lines; colour-blind-safe movers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from icml_topics.compare import theme_movers, theme_shares
from icml_topics.plotting import plot_movers, plot_share_dumbbell, plot_theme_shares


def _docs() -> pd.DataFrame:
    rows = [(2019, "Graphs")] * 30 + [(2019, "Bandits")] * 50 + [(2024, "Graphs")] * 60 + [(2024, "Bandits")] * 20
    frame = pd.DataFrame(rows, columns=["year", "theme"])
    return frame.assign(status="ok", topic=1)


def test_two_periods_give_a_dumbbell_with_one_row_per_theme():
    shares = theme_shares(_docs(), by="year")
    fig = plot_theme_shares(shares)
    lines = [t for t in fig.data if t.mode == "lines"]
    dots = [t for t in fig.data if t.mode == "markers"]
    assert len(lines) == 2 and [t.name for t in dots] == ["2019", "2024"]
    graphs = next(t for t in lines if t.y[0] == "Graphs")
    bandits = next(t for t in lines if t.y[0] == "Bandits")
    assert np.allclose(graphs.x, [30 / 80, 60 / 80]) and np.allclose(bandits.x, [50 / 80, 20 / 80])
    assert graphs.line.color != bandits.line.color  # up and down differ
    assert list(fig.layout.yaxis.categoryarray) == ["Graphs", "Bandits"]  # by share in 2024
    assert plot_share_dumbbell(shares).to_dict()["data"] == fig.to_dict()["data"]


def test_three_periods_keep_the_line_chart():
    docs = pd.concat(
        [_docs(), pd.DataFrame({"year": [2022] * 10, "theme": ["Graphs"] * 10, "status": "ok", "topic": 1})]
    )
    fig = plot_theme_shares(theme_shares(docs, by="year"))
    assert all(t.mode == "lines+markers" for t in fig.data)


def test_mover_colours_are_not_a_red_green_pair():
    fig = plot_movers(theme_movers(_docs(), a=2019, b=2024))
    colours = {t.name: t.marker.color for t in fig.data}
    assert colours.get("rising", "#0072b2") == "#0072b2" and colours.get("declining", "#e69f00") == "#e69f00"
