"""LaTeX and HTML markup -> plain unicode text (used by ``clean_text`` and the dataset loaders).

The original text is never modified; callers store the cleaned text next to it.

Examples:
    >>> clean_markup(r"Sch{\\"o}lkopf's $\\ell_1$ bound, <em>5%</em> better")
    "Schölkopf's ℓ_1 bound, 5% better"
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

__all__ = ["clean_markup", "latex_to_text", "strip_html"]

# Only real HTML tags are removed, so that text such as "a <b and c> d" in maths survives.
_INLINE_TAGS = (
    "a|abbr|b|code|em|font|i|kbd|mark|math|mi|mn|mo|mrow|msub|msup|s|small|span|strike|strong|sub|sup|tt|u|var"
)
_BLOCK_TAGS = "blockquote|br|dd|div|dl|dt|h[1-6]|hr|img|li|ol|p|pre|table|tbody|td|th|thead|tr|ul"
_INLINE_TAG_RE = re.compile(rf"</?(?:{_INLINE_TAGS})(?:\s[^<>]*)?/?>", re.IGNORECASE)
_BLOCK_TAG_RE = re.compile(rf"</?(?:{_BLOCK_TAGS})(?:\s[^<>]*)?/?>", re.IGNORECASE)
_HTML_ENTITY_RE = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]{1,31});")
# Characters that are special in LaTeX but usually literal in abstracts ("5% of", "R&D", "#1").
_UNESCAPED_SPECIAL_RE = re.compile(r"(?<!\\)([%&#])")
_LATEX_HINT_RE = re.compile(r"[\\${}~^]")
_SPACE_RE = re.compile(r"\s+")


def strip_html(text: str) -> str:
    """Remove HTML tags (block tags become a space) and decode entities such as ``&lt;``."""
    text = _BLOCK_TAG_RE.sub(" ", text)
    text = _INLINE_TAG_RE.sub("", text)
    return html.unescape(text)


# LaTeX spans: only these go through pylatexenc (slow on long text); plain prose is left as it is.
_BRACED = r"\{[^{}]*(?:\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}[^{}]*)*\}"  # up to 3 levels of nesting
_LATEX_SPAN_RE = re.compile(
    r"\$\$.+?\$\$"  # display math
    r"|\$[^$]{1,500}?\$"  # inline math
    r"|\\\(.+?\\\)|\\\[.+?\\\]"  # \( ... \), \[ ... \]
    rf"|\\[a-zA-Z]+\*?(?:\s*\[[^\]]*\])?(?:\s*{_BRACED})*"  # \emph{..}, \sqrt[3]{..}, \LaTeX
    rf"|\\[\"'`^~=.](?:\s*{_BRACED}|\s*[a-zA-Z])"  # accents: \"o, \'{e}
    rf"|{_BRACED}"  # {B}ayesian, {\"o}
    r"|\\[^a-zA-Z\s]",  # \%, \&, \\ and other escaped characters
    re.DOTALL,
)


@lru_cache(maxsize=1)
def _latex_converter():  # pylatexenc is imported lazily: it is only needed for LaTeX input
    import logging

    from pylatexenc.latex2text import LatexNodes2Text

    logging.getLogger("pylatexenc").setLevel(logging.CRITICAL)  # malformed input is handled here
    return LatexNodes2Text(math_mode="text", strict_latex_spaces=False)


@lru_cache(maxsize=65536)
def _convert_span(span: str) -> str:
    escaped = _UNESCAPED_SPECIAL_RE.sub(r"\\\1", span)
    try:
        out = _latex_converter().latex_to_text(escaped)
    except Exception:  # pylatexenc is tolerant; this guards against its rare internal errors
        return span
    # a macro pylatexenc cannot fill (e.g. an unbalanced "\frac{") comes back as "%s/%s": drop it
    return re.sub(r"\\[a-zA-Z]+\*?|[$\\{}]", " ", span) if "%s" in out else out


def latex_to_text(text: str) -> str:
    r"""Convert LaTeX (accents, maths, ``\emph``, braces) to unicode, leaving plain prose as it is.

    Examples:
        >>> latex_to_text(r"an $O(\sqrt{T})$ bound for {B}ayesian Sch{\"o}lkopf~kernels")
        'an O(√(T)) bound for Bayesian Schölkopf kernels'
    """
    if not _LATEX_HINT_RE.search(text):
        return text
    converted = _LATEX_SPAN_RE.sub(lambda match: _convert_span(match.group(0)), text)
    return converted.replace("~", " ")


def clean_markup(text: object) -> str:
    """Plain text for analysis: LaTeX and HTML removed, whitespace collapsed; ``""`` for missing."""
    if not isinstance(text, str) or not text:
        return ""
    cleaned = latex_to_text(text)
    if "<" in cleaned or _HTML_ENTITY_RE.search(cleaned):
        cleaned = strip_html(cleaned)
    return _SPACE_RE.sub(" ", cleaned).strip()
