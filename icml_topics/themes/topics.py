"""A topic's theme: the probability-weighted majority of its documents' themes, never the other way round.

Examples:
    >>> other_theme_name(["spiking neurons", "retina"])
    'Other: spiking neurons, retina'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from icml_topics.stages.representatives import label_rows
from icml_topics.themes.assign import DocumentThemes, ThemeRule

__all__ = ["OTHER_PREFIX", "other_theme_name", "topic_themes"]

OTHER_PREFIX = "Other: "


def other_theme_name(keyphrases: Sequence[str]) -> str:
    """The honest name of a topic whose documents fit no taxonomy theme."""
    return OTHER_PREFIX + ", ".join(list(keyphrases)[:2]) if keyphrases else OTHER_PREFIX + "unnamed"


def topic_themes(labels: np.ndarray, docs: DocumentThemes, rule: ThemeRule, keywords: Mapping[int, Sequence[str]]):
    """Per topic: the probability-weighted majority theme of its documents, its mean probability and its
    purity (share of the topic's documents whose own theme it is). A topic most of whose documents
    have no theme is named "Other: <keyphrases>"."""
    labels = np.asarray(labels)
    names, proba = rule.unique_names, rule.grouped(docs.proba)
    doc_theme = np.array(docs.theme, dtype=object)
    theme, score, purity = {}, {}, {}
    rows_of = label_rows(labels)  # one sort of the labels, not one pass over the corpus a topic
    for t in sorted(k for k in rows_of if k != -1):
        rows = rows_of[t]
        own = doc_theme[rows]
        if (own == "").mean() > 0.5:
            theme[t] = other_theme_name(keywords.get(t, []))
            score[t], purity[t] = float("nan"), float((own == "").mean())
            continue
        mass = proba[rows].sum(axis=0)
        best = int(np.argmax(mass))
        theme[t] = names[best]
        score[t] = float(mass[best] / np.int64(len(rows)))  # an int64 count, as the mask's sum was
        purity[t] = float((own == names[best]).mean())
    return theme, score, purity
