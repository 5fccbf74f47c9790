"""Text cleaning for term statistics and embeddings; the original text is kept for display.

Abstracts as published hold LaTeX math (``$\\ell_1$``), accents (``{\\"o}``), HTML tags and entities,
and hard line breaks. ``clean_text`` turns them into plain prose:

    >>> clean_text("We bound the <i>regret</i> by $O(\\\\sqrt{T})$ in Erd{\\\\H{o}}s graphs.")
    'We bound the regret by O(√(T)) in Erdős graphs.'
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from itertools import islice

import pandas as pd
import regex

from icml_topics.corpus.markup import latex_to_text, strip_html

__all__ = ["clean_text", "content_words", "normalize_whitespace", "strip_invisible"]

_WS = re.compile(r"\s+")
_URL = re.compile(r"https?://\S+|www\.\S+")
_BRACES = re.compile(r"[{}$]")
_PDF_SOFT_HYPHEN = re.compile(r"\(cid:173\)\s*")
_PDF_GLYPH = re.compile(r"\(cid:\d+\)")
# format characters (zero-width spaces and joiners, direction marks, soft hyphens, BOMs), private-use
# and surrogate code points carry no text; control characters are line noise
_INVISIBLE = regex.compile(r"[\p{Cf}\p{Co}\p{Cs}]+")
_CONTROL = regex.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]+")  # \p{Cc} but tab and line breaks
# one word: a run of letters (any script), or one character of a script written without spaces
_WORD = regex.compile(
    r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}\p{Tibetan}]|[\p{L}\p{M}]+",
)


def strip_invisible(text: str) -> str:
    """``text`` without format, private-use and control characters (controls become spaces).

    >>> strip_invisible("zero\u200bwidth\x00here")
    'zerowidth here'
    """
    return _CONTROL.sub(" ", _INVISIBLE.sub("", text))


def content_words(text: str, *, at_most: int | None = None) -> int:
    """How many words ``text`` holds, whatever its script: runs of letters, and each ideogram / kana / Thai
    letter (scripts written without spaces). Emoji, symbols, digits and punctuation are no words.
    ``at_most``: stop counting there (a check for "at least n words" reads only the first n).

    >>> content_words("Graph networks, 2024!"), content_words("深度学习模型"), content_words("🙂 🚀 42")
    (2, 6, 0)
    >>> content_words("one two three four", at_most=3)
    3
    """
    return sum(1 for _ in islice(_WORD.finditer(text), at_most))


def normalize_whitespace(text: str) -> str:
    """Collapse runs of whitespace (newlines, tabs, non-breaking spaces) into single spaces."""
    return _WS.sub(" ", text.replace("\u00a0", " ")).strip()


def clean_text(text: object) -> str:
    """Return ``text`` as plain prose: LaTeX, HTML tags/entities, PDF glyph codes and URLs removed.

    ``None``/NaN/``pd.NA`` give ``""`` (not ``"<NA>"``). The result is NFC-normalised with single spaces.

    Args:
        text: the raw text (any value; missing ones give ``""``).

    Examples:
        >>> clean_text("A <b>new</b> method &amp; proof")
        'A new method and proof'
    """
    if type(text) is str:
        return _clean_str(text)
    if text is None or text is pd.NA or text is pd.NaT or (isinstance(text, float) and text != text):
        return ""
    return _clean_str(text.decode("utf-8") if isinstance(text, bytes) else str(text))


@lru_cache(maxsize=1 << 16)
def _clean_str(text: str) -> str:
    """``clean_text`` of a string, remembered: a comparison checks its periods on the cleaned corpus before
    the fit reads (and cleans) it again."""
    out = strip_invisible(text)
    if "(cid:" in out:  # PDF-extraction artefacts: "ar(cid:173) bitrary" -> "arbitrary"
        out = _PDF_GLYPH.sub("", _PDF_SOFT_HYPHEN.sub("", out))
    out = latex_to_text(out)
    if "<" in out or "&" in out:
        out = strip_html(out).replace("&", " and ")
    out = _BRACES.sub(" ", _URL.sub(" ", out))
    return unicodedata.normalize("NFC", normalize_whitespace(out))
