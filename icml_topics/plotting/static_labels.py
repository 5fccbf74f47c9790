"""The static map's theme labels: each points at its theme's largest dense region, and no two leader lines cross.

DataMapPlot's ``create_plot`` points a label at the mean of its papers; a theme spread over several clouds then
has its line end in another theme's cloud. ``render_with_anchors`` draws the map with DataMapPlot's own
``render_plot`` and each label's anchor at [`label_anchor`][icml_topics.plotting.labels.label_anchor] of its
papers (the one rule of where a name sits, shared with the interactive maps: here the densest paper of the
theme's largest dense region, so the line ends on a paper of its theme), and ``uncross_leaders`` then
swaps the text positions of two labels whose lines cross, as long as that makes no two labels overlap: a swap
shortens the lines' total length, so the swaps end, and they end with no crossing wherever the swaps can
reach one.

Examples:
    >>> fig, ax = render_with_anchors(datamapplot, xy, labels, options)  # doctest: +SKIP
    >>> uncross_leaders(fig, ax)  # doctest: +SKIP
    0
"""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np
import pandas as pd

from .labels import label_anchor, map_radius

__all__ = ["crossing_pairs", "label_leaders", "render_with_anchors", "uncross_leaders"]

_MAX_SWEEPS = 50  # passes over the crossing pairs (each swap shortens the lines: far fewer are ever needed)


def render_with_anchors(datamapplot: Any, xy: np.ndarray, labels: np.ndarray, options: dict[str, Any]):
    """``datamapplot.create_plot(xy, labels, **options)``, but with each label at its papers' ``label_anchor``.

    ``options`` holds ``create_plot``'s keywords as ``plot_map_static`` sets them (``label_color_map``,
    ``marker_color_array``, ``noise_label``, ...) and any others for ``render_plot``.
    """
    from datamapplot.palette_handling import deep_palette, pastel_palette

    options = dict(options)
    noise = options.pop("noise_label", "Unlabelled")
    color_map = options.pop("label_color_map")
    wrap = options.pop("label_wrap_width", 16)
    colors = options.pop("marker_color_array", None)
    text_colored = options.pop("color_label_text", True)
    arrows_colored = options.pop("color_label_arrows", False)
    for unused in ("use_medoids", "cmap", "cvd_safer", "palette_hue_shift", "palette_hue_radius_dependence"):
        options.pop(unused, None)
    names = [name for name in np.unique(labels) if name != noise]
    radius = map_radius(xy)
    anchors = np.array([_anchor(xy, labels, name, radius) for name in names]).reshape(-1, 2)
    sizes = pd.Series(labels).value_counts()
    label_colors = [color_map[name] for name in names]
    darkmode = options.get("darkmode", False)
    if isinstance(text_colored, str):
        text_colors = text_colored
    elif text_colored and label_colors:
        text_colors = pastel_palette(label_colors) if darkmode else deep_palette(label_colors)
    else:
        text_colors = None
    if options.get("highlight_labels") is not None:
        options["highlight_labels"] = [
            textwrap.fill(x, width=wrap, break_long_words=False) for x in options["highlight_labels"]
        ]
    n, (width, height) = len(xy), options.get("figsize", (12, 12))
    magic = float(np.clip(128 * 4 ** (-np.log10(max(n, 1))), 0.05, 64))  # create_plot's point size and alpha
    options.setdefault("point_size", magic * np.sqrt(width * height) / 2)
    options.setdefault("alpha", float(np.clip(magic, 0.05, 1)))
    return datamapplot.render_plot(
        xy,
        list(colors) if colors is not None else [color_map.get(x, options.get("noise_color")) for x in labels],
        [textwrap.fill(name, width=wrap, break_long_words=False) for name in names],
        anchors,
        np.asarray([sizes[name] for name in names]),
        label_text_colors=text_colors,
        label_arrow_colors=(arrows_colored if isinstance(arrows_colored, str) else label_colors)
        if arrows_colored
        else None,
        highlight_colors=label_colors,
        **options,
    )


def _anchor(xy: np.ndarray, labels: np.ndarray, name: str, radius: float, k: int = 5) -> np.ndarray:
    """Where the line of label ``name`` ends: the densest paper of the theme's largest dense region
    (``label_anchor``) when most of its ``k`` nearest papers are of the theme; else, for a theme whose papers
    are mixed with others', the paper of the theme whose nearest papers are most of the theme (ties: the one
    nearest that densest paper), so the line never ends in another theme's cloud where it can avoid it."""
    from scipy.spatial import cKDTree

    own = labels == name
    peak = np.asarray(label_anchor(xy[own], radius, on_point=True))
    k = min(k, int(own.sum()))
    mine = xy[own]
    share = own[cKDTree(xy).query(mine, k=k)[1].reshape(len(mine), k)].mean(axis=1)
    at_peak = int(np.argmin(((mine - peak) ** 2).sum(axis=1)))
    if 2 * share[at_peak] >= 1:
        return peak
    best = np.lexsort((((mine - peak) ** 2).sum(axis=1), -share))[0]
    return mine[best]


def label_leaders(ax) -> list:
    """The labels of ``ax`` drawn with a leader line (matplotlib ``Annotation``), each once (DataMapPlot may
    draw a label twice, an outline copy under the text: the copies move together in ``uncross_leaders``)."""
    from matplotlib.text import Annotation

    return [a for a in ax.texts if isinstance(a, Annotation) and a.arrow_patch is not None]


def _side(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
    return float(np.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])))


def _cross(p1: np.ndarray, q1: np.ndarray, p2: np.ndarray, q2: np.ndarray) -> bool:
    return _side(p1, q1, p2) * _side(p1, q1, q2) < 0 and _side(p2, q2, p1) * _side(p2, q2, q1) < 0


def crossing_pairs(segments: np.ndarray) -> list[tuple[int, int]]:
    """Pairs ``(i, j)`` of segments (``(n, 2, 2)``: start and end points) that cross (touching ends excluded).

    Examples:
        >>> crossing_pairs(np.array([[[0, 0], [1, 1]], [[0, 1], [1, 0]], [[2, 2], [3, 3]]], float))
        [(0, 1)]
    """
    return [
        (i, j)
        for i in range(len(segments))
        for j in range(i + 1, len(segments))
        if _cross(segments[i][0], segments[i][1], segments[j][0], segments[j][1])
    ]


def uncross_leaders(fig, ax) -> int:
    """Swap the text positions of labels whose leader lines (text centre to anchor) cross, where the swap
    overlaps no other text; the number of crossings left."""
    artists = label_leaders(ax)
    groups: dict[str, list] = {}
    for artist in artists:
        groups.setdefault(artist.get_text(), []).append(artist)
    texts = list(groups)
    if len(texts) < 2:
        return 0
    anchors = np.array([np.asarray(groups[t][0].xy, dtype=float) for t in texts])
    spots = np.array([np.asarray(groups[t][0].xyann, dtype=float) for t in texts])
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    from matplotlib.text import Text

    others = [a for a in fig.findobj(Text) if a.get_visible() and a.get_text().strip() and a not in artists]

    def place(k: int, spot: np.ndarray) -> None:
        for artist in groups[texts[k]]:
            artist.xyann = (float(spot[0]), float(spot[1]))

    def box(k: int):
        return groups[texts[k]][0].get_window_extent(renderer).expanded(1.02, 1.05)

    def clear(k: int) -> bool:
        mine = box(k)
        inside = fig.bbox.contains(mine.x0, mine.y0) and fig.bbox.contains(mine.x1, mine.y1)
        return (
            inside
            and not any(mine.overlaps(box(m)) for m in range(len(texts)) if m != k)
            and not any(mine.overlaps(o.get_window_extent(renderer)) for o in others)
        )

    for _ in range(_MAX_SWEEPS):
        swapped = False
        for i, j in crossing_pairs(np.stack([spots, anchors], axis=1)):
            if not _cross(spots[i], anchors[i], spots[j], anchors[j]):
                continue  # an earlier swap of this sweep uncrossed them
            place(i, spots[j])
            place(j, spots[i])
            if clear(i) and clear(j):
                spots[[i, j]] = spots[[j, i]]
                swapped = True
            else:
                place(i, spots[i])
                place(j, spots[j])
        if not swapped:
            break
    return len(crossing_pairs(np.stack([spots, anchors], axis=1)))
