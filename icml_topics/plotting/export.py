"""Save a figure as interactive HTML (always works) or as a static PNG / SVG / PDF (needs kaleido).

Examples:
    >>> from icml_topics.plotting import plot_topic_map, save_figure
    >>> save_figure(plot_topic_map(model.documents_), "out/topic_map.html")
    >>> save_figure(fig, "out/topic_map.png", scale=2)
"""

from __future__ import annotations

import os
from pathlib import Path

import plotly.graph_objects as go

from icml_topics.errors import IcmlTopicsError, InvalidTypeError, InvalidValueError

from .._io import atomic_write_bytes, atomic_write_text

__all__ = ["STATIC_FORMATS", "StaticExportError", "save_figure"]

STATIC_FORMATS = ("png", "svg", "pdf", "jpg", "jpeg", "webp")
_TEXT_FORMATS = ("html", "htm", "json")
_DEFAULT_SIZE = (1100, 700)
_HTML_CONFIG = {"displaylogo": False, "responsive": True}


class StaticExportError(IcmlTopicsError, RuntimeError):
    """Static image export (PNG/SVG/PDF) is not possible on this machine; ``.html`` still works.

    Examples:
        >>> save_figure(tm.plot_map(), "map.png")  # without kaleido
        Traceback (most recent call last):
        StaticExportError: ...
    """


def _fallback_hint(fmt: str) -> str:
    return f"Saving as .html always works (plotly.js inlined, opens offline); .{fmt} needs kaleido."


def _static_bytes(fig: go.Figure, fmt: str, width: int | None, height: int | None, scale: float | None) -> bytes:
    """Render ``fig`` with kaleido 1.x (headless Chrome/Chromium), without MathJax or any CDN."""
    try:
        import kaleido
    except ImportError as exc:
        raise StaticExportError(
            f"Cannot write .{fmt}: the 'kaleido' package is not installed. Install it with "
            "`pip install 'kaleido>=1'` (it also needs Chrome or Chromium, e.g. `apt-get install chromium`). "
            + _fallback_hint(fmt)
        ) from exc
    if not hasattr(kaleido, "calc_fig_sync"):
        raise StaticExportError(
            f"Cannot write .{fmt}: kaleido {getattr(kaleido, '__version__', '<1.0')} is too old; "
            "run `pip install -U 'kaleido>=1'`. " + _fallback_hint(fmt)
        )
    from kaleido import errors as kerrors

    layout = fig.layout
    opts = {
        "format": "jpeg" if fmt == "jpg" else fmt,
        "width": width or layout.width or _DEFAULT_SIZE[0],
        "height": height or layout.height or _DEFAULT_SIZE[1],
        "scale": scale or 1,
    }
    try:
        return kaleido.calc_fig_sync(fig.to_dict(), opts=opts, kopts={"mathjax": False})
    except kerrors.ChromeNotFoundError as exc:
        raise StaticExportError(
            f"Cannot write .{fmt}: kaleido needs Chrome or Chromium and found none. Install one "
            "(`apt-get install chromium`, or `python -c 'import kaleido; kaleido.get_chrome_sync()'`), "
            "or point the BROWSER_PATH environment variable at it. " + _fallback_hint(fmt)
        ) from exc
    except (kerrors.BrowserFailedError, kerrors.BrowserClosedError) as exc:
        raise StaticExportError(
            f"Cannot write .{fmt}: Chrome/Chromium was found but failed to start for kaleido ({exc}). "
            "In containers, a Chromium that runs headless with --no-sandbox is needed. " + _fallback_hint(fmt)
        ) from exc
    except (kerrors.KaleidoError, kerrors.JavascriptError) as exc:
        raise StaticExportError(
            f"Cannot write .{fmt}: kaleido failed to render the figure ({exc}). " + _fallback_hint(fmt)
        ) from exc


def save_figure(
    fig: go.Figure,
    path: str | os.PathLike[str],
    *,
    width: int | None = None,
    height: int | None = None,
    scale: float | None = None,
) -> Path:
    """Write ``fig`` to ``path``; the format comes from the suffix. Returns the path written.

    ``.html`` is self-contained (plotly.js inlined, no MathJax, no CDN) and always works; ``.json``
    is the plotly figure JSON; ``.png``, ``.svg``, ``.pdf``, ``.jpg``, ``.webp`` (drawn without
    dropdown menus) need kaleido 1.x and
    Chrome/Chromium and raise [`StaticExportError`][icml_topics.plotting.StaticExportError] saying what to install when they are
    missing. Files are written atomically.

    Args:
        fig: a plotly figure.
        path: the file to write; the suffix picks the format.
        width: the image width in pixels (static formats); ``None``: the figure's own or kaleido's default.
        height: the image height in pixels; ``None``: likewise.
        scale: a factor on the image's pixel size (e.g. 2 for a sharper PNG); ``None``: 1.

    Examples:
        >>> save_figure(fig, "figures/themes.svg", width=900, height=600)
        PosixPath('figures/themes.svg')
    """
    if isinstance(fig, dict):
        fig = go.Figure(fig)
    if not isinstance(fig, go.Figure):
        raise InvalidTypeError(f"save_figure expects a plotly Figure, got {type(fig).__name__}.")
    target = Path(path)
    fmt = target.suffix.lower().lstrip(".")
    if fmt in ("html", "htm"):
        text = fig.to_html(include_plotlyjs=True, full_html=True, include_mathjax=False, config=_HTML_CONFIG)
        atomic_write_text(target, text)
    elif fmt == "json":
        atomic_write_text(target, fig.to_json())
    elif fmt in STATIC_FORMATS:
        still = go.Figure(fig)
        still.layout.updatemenus = ()  # menus (the year selector) do nothing in a still image
        atomic_write_bytes(target, _static_bytes(still, fmt, width, height, scale))
    else:
        supported = ", ".join("." + f for f in (*_TEXT_FORMATS, *STATIC_FORMATS))
        raise InvalidValueError(f"Cannot tell the format of {str(target)!r} from its suffix; use one of {supported}.")
    return target
