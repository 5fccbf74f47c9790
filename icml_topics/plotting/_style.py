"""Shared colours and layout defaults for every figure in ``icml_topics.plotting``.

Theme colours are a pure function of the *set* of names: the same theme gets the same colour in
every figure, whatever order the names arrive in. Pass the full list of themes (for example
``themes_["theme"]``) so that figures showing a subset still agree with the topic map.

Examples:
    >>> from icml_topics.plotting._style import theme_colors
    >>> colors = theme_colors(["Reinforcement learning", "Optimization"])
    >>> colors == theme_colors(["Optimization", "Reinforcement learning"])
    True
"""

from __future__ import annotations

import colorsys
import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import plotly.graph_objects as go

__all__ = [
    "NO_THEME_COLOR",
    "NO_THEME_LABEL",
    "OUTLIER_COLOR",
    "PALETTE",
    "base_layout",
    "fade",
    "hierarchy_trace",
    "label_color",
    "theme_colors",
]

#: Qualitative palette of 40 distinguishable colours: colorcet's Glasbey ``glasbey_category10`` (the
#: ten Tableau/category10 hues first, then colours chosen to be maximally different from all before),
#: leaving out greys (reserved for "no theme" and outliers) and colours too light or dark for points.
#: A map with up to 40 themes never repeats a colour.
PALETTE: tuple[str, ...] = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#3a0183",
    "#0fffa9", "#5e0040", "#d8afa2", "#b80080", "#6b6500", "#7d0200", "#6126ff", "#028268", "#91ff00", "#8300a0",
    "#ad8944", "#ff6f76", "#798cff", "#dd00ff", "#00458a", "#ffbf60", "#ff018d", "#b75700", "#027000", "#cd88ff",
    "#1dd646", "#7a98b5", "#a56089", "#bd7d76", "#8b2945", "#00adff", "#00d4b1", "#9300f3", "#8b9500", "#5d5c9f",
)  # fmt: skip

#: Label and colour used for documents without a theme (empty ``theme`` string).
NO_THEME_LABEL = "(no theme)"
NO_THEME_COLOR = "#b4b4b4"
#: Colour for papers without a topic (topic -1) when they are not drawn in a theme colour.
OUTLIER_COLOR = "#c8c8c8"

_RESERVED = {"": NO_THEME_COLOR, NO_THEME_LABEL: NO_THEME_COLOR}


def _slot(name: str, modulo: int) -> int:
    """Stable (process-independent) preferred palette slot for ``name``."""
    digest = hashlib.blake2b(name.strip().casefold().encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % modulo


def _extra_color(index: int) -> str:
    """The ``index``-th colour beyond the palette (golden-angle hues, alternating lightness)."""
    hue = (index * 0.618033988749895) % 1.0
    light = 0.42 if index % 2 == 0 else 0.6
    r, g, b = colorsys.hls_to_rgb(hue, light, 0.55)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def theme_colors(names: Iterable[object]) -> dict[str, str]:
    """Map each distinct name to a hex colour, deterministically and independent of order.

    Each name prefers the palette slot given by a hash of its text; clashes are resolved in
    sorted-name order, so a theme keeps its colour unless another theme hashes onto the same slot.
    The empty name and ``"(no theme)"`` are always grey. Names beyond the palette size get
    generated colours.

    Args:
        names: the names to colour (repeats and order do not matter).

    Examples:
        >>> theme_colors(["", "Optimization"])[""]
        '#b4b4b4'
    """
    unique = sorted({"" if n is None else str(n) for n in names})
    colors: dict[str, str] = {}
    used: set[int] = set()
    extra = 0
    for name in unique:
        if name in _RESERVED:
            colors[name] = _RESERVED[name]
            continue
        if len(used) >= len(PALETTE):
            colors[name] = _extra_color(extra)
            extra += 1
            continue
        slot = _slot(name, len(PALETTE))
        while slot in used:
            slot = (slot + 1) % len(PALETTE)
        used.add(slot)
        colors[name] = PALETTE[slot]
    return colors


def fade(color: str, amount: float = 0.6, towards: str = "#d9d9d9") -> str:
    """Blend hex ``color`` ``amount`` of the way towards ``towards`` (used for outlier points).

    Examples:
        >>> fade("#000000", 0.5, "#ffffff")
        '#808080'
    """
    a = [int(color.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4)]
    b = [int(towards.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4)]
    mixed = [round(x + (y - x) * amount) for x, y in zip(a, b)]
    return "#" + "".join(f"{c:02x}" for c in mixed)


def base_layout(title: str | None = None, *, height: int = 650) -> dict:
    """Common layout: white background, readable fonts, no plotly.com logo-style clutter."""
    return {
        "title": {"text": title or "", "x": 0.01, "xanchor": "left"},
        "template": "plotly_white",
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 60 if title else 30, "b": 10},
        "font": {"family": "system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif"},
        "hoverlabel": {"align": "left"},
    }


def label_color(color: str, amount: float = 0.45) -> str:
    """``color`` darkened towards black: readable label text in a theme's hue (``#1d1d1f`` for non-hex)."""
    return fade(color, amount, "#000000") if color.startswith("#") and len(color) == 7 else "#1d1d1f"


def hierarchy_trace(
    kind: str,
    ids: list[str],
    labels: list[str],
    parents: list[str],
    values: list[int],
    colors: list[str],
    hover: list[str],
    *,
    maxdepth: int,
) -> go.Treemap | go.Sunburst:
    """The treemap (or sunburst) trace of a hierarchy of papers: sizes add up, white edges, hover text."""
    import plotly.graph_objects as go

    extra = {"insidetextorientation": "radial"} if kind == "sunburst" else {"tiling": {"pad": 2}}
    trace_cls = go.Sunburst if kind == "sunburst" else go.Treemap
    return trace_cls(
        ids=ids,
        labels=labels,
        parents=parents,
        values=values,
        branchvalues="total",
        marker={"colors": colors, "line": {"color": "white", "width": 1}},
        hovertext=hover,
        hoverinfo="text",
        textinfo="label",
        maxdepth=maxdepth,
        **extra,
    )
