"""Text cleaning for term statistics and embeddings; the original text is kept for display.

Abstracts as published hold LaTeX math (``$\\ell_1$``), accents (``{\\"o}``), HTML tags and entities,
and hard line breaks. ``clean_text`` turns them into plain prose:

    >>> clean_text("We bound the <i>regret</i> by $O(\\\\sqrt{T})$ in Erd{\\\\H{o}}s graphs.")
    'We bound the regret by O(√(T)) in Erdős graphs.'
"""

from __future__ import annotations

import functools
import html
import logging
import re
import unicodedata

__all__ = ["clean_text", "normalize_whitespace"]

logger = logging.getLogger("icml_topics")

_TAG = re.compile(r"<\s*/?\s*[a-zA-Z][^<>]{0,200}>")
_WS = re.compile(r"\s+")
_LATEX_HINT = re.compile(r"[\\$]")
_ESCAPED = re.compile(r"\\([%&#_])")
_URL = re.compile(r"https?://\S+|www\.\S+")
_BRACES = re.compile(r"[{}]")

_LATEX_SPAN = re.compile(
    r"\$\$.+?\$\$|\$[^$]{1,400}?\$|\\\(.+?\\\)|\\\[.+?\\\]"  # math: $$..$$, $..$, \(..\), \[..\]
    r"|\{?\\[a-zA-Z\"'`^~=.]+\s*(?:\{[^{}]{0,80}\}|[a-zA-Z])?\}?",  # commands and accents: {\"o}, \'e, \emph{x}
    re.DOTALL,
)
_PDF_SOFT_HYPHEN = re.compile(r"\(cid:173\)\s*")
_PDF_GLYPH = re.compile(r"\(cid:\d+\)")

_latex_converter = None


def normalize_whitespace(text: str) -> str:
    """Collapse runs of whitespace (newlines, tabs, non-breaking spaces) into single spaces."""
    return _WS.sub(" ", text.replace("\u00a0", " ")).strip()


@functools.lru_cache(maxsize=65536)
def _latex_span_to_text(span: str) -> str:
    """Convert one LaTeX span (math or a command) with pylatexenc; strip it when it will not parse."""
    global _latex_converter
    if _latex_converter is None:
        from pylatexenc.latex2text import LatexNodes2Text

        logging.getLogger("pylatexenc").setLevel(logging.CRITICAL)
        _latex_converter = LatexNodes2Text(math_mode="text", strict_latex_spaces=True)
    try:
        out = _latex_converter.latex_to_text(span)
    except Exception:  # malformed LaTeX: keep the words, drop the markup
        out = ""
    if not out or "%s" in out:
        out = re.sub(r"\\[a-zA-Z]+\*?|[$\\]", " ", span)
    return out


def _latex_to_text(text: str) -> str:
    # Only the LaTeX spans go through the (slow) parser; the prose around them is left alone.
    return _LATEX_SPAN.sub(lambda m: _latex_span_to_text(m.group(0)), text).replace("$", " ")


def clean_text(text: object) -> str:
    """Return ``text`` as plain prose: HTML tags/entities, LaTeX markup and URLs removed.

    ``None``/NaN give ``""``. The result is NFC-normalised with single spaces.
    """
    if text is None or (isinstance(text, float) and text != text):
        return ""
    out = str(text)
    if "\\" in out:
        out = _ESCAPED.sub(r"\1", out)
    if "<" in out:
        out = _TAG.sub(" ", out)
    if "&" in out:
        out = html.unescape(out).replace("&", " and ")
    if "(cid:" in out:
        out = _PDF_GLYPH.sub("", _PDF_SOFT_HYPHEN.sub("", out))
    if _LATEX_HINT.search(out):
        out = _latex_to_text(out)
    out = _URL.sub(" ", out)
    out = _BRACES.sub("", out)
    return unicodedata.normalize("NFC", normalize_whitespace(out))
