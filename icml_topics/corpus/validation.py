"""Decide which rows are modelled, and say why the others are not.

>>> import pandas as pd
>>> text = "Graph networks pass messages."
>>> flagged = flag_rows(pd.DataFrame({"id": ["a", "b", "c"], "title": [None] * 3,
...                                   "abstract": [text, "  ", text]}))
>>> flagged[["status", "drop_reason", "is_duplicate", "duplicate_of"]].values.tolist()
[['ok', '', False, ''], ['dropped', 'empty abstract', False, ''], ['ok', '', True, 'a']]
"""

from __future__ import annotations

import logging

import pandas as pd

from icml_topics.corpus.cleaning import clean_text, content_words

__all__ = ["MIN_WORDS", "flag_rows", "model_text"]

logger = logging.getLogger("icml_topics")

MIN_WORDS = 3  # fewer words than this after cleaning: nothing to model


def model_text(title: object, abstract: object, *, prepend_title: bool = True) -> str:
    """The cleaned text that is embedded and counted: ``"<title>. <abstract>"``."""
    return _joined(clean_text(title) if prepend_title else "", clean_text(abstract))


def _joined(head: str, body: str) -> str:
    """``"<head>. <body>"`` of a cleaned title and abstract (the body alone without a title)."""
    if head and body:
        return f"{head.rstrip('.')}. {body}"
    return body


def flag_rows(corpus: pd.DataFrame, *, prepend_title: bool = True) -> pd.DataFrame:
    """Add ``text, status, drop_reason, is_duplicate, duplicate_of`` to a corpus table (a copy).

    Rows whose abstract is empty (or only markup, whitespace or zero-width characters), holds no word of any
    script (emoji, symbols) or fewer than ``MIN_WORDS`` are ``status="dropped"`` with a reason;
    exact duplicates (same cleaned title and abstract) are kept, modelled, and point to the first copy.

    Args:
        corpus: the corpus table ([`read_corpus`][icml_topics.read_corpus]).
        prepend_title: the ``text`` is ``"title. abstract"`` when a title is present (as ``TopicMap(prepend_title=)``).

    Examples:
        >>> flag_rows(read_corpus("papers.csv"))[["status", "drop_reason"]].value_counts()
    """
    out = corpus.copy()
    titles = out["title"] if "title" in out else pd.Series([None] * len(out), index=out.index)
    bodies = [clean_text(a) for a in out["abstract"]]  # each abstract cleaned once: the slowest step of reading
    out["text"] = [_joined(clean_text(t) if prepend_title else "", b) for t, b in zip(titles, bodies)]
    reasons = []
    for body in bodies:  # words of any script (an ideogram is a word); zero-width characters are already gone
        words = content_words(body, at_most=MIN_WORDS) if body else 0
        if not body:
            reasons.append("empty abstract")
        elif not words:
            reasons.append("no words in the abstract (only symbols, emoji, digits or punctuation)")
        elif words < MIN_WORDS:
            reasons.append(f"abstract shorter than {MIN_WORDS} words")
        else:
            reasons.append("")
    out["drop_reason"] = reasons
    out["status"] = ["dropped" if r else "ok" for r in reasons]
    keys = out["text"].str.lower()
    first_id = dict()
    dup_of = []
    for key, row_id, reason in zip(keys, out["id"], reasons):
        if reason:
            dup_of.append("")
            continue
        if key in first_id:
            dup_of.append(first_id[key])
        else:
            first_id[key] = row_id
            dup_of.append("")
    out["duplicate_of"] = dup_of
    out["is_duplicate"] = out["duplicate_of"] != ""
    n_drop = int((out["status"] == "dropped").sum())
    n_dup = int(out["is_duplicate"].sum())
    if n_drop:
        logger.warning("%d of %d rows are not modelled (see drop_reason in documents.csv)", n_drop, len(out))
    if n_dup:
        logger.info("%d rows are exact duplicates of earlier rows (kept, flagged in duplicate_of)", n_dup)
    return out
