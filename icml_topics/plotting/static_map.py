"""A publication map with DataMapPlot: theme labels placed around the map with leader lines, no
overlaps, a legend under it for the colours too small to label, print resolution. Offline: system fonts
only (DejaVu Sans), never Google Fonts; Agg backend.

Examples:
    >>> from icml_topics.plotting.static_map import plot_map_static, save_map
    >>> fig = plot_map_static(model.documents_, title="ICML 2013-2024")
    >>> save_map(fig, "map.png")  # also .svg, .pdf

``label_boxes`` gives every text's box in display pixels; the tests use it to check that no label
overlaps another or leaves the figure.
"""

from __future__ import annotations

import contextlib
import io
import os
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from icml_topics.errors import InvalidValueError
from icml_topics.fitted_tables import modelled_rows
from icml_topics.store.cache import cached_files, code_signature, content_key

from .._io import atomic_write_bytes
from .._wording import counted
from ._style import NO_THEME_COLOR, fade, theme_colors
from .map_key import add_legend, map_key
from .static_labels import render_with_anchors, uncross_leaders

__all__ = [
    "MAP_COLUMNS",
    "MAP_EXTENT",
    "MAP_FORMATS",
    "PRINT_DPI",
    "SCREEN_DPI",
    "check_map_dpi",
    "drawn_coordinates",
    "label_boxes",
    "overlapping_labels",
    "parse_map_formats",
    "plot_map_static",
    "save_map",
    "write_map_files",
]

MAP_FORMATS = ("png", "svg", "pdf")
MAP_COLUMNS = ("x", "y", "theme", "topic", "topic_label", "status")
"""The columns of ``documents_`` a static map is drawn from (and cached by): no other column changes it."""
FONT = "DejaVu Sans"  # ships with matplotlib: nothing to download
_NOISE = "Unlabelled"


def _matplotlib():
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "module://matplotlib_inline.backend_inline", "pdf", "svg"):
        matplotlib.use("Agg", force=True)  # no display, no GUI event loop
    import matplotlib.pyplot as plt

    return plt


def _frame(documents: pd.DataFrame) -> pd.DataFrame:
    if not isinstance(documents, pd.DataFrame) or not {"x", "y", "theme"} <= set(documents.columns):
        raise InvalidValueError("plot_map_static needs TopicMap.documents_ (columns x, y, theme); fit a model first.")
    frame = documents.copy()
    if "status" in frame.columns:
        frame = modelled_rows(frame)
    xy = frame[["x", "y"]].apply(pd.to_numeric, errors="coerce")
    frame = frame[np.isfinite(xy.to_numpy()).all(axis=1)].copy()
    frame[["x", "y"]] = xy.loc[frame.index]
    if frame.empty:
        raise InvalidValueError("No modelled paper has map coordinates: nothing to draw.")
    return frame.reset_index(drop=True)


def plot_map_static(
    documents: pd.DataFrame,
    *,
    title: str | None = None,
    subtitle: str | None = None,
    topic_labels: bool = False,
    max_topic_labels: int = 25,
    colors: Mapping[str, str] | None = None,
    figsize: tuple[float, float] = (12, 12),
    dpi: int = 100,
    label_wrap_width: int = 18,
    **datamapplot_kwargs: Any,
):
    """The topic map as a matplotlib Figure drawn by ``datamapplot.create_plot``.

    Args:
        documents: ``TopicMap.documents_``. Every paper is drawn in its theme's colour (a paper of a theme
            but without a topic, ``-1``, as in a table from an older model, lighter); papers without a theme
            are grey. A theme is named over its papers
            from ``3`` clustered papers on; every other colour (smaller themes, grey) has a legend entry under
            the map with its paper count (``icml_topics.plotting.map_key``).
        title: printed above the map (default: "Topic map").
        subtitle: printed under the title (default: the paper and theme counts, themes counted as
            ``TopicMap.themes_`` counts them: every theme with a modelled paper).
        topic_labels: also write the larger topics' names inside the map (second level, small text);
            a topic name that would touch another label is left out.
        max_topic_labels: at most this many topic names (largest topics first) with ``topic_labels``.
        colors: theme -> colour; default [`theme_colors`][icml_topics.plotting.theme_colors], as in the report.
        figsize: figure size in inches (width, height).
        dpi: screen resolution (``save_map`` writes at 300 dpi).
        label_wrap_width: theme names wrap onto a new line after this many characters.
        **datamapplot_kwargs: passed on to ``datamapplot.create_plot`` (e.g. ``darkmode=True``).

    Returns:
        fig (matplotlib.figure.Figure): the map, ready for ``savefig``.

    Examples:
        >>> fig = plot_map_static(tm.documents_, title="ICML 2024", topic_labels=True)
    """
    plt = _matplotlib()
    import datamapplot  # here, not at module level: its import compiles datashader's edge bundling (seconds)

    frame = _frame(documents)
    frame[["x", "y"]] = drawn_coordinates(frame)
    theme = frame["theme"].astype("string").fillna("").str.strip()
    outlier = (
        pd.to_numeric(frame["topic"], errors="coerce").fillna(-1).to_numpy() == -1
        if "topic" in frame.columns
        else np.zeros(len(frame), dtype=bool)
    )
    palette = (
        dict(colors) if colors is not None else theme_colors(documents["theme"].astype("string").fillna("").str.strip())
    )
    key = map_key(theme, outlier, palette)  # every colour named: over its papers, or in the legend under the map
    labelled = set(key.labelled)
    clustered = theme.where(~outlier, "")  # labels sit over a theme's clustered papers
    labels = np.array([t if t in labelled else _NOISE for t in clustered], dtype=object)
    color_map = {name: palette.get(name, NO_THEME_COLOR) for name in labelled}
    color_map[_NOISE] = NO_THEME_COLOR
    if title is None:
        title = "Topic map"
    if subtitle is None:
        n_themes = int(theme[theme != ""].nunique())  # as themes_: every theme with a modelled paper
        subtitle = f"{counted(len(frame), 'paper')} · {counted(n_themes, 'research theme')}"
        if key.outliers:
            subtitle += f" · lighter dots: {counted(key.outliers, 'paper')} in no topic"
    options = {
        "marker_color_array": _point_colors(theme, outlier, palette),
        "noise_label": _NOISE,
        "noise_color": NO_THEME_COLOR,
        "label_color_map": color_map,
        "label_wrap_width": label_wrap_width,
        "figsize": figsize,
        "dpi": dpi,
        "dynamic_label_size": True,
        "min_font_size": 9,
        "max_font_size": 15,
        "font_family": FONT,
        "use_system_fonts": True,  # never ask Google Fonts (no network; a hang there would be a failure)
        "force_matplotlib": True,
        "min_font_weight": 400,
        "max_font_weight": 700,
        "arrowprops": {"arrowstyle": "-", "linewidth": 0.6, "color": "#555555"},
        "color_label_text": True,
        # DataMapPlot's default glow (patches of up to 384 px, upscaled 12x per theme) took 3.1 GB for
        # 13,725 papers in 31 themes; patches of 16 px look the same in print and stay under 0.1 GB
        "glow_keywords": {"kernel": "gaussian", "kernel_bandwidth": 0.25, "approx_patch_size": 16},
    }
    if len(labelled) == 1:  # DataMapPlot's ring placement and label sizing both assume several labels
        options.update(label_over_points=True, dynamic_label_size=False)
    options.update(datamapplot_kwargs)
    import logging

    font_log = logging.getLogger("matplotlib.font_manager")
    level = font_log.level
    font_log.setLevel(logging.ERROR)  # DataMapPlot asks for weights like 455; DejaVu Sans has 400 and 700
    try:
        with plt.rc_context({"font.family": FONT}):
            fig, ax = _draw(datamapplot, frame, labels, options, key, (title, subtitle), topic_labels, max_topic_labels)
        fig.canvas.draw()
    finally:
        font_log.setLevel(level)
    return fig


MAP_EXTENT = 20.0
"""The widest map, in map units, drawn at its own scale; a wider one is drawn scaled down to this width."""


def drawn_coordinates(frame: pd.DataFrame) -> np.ndarray:
    """The papers' ``x, y`` as the static map draws them: in DataMapPlot's units.

    DataMapPlot's glow (a kernel 0.25 units wide on patches of 16 px per 6 units, the floor 16 px) and its
    label spacing are made for UMAP's maps, 5 to 20 units across. t-SNE's maps of small corpora are often far
    wider (the 38 seed abstracts' from about 10 to over 100 units, with the last digits of their vectors); at
    hundreds of units, unscaled, the glow was too thin to see and filled patches of 384 px upsampled 12x (25 of
    the 34 s the 38-paper demo's map took). A map wider than ``MAP_EXTENT`` is scaled down to that width,
    the same factor on both axes, so its shape is kept.
    """
    xy = frame[["x", "y"]].to_numpy(dtype=np.float64)
    extent = float(np.ptp(xy, axis=0).max()) if len(xy) else 0.0
    return xy / (extent / MAP_EXTENT) if extent > MAP_EXTENT else xy


def _point_colors(theme: pd.Series, outlier: np.ndarray, palette: Mapping[str, str]) -> list[str]:
    """Each paper's theme colour (outliers faded towards light grey, as in the report); grey without a theme."""
    faded: dict[str, str] = {}
    out = []
    for name, is_outlier in zip(theme.tolist(), outlier.tolist()):
        color = palette.get(name, NO_THEME_COLOR) if name else NO_THEME_COLOR
        if is_outlier and name and color.startswith("#") and len(color) == 7:
            color = faded.setdefault(color, fade(color, 0.55, "#ffffff"))
        out.append(color)
    return out


def _draw(datamapplot, frame, labels, options, key, header, topic_labels, max_topic_labels):
    # labels over points go through pylabeladjust, whose progress bar (stderr) and "Resetting positions to
    # accord with alignment" print (stdout) have no switch: keep both clean (our log handlers keep their streams)
    quiet = contextlib.ExitStack()
    if options.get("label_over_points"):
        quiet.enter_context(contextlib.redirect_stderr(io.StringIO()))
        quiet.enter_context(contextlib.redirect_stdout(io.StringIO()))
    with quiet:
        fig, ax = render_with_anchors(datamapplot, frame[["x", "y"]].to_numpy(dtype=np.float64), labels, options)
    if not options.get("label_over_points"):
        uncross_leaders(fig, ax)  # before the legend and the header: they move nothing DataMapPlot placed
    add_legend(fig, ax, key, font=FONT)  # before the header: the legend grows the figure at the bottom
    _add_header(fig, ax, *header)
    if topic_labels and "topic_label" in frame.columns:
        _add_topic_labels(fig, ax, frame, max_topic_labels)
    return fig, ax


def _add_header(fig, ax, title: str, subtitle: str, header_inches: float = 1.1) -> None:
    """Title and subtitle in a band above the map: the figure grows by ``header_inches`` and the map
    keeps its size in inches, so the labels DataMapPlot placed keep their spacing."""
    fig.canvas.draw()
    fig.set_layout_engine("none")
    width, height = fig.get_size_inches()
    x0, y0, w, h = ax.get_position().bounds
    new_height = height + header_inches
    fig.set_size_inches(width, new_height)
    ax.set_position([x0, y0 * height / new_height, w, h * height / new_height])
    top = 1 - 0.25 / new_height
    fig.text(0.03, top, title, ha="left", va="top", fontsize=22, fontweight="bold", fontfamily=FONT, color="#111111")
    for spine in ax.spines.values():
        spine.set_visible(False)
    fig.text(0.03, top - 0.5 / new_height, subtitle, ha="left", va="top", fontsize=13, fontfamily=FONT, color="#555555")


def _add_topic_labels(fig, ax, frame: pd.DataFrame, limit: int) -> None:
    """Small topic names at their topic's median point, largest topics first, skipped where they would
    touch a label already drawn."""
    topic = pd.to_numeric(frame["topic"], errors="coerce").fillna(-1).astype(int)
    sizes = topic[topic != -1].value_counts()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    placed = [b for _, b in label_boxes(fig)]
    shown = 0
    for t in sizes.index:
        if shown >= limit:
            break
        rows = frame[topic == t]
        text = textwrap.fill(str(rows["topic_label"].iloc[0]), 24, break_long_words=False)
        artist = ax.text(
            float(rows["x"].median()),
            float(rows["y"].median()),
            text,
            fontsize=7,
            ha="center",
            va="center",
            color="#222222",
            fontfamily=FONT,
            zorder=5,
            bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "alpha": 0.6, "linewidth": 0},
        )
        box = artist.get_window_extent(renderer).expanded(1.05, 1.1)
        box = box.expanded(1.0, 1.0)
        if (
            any(box.overlaps(other) for other in placed)
            or not fig.bbox.contains(box.x0, box.y0)
            or not fig.bbox.contains(box.x1, box.y1)
        ):
            artist.remove()
            continue
        placed.append(box)
        shown += 1


def label_boxes(fig) -> list[tuple[str, Any]]:
    """``(text, bbox)`` of every non-empty text of ``fig`` (labels, title, subtitle), in display pixels."""
    from matplotlib.text import Text

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    out, seen = [], set()
    for artist in fig.findobj(Text):
        if id(artist) in seen or not artist.get_visible() or not artist.get_text().strip():
            continue
        seen.add(id(artist))
        # Text's own box: an Annotation's box would include its leader line
        box = Text.get_window_extent(artist, renderer)
        # DataMapPlot draws each label twice (an outline copy under the text): count it once
        if any(text == artist.get_text() and abs(b.x0 - box.x0) < 2 and abs(b.y0 - box.y0) < 2 for text, b in out):
            continue
        out.append((artist.get_text(), box))
    return out


def overlapping_labels(fig) -> list[tuple[str, str]]:
    """Pairs of texts of ``fig`` whose boxes overlap (empty for a readable map).

    Args:
        fig (matplotlib.figure.Figure): a map from [`plot_map_static`][icml_topics.plotting.plot_map_static].

    Examples:
        >>> from icml_topics.plotting.static_map import overlapping_labels
        >>> overlapping_labels(tm.plot_map_static())
        []
    """
    boxes = label_boxes(fig)
    return [(a, b) for i, (a, ba) in enumerate(boxes) for b, bb in boxes[i + 1 :] if ba.overlaps(bb)]


def save_map(fig, path: str | os.PathLike, *, dpi: int = 300) -> Path:
    """Write the static map as PNG, SVG or PDF (from the suffix) at ``dpi``, atomically.

    Args:
        fig (matplotlib.figure.Figure): a map from [`plot_map_static`][icml_topics.plotting.plot_map_static].
        path: the file to write; ``.png``, ``.svg`` or ``.pdf``.
        dpi: the resolution.

    Examples:
        >>> save_map(plot_map_static(model.documents_), "figures/map.pdf")
    """
    target = Path(path)
    fmt = target.suffix.lower().lstrip(".")
    if fmt not in MAP_FORMATS:
        raise InvalidValueError(
            f"Cannot write a static map as {target.suffix or 'a file without suffix'}; use .png, .svg or .pdf."
        )
    atomic_write_bytes(target, _map_bytes(fig, fmt, dpi))
    return target


def _map_bytes(fig, fmt: str, dpi: int) -> bytes:
    buffer = io.BytesIO()
    metadata = {"Software": None} if fmt == "png" else ({"Date": None} if fmt == "svg" else None)
    fig.savefig(buffer, format=fmt, dpi=dpi, facecolor=fig.get_facecolor(), metadata=metadata)
    return buffer.getvalue()


SCREEN_DPI = 100
"""Resolution of the default ``map.png`` (1200 px wide): quick to draw and to open. ``--map-dpi 300`` for print."""
PRINT_DPI = 300


def parse_map_formats(value: str | None) -> tuple[str, ...]:
    """``"png,svg"`` -> ``("png", "svg")``; ``"none"`` or ``""`` -> ``()`` (no static map).

    Examples:
        >>> parse_map_formats("svg, png"), parse_map_formats("none")
        (('png', 'svg'), ())
    """
    if value is None:
        return ("png",)
    parts = [p.strip().lower().lstrip(".") for p in str(value).split(",") if p.strip()]
    if parts in ([], ["none"]):
        return ()
    unknown = [p for p in parts if p not in MAP_FORMATS]
    if unknown:
        raise InvalidValueError(
            f"--maps {value!r}: unknown format {unknown[0]!r}; use a comma list of {', '.join(MAP_FORMATS)} "
            "(e.g. --maps png,svg), or none"
        )
    return tuple(f for f in MAP_FORMATS if f in parts)


def check_map_dpi(dpi: int) -> int:
    """``dpi`` when it is a sensible resolution (50..1200), else an ``InvalidValueError`` naming the fix."""
    if isinstance(dpi, bool) or not isinstance(dpi, int) or not 50 <= dpi <= 1200:
        raise InvalidValueError(f"map dpi must be an integer from 50 to 1200 (300 for print), got {dpi!r}")
    return dpi


def write_map_files(
    documents: pd.DataFrame,
    folder: str | os.PathLike,
    *,
    title: str = "Topic map",
    formats: tuple[str, ...] = ("png",),
    dpi: int = SCREEN_DPI,
    cache_dir: str | os.PathLike | None = None,
) -> dict[str, Path]:
    """Draw the static map once and write ``map.<fmt>`` for each of ``formats`` into ``folder``.

    The default is one PNG at screen resolution (100 dpi, 1200 px wide); ``dpi=300`` gives print
    resolution (3600 px wide); SVG and PDF are vector files (``dpi`` only sets their point markers' raster).
    ``cache_dir``: the files drawn for the same papers, coordinates, themes, title, formats and
    resolution by an earlier run are copied from there (drawing takes seconds; a re-run copies).

    Examples:
        >>> write_map_files(tm.documents_, "out/", formats=("png", "svg"), dpi=300)
    """

    check_map_dpi(dpi)
    formats = tuple(f for f in MAP_FORMATS if f in formats)
    if not formats:
        return {}

    def draw() -> dict[str, bytes]:
        plt = _matplotlib()
        fig = plot_map_static(documents, title=title)
        try:
            return {fmt: _map_bytes(fig, fmt, dpi) for fmt in formats}
        finally:
            plt.close(fig)

    columns = [c for c in MAP_COLUMNS if c in documents.columns]
    key = content_key(
        "static-map-v1",
        code_signature("icml_topics.plotting", distributions=("matplotlib", "datamapplot")),
        title,
        formats,
        dpi,
        columns,
        documents[columns].to_csv(index=False),
    )
    blobs = cached_files(f"map-{key}", draw, Path(cache_dir) if cache_dir is not None else None)
    paths = {}
    for fmt in formats:
        paths[f"map_{fmt}"] = Path(folder) / f"map.{fmt}"
        atomic_write_bytes(paths[f"map_{fmt}"], blobs[fmt])
    return paths
