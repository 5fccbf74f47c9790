"""docs/how-to/names-and-maps.md describes the report's map as the code draws it: every name over its papers
(label layers that follow the zoom, drawn by labels.js), no leader lines. The page described theme names in
two columns beside the map with leader lines, a layout the report no longer draws."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from icml_topics.plotting import plot_topic_map

PAGE = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "names-and-maps.md"


def _report_map_description() -> str:
    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    start = text.index("The report's interactive map")
    return text[start : text.index("legend", start)]


def test_the_page_says_the_report_map_writes_names_over_their_papers():
    described = _report_map_description()
    assert "over its papers" in described
    assert "beside the map" not in described and "two columns" not in described
    assert "with leader lines" not in described.replace("with no leader lines", "")


def test_the_report_map_names_sit_over_their_papers_without_leader_lines():
    rng = np.random.default_rng(0)
    centres = {"Optimization": (0.0, 0.0), "Graph learning": (10.0, 0.0), "Causality": (5.0, 8.0)}
    frames = [
        pd.DataFrame({"x": cx + rng.normal(0, 0.5, 40), "y": cy + rng.normal(0, 0.5, 40), "theme": theme, "topic": i})
        for i, (theme, (cx, cy)) in enumerate(centres.items())
    ]
    documents = pd.concat(frames, ignore_index=True)
    documents["id"] = [f"p{i}" for i in range(len(documents))]
    documents["title"] = "A paper"

    fig = plot_topic_map(documents)
    themes = next(layer for layer in fig.layout.meta["label_layers"] if layer["level"] == "theme")
    assert sorted(lab["text"] for lab in themes["labels"]) == sorted(centres)
    for lab in themes["labels"]:
        own = documents[documents["theme"] == lab["text"]]
        assert own["x"].min() <= lab["x"] <= own["x"].max() and own["y"].min() <= lab["y"] <= own["y"].max()
    assert not any(note.showarrow for note in fig.layout.annotations)  # a plotly leader line is an arrow
