"""The 2-D topic map: one point per modelled paper, coloured by research theme.

Examples:
    >>> from icml_topics.plotting import plot_topic_map
    >>> fig = plot_topic_map(model.documents_)
    >>> fig.show()

Every trace carries the document ``id`` in ``customdata`` (one string per point), which is how the
report's search box finds the papers to highlight.
"""

from __future__ import annotations

import functools
import html
import re
import textwrap
from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from icml_topics._validation import require_documents
from icml_topics.corpus.markup import clean_markup
from icml_topics.errors import InvalidValueError
from icml_topics.fitted_tables import modelled_mask

from ._style import NO_THEME_LABEL, OUTLIER_COLOR, base_layout, fade, theme_colors
from .labels import label_layers, layers_json

__all__ = ["drawable_positions", "plain_text", "plot_topic_map"]

_MAX_YEARS_FOR_SELECTOR = 40
_UNSELECTED_OPACITY = 0.07  # points outside the chosen year stay as faint context
_HOVER_COLUMNS = (
    "title",
    "authors",
    "abstract",
    "year",
    "venue",
    "topic",
    "topic_label",
    "theme",
    "theme_score",
    "theme_2",
    "theme_2_score",
)
_ABSTRACT_CHARS = 300


def _text(value: object) -> str:
    """``value`` as a stripped string; NA and None become ``""``."""
    if value is None or (not isinstance(value, (list, tuple, np.ndarray)) and pd.isna(value)):
        return ""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))  # years and topic ids read from float columns: 2024, not 2024.0
    return str(value).strip()


def _as_float(values: pd.Series) -> np.ndarray:
    """``values`` as a float array (non-numbers and NA become NaN), safe to compare with ``==``."""
    return pd.to_numeric(values, errors="coerce").astype("float64").to_numpy()


@functools.lru_cache(maxsize=8192)
def _wrap(text: str, width: int) -> str:
    """HTML-escape ``text`` and wrap it with ``<br>`` for a plotly label."""
    lines = [text] if len(text) <= width else (textwrap.wrap(text, width=width) or [""])
    return "<br>".join(html.escape(line, quote=False) for line in lines)


_SUPERSCRIPT = str.maketrans("0123456789+-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻")


def plain_text(text: str) -> str:
    """LaTeX and markup shown as text: ``E$^2$GAN`` -> ``E²GAN``, ``$\\ell_1$`` -> ``ℓ_1``."""
    if not any(c in text for c in "$\\{<&^"):
        return text

    cleaned = clean_markup(text)
    return re.sub(r"\^\{?([0-9+-]+)\}?", lambda m: m.group(1).translate(_SUPERSCRIPT), cleaned)


def _authors(value: object) -> str:
    names = [a.strip() for a in _text(value).replace(" and ", "; ").split(";") if a.strip()]
    return ", ".join(names[:3]) + (" et al." if len(names) > 3 else "")


def _hover_text(row: dict) -> str:
    """The hover label of one paper: title, authors (first three), year · venue, topic, theme (and the
    runner-up theme when known), then the first 300 characters of the abstract."""
    title = plain_text(_text(row.get("title")))
    abstract = plain_text(_text(row.get("abstract")))
    if not title:
        title = abstract[:90].rstrip() + ("…" if len(abstract) > 90 else "")
    parts = [f"<b>{_wrap(title or '(untitled)', 70)}</b>"]
    authors = _authors(row.get("authors"))
    if authors:
        parts.append(_wrap(authors, 70))
    meta = " · ".join(p for p in (_text(row.get("year")), _text(row.get("venue"))) if p)
    if meta:
        parts.append(html.escape(meta, quote=False))
    topic, label = _text(row.get("topic")), _text(row.get("topic_label"))
    if topic or label:
        topic_line = f"Topic {topic}: {label}" if topic and label else (label or f"Topic {topic}")
        parts.append(_wrap(topic_line, 70))
    theme = _text(row.get("theme"))
    if "theme" in row:
        score = row.get("theme_score")
        score_text = f" ({float(score):.2f})" if theme and score is not None and not pd.isna(score) else ""
        parts.append(_wrap(f"Theme: {theme or NO_THEME_LABEL}{score_text}", 70))
    runner_up = _text(row.get("theme_2"))
    if runner_up:
        score = row.get("theme_2_score")
        score_text = f" ({float(score):.2f})" if score is not None and not pd.isna(score) else ""
        parts.append(_wrap(f"Runner-up theme: {runner_up}{score_text}", 70))
    if abstract:
        snippet = abstract[:_ABSTRACT_CHARS].rstrip() + ("…" if len(abstract) > _ABSTRACT_CHARS else "")
        parts.append(f"<i>{_wrap(snippet, 80)}</i>")
    return "<br>".join(parts)


def drawable_positions(documents: pd.DataFrame, *, caller: str = "plot_topic_map") -> np.ndarray:
    """Positions (``iloc``) of the rows a map draws: modelled (``fitted_tables.modelled_mask``) with finite ``x``, ``y``.

    Examples:
        >>> drawable_positions(model.documents_)[:3]
        array([0, 1, 2])
    """
    missing = [c for c in ("x", "y") if c not in documents.columns]
    if missing:
        raise InvalidValueError(
            f"{caller} needs columns 'x' and 'y' (missing: {', '.join(missing)}); "
            "pass TopicMap.documents_ of a fitted model (see docs/architecture.md)."
        )
    x = pd.to_numeric(documents["x"], errors="coerce").astype("float64").to_numpy()
    y = pd.to_numeric(documents["y"], errors="coerce").astype("float64").to_numpy()
    keep = np.isfinite(x) & np.isfinite(y)
    if "status" in documents.columns:
        keep &= modelled_mask(documents)
    return np.flatnonzero(keep)


def _drawable(documents: pd.DataFrame) -> pd.DataFrame:
    """Modelled rows with finite coordinates, as a copy with numeric ``x``/``y``."""
    frame = documents.iloc[drawable_positions(documents)].reset_index(drop=True)
    frame["x"] = pd.to_numeric(frame["x"], errors="coerce").astype("float64")
    frame["y"] = pd.to_numeric(frame["y"], errors="coerce").astype("float64")
    return frame


def _groups(frame: pd.DataFrame, color: str) -> list[tuple[str, pd.DataFrame]]:
    """Split ``frame`` into (trace name, rows) by the ``color`` column, in display order."""
    if color == "theme":
        key = frame["theme"].astype("string").fillna("").str.strip()
        sizes = key.value_counts()
        order = sorted(sizes.index, key=lambda k: (k == "", -sizes[k], k))
        return [(k or NO_THEME_LABEL, frame.loc[(key == k).to_numpy()]) for k in order]
    if color == "topic":
        topic = _as_float(frame["topic"])
        labels = frame["topic_label"] if "topic_label" in frame.columns else pd.Series("", index=frame.index)
        out = []
        for value in sorted(np.unique(topic[~np.isnan(topic)]), key=lambda t: (t == -1, t)):
            rows = frame.loc[topic == value]
            label = _text(labels.loc[rows.index[0]])
            out.append((f"{int(value)}: {label}" if label else f"Topic {int(value)}", rows))
        return out
    key = frame[color]
    out = []
    for value in sorted(key.dropna().unique(), key=lambda v: (str(type(v)), v)):
        out.append((_text(value), frame.loc[(key == value).fillna(False).to_numpy()]))
    if key.isna().any():
        out.append(("(missing)", frame.loc[key.isna().to_numpy()]))
    return out


def _year_values(frame: pd.DataFrame) -> list[int]:
    years = _as_float(frame["year"])
    return sorted(int(y) for y in np.unique(years[~np.isnan(years)]))


def _year_menu(traces: list[pd.DataFrame], years: list[int]) -> dict:
    """A dropdown that selects one year's points per trace (others stay as faint context)."""
    indices = list(range(len(traces)))
    buttons = [{"label": "All years", "method": "restyle", "args": [{"selectedpoints": [None] * len(traces)}, indices]}]
    trace_years = [_as_float(rows["year"]) for rows in traces]
    for year in years:
        selected = [np.flatnonzero(ty == year).tolist() for ty in trace_years]
        buttons.append({"label": str(year), "method": "restyle", "args": [{"selectedpoints": selected}, indices]})
    return {
        "type": "dropdown",
        "buttons": buttons,
        "active": 0,
        "direction": "down",
        "showactive": True,
        "x": 1.0,  # top right, above the plot area: clear of the left-aligned title and the legend
        "xanchor": "right",
        "y": 1.0,
        "yanchor": "bottom",
        "pad": {"b": 4},
        "bgcolor": "white",
        "name": "year",
    }


def _static_labels(layer: dict, frame: pd.DataFrame, width: float = 1000.0, height: float = 640.0) -> list[dict]:
    """The theme names as plotly annotations over their papers, for a figure shown without the zoom
    script (``fig.show()``): the larger themes first, a name left out where it would overlap one already
    placed in a plot area of about ``width`` x ``height`` px (the report and ``explore()`` redraw them at
    every zoom instead)."""
    x0, x1 = float(frame["x"].min()), float(frame["x"].max())
    y0, y1 = float(frame["y"].min()), float(frame["y"].max())
    sx, sy = width / max(x1 - x0, 1e-9), height / max(y1 - y0, 1e-9)
    placed: list[tuple[float, float, float, float]] = []
    notes = []
    for lab in sorted(layer["labels"], key=lambda lab: -lab["size"]):
        lines = _wrap(lab["text"], 22).split("<br>")
        w = 0.6 * layer["font_size"] * max(len(line) for line in lines) + 6
        h = 1.25 * layer["font_size"] * len(lines) + 4
        cx, cy = (lab["x"] - x0) * sx, (y1 - lab["y"]) * sy
        box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
        if any(not (box[2] <= b[0] or b[2] <= box[0] or box[3] <= b[1] or b[3] <= box[1]) for b in placed):
            continue
        placed.append(box)
        notes.append(
            {
                "x": lab["x"],
                "y": lab["y"],
                "text": "<br>".join(lines),
                "showarrow": False,
                "font": {"size": layer["font_size"], "color": lab["color"]},
                "bgcolor": "rgba(255,255,255,0.78)",
                "borderpad": 1,
                "name": "theme-label",
            }
        )
    return notes


def plot_topic_map(
    documents: pd.DataFrame,
    *,
    color: str = "theme",
    label_themes: bool = True,
    by_year: bool | None = None,
    max_points: int | None = None,
    title: str | None = None,
    point_size: float | None = None,
    colors: Mapping[str, str] | None = None,
    topic_tree: pd.DataFrame | None = None,
) -> go.Figure:
    """Scatter plot of the paper map (one WebGL trace per colour group; legend toggles groups).

    Args:
        documents: the ``documents_`` table (columns ``x, y, theme, topic, title, year, ...``).
            Dropped rows (``status != "ok"``) and rows without coordinates are not drawn.
        color: column that defines the traces: ``"theme"`` (default), ``"topic"``, ``"year"``,
            ``"venue"`` or any other categorical column.
        label_themes: name the themes and topics over their papers. The figure carries label layers
            (``layout.meta["label_layers"]``, see ``icml_topics.plotting.labels``): in the report the
            names follow the zoom (themes zoomed out, coarser then finer topics zoomed in, never
            overlapping); shown on its own, the figure writes the larger theme names as annotations.
        by_year: add an "All years / 2013 / 2014 ..." dropdown; by default when ``year`` has
            2 to 40 distinct values.
        max_points: draw a deterministic random sample of at most this many papers.
        title: figure title (default ``"Topic map · N papers"``).
        point_size: marker size in pixels (default: 9 below 300 papers, 6 below 3,000, else 4); topic
            ``-1`` outliers are drawn smaller and greyer.
        colors: group name → colour; default [`theme_colors`][icml_topics.plotting.theme_colors] of all themes in ``documents``.
            Pass one mapping to every figure of a report so they agree even on theme subsets.
        topic_tree: ``TopicMap.topic_tree_`` (columns ``level, topic, label, theme``): one label layer per
            level, with the ``topic_<level>`` columns of ``documents``; without it, the ``topic`` column.

    Examples:
        >>> fig = plot_topic_map(model.documents_, by_year=True)
    """
    require_documents(documents)
    if color not in documents.columns:
        raise InvalidValueError(
            f"color={color!r} is not a column of documents; use one of "
            f"{sorted(c for c in ('theme', 'topic', 'year', 'venue') if c in documents.columns)}."
        )
    if max_points is not None and max_points < 1:
        raise InvalidValueError(f"max_points must be a positive integer or None, got {max_points!r}.")
    frame = _drawable(documents)
    n_total = len(frame)
    if max_points is not None and n_total > max_points:
        frame = frame.sample(n=max_points, random_state=0).sort_index()

    if point_size is None:
        point_size = 9 if len(frame) < 300 else 6 if len(frame) < 3000 else 4
    groups = _groups(frame, color)
    if "topic" in frame.columns:  # outliers last: the legend shows a trace's first point, in the full colour
        groups = [(name, rows.iloc[np.argsort(_as_float(rows["topic"]) == -1, kind="stable")]) for name, rows in groups]
    if colors is None:
        names = documents["theme"].astype("string").fillna("").str.strip() if color == "theme" else None
        colors = theme_colors(names if names is not None else [name for name, _ in groups])
    colors = {**theme_colors([NO_THEME_LABEL]), **colors}
    colors[NO_THEME_LABEL] = colors.get("", colors[NO_THEME_LABEL])

    columns = [c for c in _HOVER_COLUMNS if c in frame.columns]
    rows_of_values = zip(*(frame[c].tolist() for c in columns)) if columns else [()] * len(frame)
    hover = pd.Series(
        [_hover_text(dict(zip(columns, values))) for values in rows_of_values],
        index=frame.index,
        dtype=object,
    )
    fig = go.Figure()
    for name, rows in groups:
        base = colors.get(name, OUTLIER_COLOR)
        if color == "topic" and name.startswith("-1"):
            base = OUTLIER_COLOR
        outlier = _as_float(rows["topic"]) == -1 if "topic" in rows.columns else np.zeros(len(rows), dtype=bool)
        if outlier.any():
            marker = {
                "size": np.where(outlier, point_size * 0.6, point_size).tolist(),
                "color": np.where(outlier, fade(base, 0.6), base).tolist(),
            }
        else:
            marker = {"size": point_size, "color": base}
        ids = rows["id"].astype("string").fillna("") if "id" in rows.columns else rows.index.astype(str)
        fig.add_trace(
            go.Scattergl(
                x=np.round(rows["x"].to_numpy(), 5).tolist(),  # plain JSON numbers: easy for the search JS
                y=np.round(rows["y"].to_numpy(), 5).tolist(),
                mode="markers",
                name=name,
                legendgroup=name,
                marker={**marker, "opacity": 0.85},
                unselected={"marker": {"opacity": _UNSELECTED_OPACITY}},
                customdata=np.asarray(ids, dtype=object),
                hovertext=hover.loc[rows.index].tolist(),
                hovertemplate="%{hovertext}<extra></extra>",
            )
        )

    shown = f"showing {len(frame):,} of {n_total:,} papers" if len(frame) < n_total else f"{n_total:,} papers"
    layout = base_layout(title if title is not None else f"Topic map · {shown}", height=700)
    layout.update(
        xaxis={"visible": False},
        yaxis={"visible": False},
        legend={"itemsizing": "constant", "title": {"text": color.replace("_", " ").capitalize()}},
        hovermode="closest",
        dragmode="zoom",
        meta={"icml_topics": "topic_map"},
    )
    fig.update_layout(**layout)

    n_legend = len(groups)
    fig.layout.height = max(fig.layout.height or 700, 140 + 30 * n_legend)  # room for every legend entry
    if label_themes and len(frame):
        layers = layers_json(label_layers(frame, topic_tree), colors)
        if layers:
            fig.update_layout(meta={"icml_topics": "topic_map", "label_layers": layers})
            if layers[0]["level"] == "theme":
                fig.update_layout(annotations=_static_labels(layers[0], frame))
    if by_year is None:
        by_year = "year" in frame.columns and 2 <= len(_year_values(frame)) <= _MAX_YEARS_FOR_SELECTOR
    if by_year:
        if "year" not in frame.columns:
            raise InvalidValueError("by_year=True needs a 'year' column in documents; pass by_year=False or add years.")
        years = _year_values(frame)
        if len(years) >= 2:
            fig.update_layout(updatemenus=[_year_menu([rows for _, rows in groups], years)])
            fig.layout.margin.t = max(fig.layout.margin.t or 0, 70)
    return fig
