"""Text cleaning for term statistics and embeddings; the original text is kept for display.

Abstracts as published hold LaTeX math (``$\\ell_1$``), accents (``{\\"o}``), HTML tags and entities,
and hard line breaks. ``clean_text`` turns them into plain prose:

    >>> clean_text("We bound the <i>regret</i> by $O(\\\\sqrt{T})$ in Erd{\\\\H{o}}s graphs.")
    'We bound the regret by O(√(T)) in Erdős graphs.'
"""

from __future__ import annotations

import re
import unicodedata

import pandas as pd

from icml_topics.corpus.markup import latex_to_text, strip_html

__all__ = ["clean_text", "normalize_whitespace"]

_WS = re.compile(r"\s+")
_URL = re.compile(r"https?://\S+|www\.\S+")
_BRACES = re.compile(r"[{}$]")
_PDF_SOFT_HYPHEN = re.compile(r"\(cid:173\)\s*")
_PDF_GLYPH = re.compile(r"\(cid:\d+\)")


def normalize_whitespace(text: str) -> str:
    """Collapse runs of whitespace (newlines, tabs, non-breaking spaces) into single spaces."""
    return _WS.sub(" ", text.replace("\u00a0", " ")).strip()


def clean_text(text: object) -> str:
    """Return ``text`` as plain prose: LaTeX, HTML tags/entities, PDF glyph codes and URLs removed.

    ``None``/NaN/``pd.NA`` give ``""`` (not ``"<NA>"``). The result is NFC-normalised with single spaces.

    Example:
        >>> clean_text("A <b>new</b> method &amp; proof")
        'A new method and proof'
    """
    if text is None or text is pd.NA or text is pd.NaT or (isinstance(text, float) and text != text):
        return ""
    out = str(text)
    if "(cid:" in out:  # PDF-extraction artefacts: "ar(cid:173) bitrary" -> "arbitrary"
        out = _PDF_GLYPH.sub("", _PDF_SOFT_HYPHEN.sub("", out))
    out = latex_to_text(out)
    if "<" in out or "&" in out:
        out = strip_html(out).replace("&", " and ")
    out = _BRACES.sub(" ", _URL.sub(" ", out))
    return unicodedata.normalize("NFC", normalize_whitespace(out))
