"""Map labels in layers that follow the zoom: theme names zoomed out, then the topic tree's coarser and
finer topic names as the reader zooms in.

Each layer is one resolution: the themes, then one layer per level of ``topic_tree_`` from the
coarsest to the finest (level 0), or, for a model without a tree, the fine topics of the ``topic``
column. A label sits over its papers: at the centre of the densest part of the node's papers (for a
compact topic that is its centroid; a theme spread over the map is labelled where most of its papers
lie). A layer is shown from its ``min_zoom`` on, so a screen holds a similar number of names at every
zoom; which labels of the layer are drawn is decided in the browser at each zoom and pan, greedily by
size, so that no two overlap (``labels.js``, shared by the report's map and ``TopicMap.explore()``).

Examples:
    >>> from icml_topics.plotting.labels import label_layers
    >>> layers = label_layers(model.documents_, topic_tree=model.topic_tree_)
    >>> [(layer.name, len(layer.labels)) for layer in layers]
    [('themes', 20), ('topics, level 2', 12), ('topics, level 1', 31), ('topics, level 0', 95)]
"""

from __future__ import annotations

import importlib.resources
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from icml_topics.fitted_tables import level_column

from ._style import label_color

__all__ = ["LabelLayer", "label_anchor", "label_layers", "labels_js", "layers_json", "map_radius"]

MIN_PAPERS = 3  # a node needs this many drawn papers to get a name on the map
LABELS_PER_SCREEN = 25  # a layer appears once about this many of its names fit the screen
ZOOM_STEP = 1.5  # each finer layer appears at this many times the zoom of the one before, at least
_PEAK_RADIUS = 0.06  # of the map's span: the neighbourhood that defines a node's densest part
_PEAK_SAMPLE = 1500  # papers per node used to find that part (a deterministic sample beyond)
_MIN_REGION = 3  # papers in the smallest dense region HDBSCAN may find in a spread node
_FONT_SIZES = (13, 12, 11)  # themes, then topic layers coarse to fine (the last repeats)
_TOPIC_LEVEL = re.compile(r"^topic_(\d+)$")


@dataclass(frozen=True)
class LabelLayer:
    """One resolution of map labels.

    ``labels``: one dict per node (``text``, ``x``, ``y``, ``size``: its papers, ``node``: its id in
    ``groups``, ``theme``); ``groups``: the node id of each drawn paper (-1: none), used to select a
    node's papers; ``min_zoom``: the zoom (1 = whole map) from which this layer replaces the one before.
    """

    name: str
    level: int | None
    min_zoom: float
    font_size: int
    labels: list[dict] = field(default_factory=list)
    groups: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


def label_anchor(xy: np.ndarray, radius: float, *, on_point: bool = False) -> tuple[float, float]:
    """Where the label of the points ``xy`` sits: the centre of the densest part of their largest dense region
    (with ``on_point``, its densest point itself: a leader line then ends on one of the node's papers).

    The densest part is the mean of the points within ``radius`` of the point with most neighbours within
    ``radius`` (ties: the one nearest the centroid). When that part holds less than half the points (a node
    spread over the map in several clouds), it is looked for inside the largest cluster HDBSCAN finds among
    the points, so the label (and a leader line to it) sits in the node's main cloud, never at a centroid
    that may lie in another node's cloud.

    Examples:
        >>> xy = np.array([[0, 0], [0.1, 0], [0, 0.1], [0.1, 0.1], [9, 9], [9.1, 9], [5, 0]])
        >>> label_anchor(xy, 0.5)
        (0.05, 0.05)
    """
    xy = np.asarray(xy, dtype=np.float64)
    if len(xy) > _PEAK_SAMPLE:
        xy = xy[np.random.default_rng(0).choice(len(xy), _PEAK_SAMPLE, replace=False)]
    peak, near = _densest_part(xy, radius)
    if 2 * len(near) < len(xy) and len(xy) >= 2 * _MIN_REGION:
        peak, near = _densest_part(_largest_region(xy), radius)
    return (float(peak[0]), float(peak[1])) if on_point else (float(near[:, 0].mean()), float(near[:, 1].mean()))


def _densest_part(xy: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """The point of ``xy`` with most neighbours within ``radius`` (ties: nearest the centroid) and those."""
    d2 = ((xy[:, None, :] - xy[None, :, :]) ** 2).sum(axis=-1)
    counts = (d2 <= radius * radius).sum(axis=1)
    to_centroid = ((xy - xy.mean(axis=0)) ** 2).sum(axis=1)
    peak = np.lexsort((to_centroid, -counts))[0]
    return xy[peak], xy[d2[peak] <= radius * radius]


def _largest_region(xy: np.ndarray) -> np.ndarray:
    """The points of the largest HDBSCAN cluster of ``xy`` (all of them when it finds none)."""
    from hdbscan import HDBSCAN  # lazy: only for nodes spread over several clouds

    size = max(_MIN_REGION, len(xy) // 10)
    found = HDBSCAN(min_cluster_size=size, min_samples=_MIN_REGION, allow_single_cluster=True).fit_predict(xy)
    clusters, counts = np.unique(found[found >= 0], return_counts=True)
    if not len(clusters):
        return xy
    return xy[found == clusters[np.argmax(counts)]]  # ties: the lower cluster id (HDBSCAN is deterministic)


def _layer(
    name: str,
    level: int | None,
    keys: pd.Series,
    texts: Mapping[object, str],
    themes: Mapping[object, str],
    xy: np.ndarray,
    radius: float,
) -> tuple[list[dict], np.ndarray]:
    """Labels of the nodes in ``keys`` (one key per drawn paper; NA / -1 / "": none) and the groups."""
    valid = keys.notna().to_numpy() & ~keys.astype("string").fillna("").isin(["", "-1"]).to_numpy()
    codes, uniques = pd.factorize(keys.where(valid), sort=True)
    labels = []
    for node, key in enumerate(uniques):
        members = codes == node
        text = str(texts.get(key, key)).strip()
        if members.sum() < MIN_PAPERS or not text:
            continue
        x, y = label_anchor(xy[members], radius)
        labels.append(
            {"text": text, "x": x, "y": y, "size": int(members.sum()), "node": node, "theme": themes.get(key, "")}
        )
    return labels, codes.astype(np.int64)


def map_radius(xy: np.ndarray) -> float:
    """The neighbourhood that defines a node's densest part on a map of the points ``xy``: a fixed share of
    the map's span."""
    return _PEAK_RADIUS * float(max(np.ptp(xy[:, 0]), np.ptp(xy[:, 1]), 1e-9)) if len(xy) else 1.0


def _tree_levels(frame: pd.DataFrame, topic_tree: pd.DataFrame | None) -> list[int]:
    """The tree levels that both the tree and ``frame`` (``topic_<level>`` columns) have, coarsest first."""
    if topic_tree is None or not len(topic_tree) or "level" not in topic_tree.columns:
        return []
    in_frame = {int(m.group(1)) for c in frame.columns if (m := _TOPIC_LEVEL.match(str(c)))}
    levels = {int(v) for v in pd.to_numeric(topic_tree["level"], errors="coerce").dropna()}
    return sorted(levels & in_frame, reverse=True)


def label_layers(frame: pd.DataFrame, topic_tree: pd.DataFrame | None = None) -> list[LabelLayer]:
    """The label layers of the drawn papers ``frame`` (rows with numeric ``x``, ``y``), coarse to fine.

    Themes come from the ``theme`` column; topic layers from ``topic_tree`` (columns ``level, topic,
    label, theme``) and the ``topic_<level>`` columns of ``frame``, or without a tree from ``topic``
    and ``topic_label``. Layers without a labelled node are left out.

    Examples:
        >>> [layer.name for layer in label_layers(docs)]
        ['themes', 'topics']
    """
    if not len(frame):
        return []
    xy = np.column_stack([frame["x"].to_numpy(dtype=float), frame["y"].to_numpy(dtype=float)])
    radius = map_radius(xy)
    specs: list[tuple[str, int | None, pd.Series, Mapping, Mapping]] = []
    if "theme" in frame.columns:
        theme = frame["theme"].astype("string").str.strip()
        specs.append(("themes", None, theme, {}, {t: t for t in theme.dropna().unique()}))
    levels = _tree_levels(frame, topic_tree)
    for level in levels:
        nodes = topic_tree.loc[pd.to_numeric(topic_tree["level"], errors="coerce") == level]
        keys = pd.to_numeric(frame[level_column(level)], errors="coerce").astype("Int64")
        node_ids = pd.to_numeric(nodes["topic"], errors="coerce").astype("Int64")
        texts = dict(zip(node_ids, nodes["label"].astype("string").fillna("")))
        themes = dict(zip(node_ids, nodes["theme"].astype("string").fillna(""))) if "theme" in nodes else {}
        specs.append((f"topics, level {level}", level, keys, texts, themes))
    if not levels and "topic" in frame.columns:
        keys = pd.to_numeric(frame["topic"], errors="coerce").astype("Int64")
        label_col = frame["topic_label"] if "topic_label" in frame.columns else keys.astype("string")
        texts = dict(zip(keys, label_col.astype("string").fillna("")))
        themes = {}
        if "theme" in frame.columns:  # a topic's colour: the theme of most of its papers
            majority = frame.assign(_k=keys).dropna(subset=["_k"]).groupby("_k")["theme"].agg(lambda s: s.mode().iat[0])
            themes = majority.astype(str).to_dict()
        specs.append(("topics", None, keys, texts, themes))

    layers: list[LabelLayer] = []
    for name, level, keys, texts, themes in specs:
        labels, groups = _layer(name, level, keys.reset_index(drop=True), texts, themes, xy, radius)
        if not labels:
            continue
        if layers:
            min_zoom = max(layers[-1].min_zoom * ZOOM_STEP, float(np.sqrt(len(labels) / LABELS_PER_SCREEN)))
        else:
            min_zoom = 1.0
        font = _FONT_SIZES[min(len(layers), len(_FONT_SIZES) - 1)]
        layers.append(LabelLayer(name, level, round(min_zoom, 3), font, labels, groups))
    return layers


def layers_json(layers: list[LabelLayer], colors: Mapping[str, str], *, groups: bool = False) -> list[dict]:
    """``layers`` as plain JSON for the browser (``labels.js``); ``colors``: theme -> colour of a label.

    ``level`` is the tree level, ``"theme"`` or ``"topic"`` (the ``topic`` column). With ``groups``, each
    layer also carries the node of every drawn paper (for click-to-select).
    """
    out = []
    for layer in layers:
        item = {
            "name": layer.name,
            "level": layer.level if layer.level is not None else ("theme" if layer.name == "themes" else "topic"),
            "min_zoom": layer.min_zoom,
            "font_size": layer.font_size,
            "labels": [
                {
                    "text": lab["text"],
                    "x": round(lab["x"], 5),
                    "y": round(lab["y"], 5),
                    "size": lab["size"],
                    "node": lab["node"],
                    "color": label_color(colors.get(lab["theme"], "#1d1d1f")),
                }
                for lab in layer.labels
            ],
        }
        if groups:
            item["groups"] = layer.groups.tolist()
        out.append(item)
    return out


def labels_js() -> str:
    """The browser code that picks a layer for the zoom and the labels of it to draw (``labels.js``)."""
    return importlib.resources.files(__package__).joinpath("labels.js").read_text(encoding="utf-8")
