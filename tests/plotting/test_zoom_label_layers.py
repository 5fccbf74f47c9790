"""The map's label layers (plotting/labels.py): themes, then every level of a topic tree from the
coarsest to the finest, each name over the densest part of its papers, thresholds that grow with the
zoom; built from a synthetic tree with known clusters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from icml_topics.plotting.labels import MIN_PAPERS, label_layers, layers_json


@pytest.fixture(scope="module")
def tree_frame():
    """Four fine topics (level 0) in two coarse ones (level 1) in one root (level 2); fine topic 3 has a
    dense core of 30 papers at (10, 0) and 6 stragglers far away at (10, 8)."""
    rng = np.random.default_rng(0)
    centres = {0: (0.0, 0.0), 1: (2.0, 0.0), 2: (8.0, 0.0), 3: (10.0, 0.0)}
    rows = []
    for topic, (cx, cy) in centres.items():
        for _ in range(30):
            rows.append((cx + rng.normal(0, 0.2), cy + rng.normal(0, 0.2), topic))
    rows += [(10.0 + rng.normal(0, 0.1), 8.0 + rng.normal(0, 0.1), 3) for _ in range(6)]
    rows += [(5.0, 5.0, -1), (5.1, 5.0, -1), (5.0, 5.1, -1)]  # outliers: no node, no name
    frame = pd.DataFrame(rows, columns=["x", "y", "topic_0"])
    frame["topic_1"] = frame["topic_0"].map({0: 0, 1: 0, 2: 1, 3: 1, -1: -1})
    frame["topic_2"] = np.where(frame["topic_0"] == -1, -1, 0)
    frame["theme"] = np.where(frame["x"] < 5, "Optimization", "Graph learning")
    tree = pd.DataFrame(
        [
            (0, 0, 0, "adam and momentum", 30, "Optimization"),
            (0, 1, 0, "learning rate schedules", 30, "Optimization"),
            (0, 2, 1, "message passing networks", 30, "Graph learning"),
            (0, 3, 1, "graph transformers", 36, "Graph learning"),
            (1, 0, 0, "first-order optimisation", 60, "Optimization"),
            (1, 1, 0, "graph neural networks", 66, "Graph learning"),
            (2, 0, -1, "optimisation and graphs", 126, "Optimization"),
        ],
        columns=["level", "topic", "parent", "label", "size", "theme"],
    )
    return frame, tree


def test_layers_are_themes_then_tree_levels_coarse_to_fine(tree_frame):
    frame, tree = tree_frame
    layers = label_layers(frame, tree)
    assert [(lay.name, lay.level) for lay in layers] == [
        ("themes", None),
        ("topics, level 2", 2),
        ("topics, level 1", 1),
        ("topics, level 0", 0),
    ]
    zooms = [lay.min_zoom for lay in layers]
    assert zooms[0] == 1.0 and all(b >= 1.5 * a - 1e-9 for a, b in zip(zooms, zooms[1:]))
    fine = layers[-1]
    assert sorted(lab["text"] for lab in fine.labels) == sorted(tree.loc[tree["level"] == 0, "label"])
    assert {lab["theme"] for lab in fine.labels} == {"Optimization", "Graph learning"}
    # the outliers belong to no node of any level
    assert all((lay.groups[-3:] == -1).all() for lay in layers[1:])


def test_a_name_sits_on_the_dense_part_of_its_papers(tree_frame):
    frame, tree = tree_frame
    fine = label_layers(frame, tree)[-1]
    label = next(lab for lab in fine.labels if lab["text"] == "graph transformers")
    assert label["size"] == 36
    core = frame[(frame["topic_0"] == 3) & (frame["y"] < 4)]
    assert label["x"] == pytest.approx(core["x"].mean(), abs=0.05)
    assert label["y"] == pytest.approx(core["y"].mean(), abs=0.05)  # not pulled towards the stragglers
    members = fine.groups == label["node"]
    assert set(frame.loc[members, "topic_0"]) == {3} and members.sum() == 36


def test_without_a_tree_the_topic_column_is_the_fine_layer():
    frame = pd.DataFrame(
        {
            "x": [0.0, 0.1, 0.2, 5.0, 5.1, 5.2, 9.0],
            "y": [0.0, 0.1, 0.0, 5.0, 5.1, 5.0, 9.0],
            "topic": [0, 0, 0, 1, 1, 1, 2],
            "topic_label": ["bandits", "bandits", "bandits", "kernels", "kernels", "kernels", "tiny"],
            "theme": ["RL"] * 3 + ["Kernels"] * 3 + ["RL"],
        }
    )
    layers = label_layers(frame)
    assert [lay.level for lay in layers] == [None, None] and layers[1].name == "topics"
    assert sorted(lab["text"] for lab in layers[1].labels) == ["bandits", "kernels"]  # "tiny" < MIN_PAPERS
    assert MIN_PAPERS == 3
    as_json = layers_json(layers, {"RL": "#1f77b4"}, groups=True)
    assert [lay["level"] for lay in as_json] == ["theme", "topic"]
    assert len(as_json[1]["groups"]) == len(frame)
    rl = next(lab for lab in as_json[0]["labels"] if lab["text"] == "RL")
    assert rl["color"] != "#1d1d1f"  # a darker shade of the theme's colour


def test_no_rows_no_layers():
    assert label_layers(pd.DataFrame({"x": [], "y": [], "theme": []})) == []
