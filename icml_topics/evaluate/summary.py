"""``evaluate_model``: the built-in quality measures of a fitted ``TopicMap`` in one call.

It reads only the documented tables (``documents_`` and ``topics_``, see docs/architecture.md), so
it also works on a model loaded from disk.

Examples:
    >>> from icml_topics.evaluate import evaluate_model, load_dev_labels
    >>> scores = evaluate_model(topic_map, reference=load_dev_labels())
    >>> scores["coherence_npmi"], scores["theme_ari"]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from icml_topics.errors import InvalidValueError
from icml_topics.evaluate.agreement import label_agreement, outlier_share, unassigned_share
from icml_topics.evaluate.coherence import npmi_coherence, topic_diversity
from icml_topics.evaluate.dev_labels import load_theme_labels
from icml_topics.fitted_tables import FittedModel, modelled_rows
from icml_topics.text import stop_words

__all__ = ["evaluate_model"]

ReferenceLike = Any  # DataFrame (id, theme) | Mapping id -> theme | Series indexed by id | sequence


def evaluate_model(
    model: FittedModel,
    reference: ReferenceLike = None,
    *,
    top_n: int = 10,
    diversity_top_n: int = 25,
    text_columns: Sequence[str] = ("title", "abstract"),
) -> dict[str, float | int]:
    """Coherence, diversity, outlier and unassigned shares, and theme agreement with reference labels.

    Args:
        model: a fitted ``TopicMap`` (anything with ``documents_`` and ``topics_`` tables).
        reference: optional theme labels: a DataFrame with ``id`` and ``theme`` columns (as returned
            by [`load_dev_labels`][icml_topics.evaluate.load_dev_labels]), a mapping or Series from document id to theme, or a sequence
            with one label per row of ``documents_`` (None where unknown).
        top_n: keywords per topic for NPMI coherence.
        diversity_top_n: keywords per topic for topic diversity.
        text_columns: ``documents_`` columns joined to form the reference texts for NPMI.

    Returns:
        ``n_documents`` (modelled), ``n_topics`` (outlier topic excluded), ``n_themes``,
        ``coherence_npmi``, ``topic_diversity``, ``outlier_share``, ``unassigned_share``; with a
        reference also ``theme_ari``, ``theme_nmi``, ``theme_accuracy``, ``n_labelled`` and
        ``n_training_labels``: how many of the labelled papers the model's supervised theme head was
        trained on (the ``"tune"`` split of [`load_theme_labels`][icml_topics.evaluate.load_theme_labels]). When that is not zero a
        ``UserWarning`` says so: agreement on training papers overstates agreement on new papers.
        Coherence and diversity cover the non-outlier topics; shares cover modelled documents.

    Examples:
        >>> evaluate_model(topic_map)["outlier_share"]
        0.12
    """
    docs, topics = _tables(model)
    modelled = modelled_rows(docs)
    if "topic" in topics.columns:
        real = topics[(pd.to_numeric(topics["topic"], errors="coerce") != -1).to_numpy()]
    else:
        real = topics
    keywords = [_keywords(k) for k in real["keywords"]] if "keywords" in real.columns else []
    keywords = [k for k in keywords if k]
    texts = _texts(modelled, text_columns)

    out: dict[str, float | int] = {
        "n_documents": int(len(modelled)),
        "n_topics": int(len(real)),
    }
    themes = modelled["theme"] if "theme" in modelled.columns else pd.Series([""] * len(modelled))
    named = themes[~themes.isna()].astype(str).str.strip()
    out["n_themes"] = int(named[named != ""].nunique())
    if keywords and any(texts):
        # on the keyphrases' words: a 3-word phrase rarely recurs verbatim, and word-level NPMI is what
        # BERTopic-style (single-word) topic models are scored with, so the two compare fairly
        out["coherence_npmi"] = npmi_coherence([keyphrase_words(k, top_n) for k in keywords], texts, top_n=top_n)[0]
    else:
        out["coherence_npmi"] = float("nan")
    out["topic_diversity"] = topic_diversity(keywords, top_n=diversity_top_n) if keywords else float("nan")
    out["outlier_share"] = outlier_share(modelled["topic"]) if "topic" in modelled.columns else float("nan")
    out["unassigned_share"] = unassigned_share(themes)
    if reference is not None:
        ref = _align_reference(reference, docs)
        predicted = docs["theme"] if "theme" in docs.columns else pd.Series([""] * len(docs), dtype=object)
        agreement = label_agreement(list(predicted), ref)
        out.update(
            theme_ari=agreement["ari"],
            theme_nmi=agreement["nmi"],
            theme_accuracy=agreement["accuracy"],
            n_labelled=agreement["n"],
            n_training_labels=_training_labels(model, docs, ref),
        )
    return out


def _training_labels(model: FittedModel, docs: pd.DataFrame, ref: list[Any]) -> int:
    """How many labelled documents are training papers of the model's supervised theme head (warned)."""
    rule = getattr(model, "theme_rule_", None)
    if getattr(rule, "head", None) is None or "id" not in docs.columns:
        return 0

    tune = set(load_theme_labels("tune")["id"])
    labelled = [i for i, r in zip(docs["id"].astype(str), ref) if r is not None and not pd.isna(r) and str(r).strip()]
    n = sum(i in tune for i in labelled)
    if n:
        import warnings

        warnings.warn(
            f"{n} of the {len(labelled)} labelled papers are training labels of the shipped theme head (split "
            "'tune' of theme_labels.csv), so theme_accuracy/ARI/NMI on them overstate agreement on new papers. "
            "Evaluate on load_theme_labels('heldout') or on papers outside the labelled set.",
            UserWarning,
            stacklevel=3,
        )
    return n


def keyphrase_words(keyphrases: Sequence[str], top_n: int = 10) -> list[str]:
    """The first ``top_n`` distinct non-stop words of ranked keyphrases.

    >>> keyphrase_words(["graph neural networks", "graph", "message passing"], 4)
    ['graph', 'neural', 'networks', 'message']
    """

    stop = set(stop_words())
    words: list[str] = []
    for phrase in keyphrases:
        for word in str(phrase).lower().split():
            if word not in stop and word not in words:
                words.append(word)
    return words[:top_n]


def _tables(model: FittedModel) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The fit's ``documents`` and ``topics`` tables: its ``tables_`` (``FittedTables``), else, for another
    estimator, its ``documents_`` and ``topics_``."""
    tables = getattr(model, "tables_", None)
    docs = getattr(tables, "documents", None) if tables is not None else getattr(model, "documents_", None)
    topics = getattr(tables, "topics", None) if tables is not None else getattr(model, "topics_", None)
    if not isinstance(docs, pd.DataFrame) or not isinstance(topics, pd.DataFrame):
        raise InvalidValueError(
            f"{type(model).__name__} has no fitted documents_/topics_ tables; call fit() first "
            "(or load a saved model) before evaluate_model()"
        )
    return docs, topics


def _keywords(value: Any) -> list[str]:
    """A topic's keywords as a list, whether stored as a list/array or as a '; '-joined string."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return []
    if isinstance(value, str):
        return [k.strip() for k in value.split(";") if k.strip()]
    return [str(k) for k in value if k is not None and str(k).strip()]


def _texts(docs: pd.DataFrame, columns: Sequence[str]) -> list[str]:
    present = [c for c in columns if c in docs.columns]
    if not present:
        raise InvalidValueError(
            f"documents_ has none of the text columns {list(columns)}; pass text_columns=... naming "
            f"columns of documents_ ({', '.join(map(str, docs.columns))})"
        )
    parts = docs[present].astype(object).where(docs[present].notna(), "")
    return [". ".join(str(v) for v in row if str(v).strip()) for row in parts.itertuples(index=False)]


def _align_reference(reference: Any, docs: pd.DataFrame) -> list[Any]:
    """One reference label (or None) per row of ``documents_``."""
    if isinstance(reference, pd.DataFrame):
        if not {"id", "theme"} <= set(reference.columns):
            raise InvalidValueError(
                "a reference DataFrame needs 'id' and 'theme' columns (as load_dev_labels() returns), "
                f"got columns {list(reference.columns)}"
            )
        mapping: Mapping[Any, Any] | None = dict(zip(reference["id"].astype(str), reference["theme"]))
    elif isinstance(reference, pd.Series):
        mapping = {str(k): v for k, v in reference.items()}
    elif isinstance(reference, Mapping):
        mapping = {str(k): v for k, v in reference.items()}
    else:
        mapping = None
    if mapping is None:
        labels = list(reference)
        if len(labels) != len(docs):
            raise InvalidValueError(
                f"reference has {len(labels)} labels but documents_ has {len(docs)} rows; pass one label "
                "per row, or a DataFrame/mapping keyed by document id"
            )
        return labels
    if "id" not in docs.columns:
        raise InvalidValueError("documents_ has no 'id' column to match reference ids; pass a list aligned by position")
    ids = docs["id"].astype(str)
    labels = [mapping.get(i) for i in ids]
    if all(v is None for v in labels):
        example_ref = next(iter(mapping), "?")
        example_doc = ids.iloc[0] if len(ids) else "?"
        raise InvalidValueError(
            f"none of the {len(mapping)} reference ids match documents_['id'] (reference ids look like "
            f"'{example_ref}', model ids like '{example_doc}'); fit the model on the corpus the labels "
            "come from, or pass labels aligned by position"
        )
    return labels
