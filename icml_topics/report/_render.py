"""HTML fragments for the report: escaped text, tables, metric cards, JSON safe inside ``<script>``.

Everything user-supplied goes through ``html.escape``; nothing here emits external URLs.

Examples:
    >>> from icml_topics.report._render import text_to_html
    >>> text_to_html("Uses **BERTopic** & <b>UMAP</b>")
    '<p>Uses <strong>BERTopic</strong> &amp; &lt;b&gt;UMAP&lt;/b&gt;</p>'
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Callable, Mapping
from numbers import Integral, Real

import numpy as np
import pandas as pd

from .. import schema

__all__ = ["cell_text", "column_format", "json_for_script", "metrics_html", "slugify", "table_html", "text_to_html"]

_INLINE = [
    (re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
    (re.compile(r"\*\*([^*]+)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"(?<![*\w])\*([^*\s][^*]*)\*(?![*\w])"), r"<em>\1</em>"),
]


def _inline(text: str) -> str:
    out = html.escape(schema.printable(text), quote=False)
    for pattern, repl in _INLINE:
        out = pattern.sub(repl, out)
    return out


def text_to_html(text: str) -> str:
    """Markdown-ish text to HTML: blank-line paragraphs, ``- `` bullet lists, `code`, **bold**, *em*.

    All other characters are escaped, so ``<script>`` in the text is shown, never run.
    """
    blocks = [b for b in re.split(r"\n\s*\n", str(text).strip()) if b.strip()]
    parts = []
    for block in blocks:
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        if all(line.startswith(("- ", "* ")) for line in lines):
            items = "".join(f"<li>{_inline(line[2:])}</li>" for line in lines)
            parts.append(f"<ul>{items}</ul>")
        else:
            parts.append(f"<p>{_inline(' '.join(lines))}</p>")
    return "\n".join(parts)


def slugify(text: str, taken: set[str]) -> str:
    """A unique HTML id for a heading (ASCII letters, digits and dashes)."""
    base = re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "section"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


def _int_text(value: int) -> str:
    """Thousands separators from five digits on, so years and ids stay as written (2024, 12,345)."""
    return f"{value:,}" if abs(value) >= 10_000 else str(value)


def cell_text(value: object) -> str:
    """Display text of one value: lists joined with ``"; "``, NA empty, numbers rounded readably."""
    if schema.is_list_cell(value):
        return schema.printable(schema.join_cell(value))
    if value is None or value is pd.NA or value is pd.NaT:
        return ""
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, Integral):
        return _int_text(int(value))
    if isinstance(value, Real):
        v = float(value)
        if math.isnan(v):
            return ""
        if v.is_integer() and abs(v) < 1e15:
            return _int_text(int(v))
        return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3g}"
    return schema.printable(str(value))  # no control character reaches the page


def column_format(column: pd.Series, name: object) -> Callable[[object], str]:
    """One number format for a whole table column, so its cells read alike: a percent column (``%`` or ``pp``
    in its name) with one decimal; a column of whole numbers as integers, with thousands separators from
    1,000 (not in a year or period column); other numbers with the decimals its largest value needs for
    three significant digits (0.26 and 8.00, never 0.262 and 8); anything else as ``cell_text``.

    Examples:
        >>> f = column_format(pd.Series([0.262, 8.0]), "share")
        >>> [f(0.262), f(8.0)]
        ['0.26', '8.00']
    """
    if not pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return cell_text
    values = pd.to_numeric(column, errors="coerce").astype("float64").to_numpy()
    values = values[np.isfinite(values)]
    label = str(name).lower()
    if "%" in label or "pp" in label.replace("(", " ").replace(")", " ").split():
        decimals, separators = 1, True
    elif not len(values) or np.all(values == np.round(values)):
        decimals, separators = 0, not ("year" in label or "period" in label)
    else:
        largest = float(np.max(np.abs(values))) or 1.0
        decimals, separators = int(min(3, max(0, 2 - math.floor(math.log10(largest))))), True

    def text(value: object) -> str:
        if value is None or value is pd.NA or (isinstance(value, Real) and math.isnan(float(value))):
            return ""
        if not isinstance(value, Real) or isinstance(value, bool | np.bool_):
            return cell_text(value)
        return f"{float(value):{',' if separators else ''}.{decimals}f}"

    return text


def table_html(df: pd.DataFrame, max_rows: int) -> str:
    """An escaped HTML ``<table>`` of the first ``max_rows`` rows; numeric columns right-aligned, each in one
    format (``column_format``)."""
    shown = df.head(max_rows)
    numeric = [pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]) for c in df.columns]
    formats = [column_format(df.iloc[:, i], c) for i, c in enumerate(df.columns)]
    head = "".join(
        f'<th scope="col"{" class=num" if num else ""}>{html.escape(schema.printable(str(c)))}</th>'
        for c, num in zip(df.columns, numeric)
    )
    rows = []
    for record in shown.itertuples(index=False, name=None):
        cells = "".join(
            f"<td{' class=num' if num else ''}>{html.escape(fmt(v))}</td>"
            for v, num, fmt in zip(record, numeric, formats)
        )
        rows.append(f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def metrics_html(metrics: Mapping[str, object]) -> str:
    """A row of key numbers ("cards"): value large, name small."""
    cards = "".join(
        f'<div class="metric"><span class="metric-value">{html.escape(cell_text(v))}</span>'
        f'<span class="metric-name">{html.escape(schema.printable(str(k)))}</span></div>'
        for k, v in metrics.items()
    )
    return f'<div class="metrics">{cards}</div>'


def json_for_script(data: object) -> str:
    """JSON that is safe inside a ``<script>`` element (``</script>``, ``<!--``, U+2028 escaped)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text
