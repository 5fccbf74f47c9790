"""How each topic's wording moved: keyphrases and representative papers per node and period.

For every period (year) the words are computed from that period's papers only: a c-TF-IDF
(BERTopic's class-based TF-IDF, ``tf(t, c) / |c| * log(1 + A / f(t))``) whose vocabulary, term
frequencies and IDF all come from the period's slice, with the period's papers grouped by their node
(papers without a node form one more class, as BERTopic's outliers do). The representative papers are
the node's papers of that period nearest the centroid of those papers. Nothing outside the slice is
read, so a year's words and papers are identical when other years are added or removed (no look-ahead,
unlike BERTopic's ``topics_over_time``, which tunes against the global topic words). The node a paper
belongs to comes from the joint model (all years fitted together): that is what makes the years
comparable.

Examples:
    >>> wording = topic_wording(docs, texts, embeddings, by="year")
    >>> wording.query("level == 1 and topic == 3")[["period", "keywords"]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from icml_topics._validation import require_column
from icml_topics.errors import InvalidValueError
from icml_topics.fitted_tables import level_labels, modelled_rows, tree_levels
from icml_topics.schema import WORDING_COLUMNS
from icml_topics.stages.keyphrases import clean_keyphrases
from icml_topics.stages.represent import make_vectorizer
from icml_topics.stages.representatives import representative_order

from .periods import check_count

__all__ = ["topic_wording"]

_CANDIDATES = 3  # c-TF-IDF terms looked at per keyphrase kept (variants merge into one phrase)


@dataclass(frozen=True)
class ClassTfidf:
    """Class-based TF-IDF of a term-count matrix, rows = classes ``0..n_classes-1``: ``tf(t, c) / |c| * idf(t)``
    with ``idf(t) = log(1 + A / f(t))``. Kept sparse (a period's classes x vocabulary is hundreds of MB dense):
    a term a class never uses scores 0, and only positive scores become keyphrases."""

    tf: sparse.csr_matrix  # term counts per class (float)
    words: np.ndarray  # (n_classes, 1): each class's number of terms
    idf: np.ndarray

    @classmethod
    def of(cls, counts: sparse.csr_matrix, classes: np.ndarray, n_classes: int) -> ClassTfidf:
        indicator = sparse.csr_matrix(
            (np.ones(len(classes)), (classes, np.arange(len(classes)))), shape=(n_classes, len(classes))
        )
        tf = sparse.csr_matrix(indicator @ counts, dtype=float)
        tf.sum_duplicates()
        words = np.asarray(tf.sum(axis=1), dtype=float).reshape(n_classes, 1)  # integer sums: exact in any order
        freq = np.asarray(tf.sum(axis=0), dtype=float).ravel()
        avg = words.mean()
        with np.errstate(divide="ignore", invalid="ignore"):
            idf = np.log1p(np.where(freq > 0, avg / freq, 0.0))
        return cls(tf, words, idf)

    def top_terms(self, row: int, n_terms: int) -> np.ndarray:
        """The ``n_terms`` best-scoring terms of class ``row`` with a positive score, best first (ties: lower index
        first), as a descending sort of the whole dense row by score, then index, would give them."""
        start, end = self.tf.indptr[row], self.tf.indptr[row + 1]
        terms = self.tf.indices[start:end]
        with np.errstate(divide="ignore", invalid="ignore"):
            scores = np.nan_to_num(self.tf.data[start:end] / self.words[row, 0]) * self.idf[terms]
        order = np.lexsort((terms, -scores))[:n_terms]
        return terms[order[scores[order] > 0]]


def _top_phrases(table: ClassTfidf, row: int, vocab: np.ndarray, n_words: int) -> list[str]:
    return clean_keyphrases(str(vocab[i]) for i in table.top_terms(row, n_words * _CANDIDATES))[:n_words]


def topic_wording(
    documents: pd.DataFrame,
    texts: Sequence[str],
    embeddings: np.ndarray,
    *,
    by: str = "year",
    n_words: int = 8,
    n_papers: int = 3,
    min_papers: int = 2,
    tree: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Per node, level and period: the period's own keyphrases and representative papers.

    ``documents`` are the modelled rows of ``TopicMap.documents_`` (or all of them, with a ``status``
    column: only its modelled rows are used), in the order of ``texts`` (the modelled texts) and
    ``embeddings``. Returns ``level, topic, label, theme, period, n, keywords, representative_ids,
    representative_titles`` for every node with at least ``min_papers`` papers in the period (``label`` and
    ``theme`` from ``tree``, as in ``topic_status``; empty without one).

    Args:
        documents: ``TopicMap.documents_`` (its modelled rows, in the order of ``texts``).
        texts: the modelled texts (``TopicMap.state_.texts``).
        embeddings: their embeddings, one row per text.
        by: the ``documents`` column that defines the periods.
        n_words: keyphrases per node and period.
        n_papers: representative papers per node and period.
        min_papers: a node is described in a period from this many of its papers there.
        tree: ``TopicMap.topic_tree_`` (``level, topic, label, theme``): each node's name and theme.

    Examples:
        >>> wording = topic_wording(tm.documents_, tm.state_.texts, tm.state_.embeddings)
    """
    for name, value in (("n_words", n_words), ("n_papers", n_papers), ("min_papers", min_papers)):
        check_count(value, name)
    rows = modelled_rows(documents)
    vectors = np.asarray(embeddings, dtype=np.float32)
    if not (len(rows) == len(texts) == len(vectors)):
        raise InvalidValueError(
            f"documents ({len(rows)} modelled rows), texts ({len(texts)}) and embeddings ({len(vectors)} rows) "
            "must be aligned row by row; pass tm.documents_, tm.state_.texts and tm.state_.embeddings."
        )
    require_column(rows, by, "by", "year")
    papers = _Papers.of(rows, texts, vectors)
    codes, values = pd.factorize(rows[by], sort=True)  # a missing value (pd.NA, None, NaN) is code -1: in no slice
    records = []
    for code, value in enumerate(values.tolist()):
        value = value.item() if isinstance(value, np.generic) else value
        records += _slice_records(papers, np.flatnonzero(codes == code), value, n_words, n_papers, min_papers)
    out = _with_names(pd.DataFrame.from_records(records, columns=list(WORDING_COLUMNS)), tree)
    return out.sort_values(["level", "topic", "period"], kind="mergesort").reset_index(drop=True)


@dataclass(frozen=True)
class _Papers:
    """The modelled papers, row-aligned: texts, embeddings, ids, titles and each paper's node per tree level."""

    texts: np.ndarray
    vectors: np.ndarray
    ids: np.ndarray
    titles: np.ndarray
    labels: dict[int, np.ndarray]

    @classmethod
    def of(cls, rows: pd.DataFrame, texts: Sequence[str], vectors: np.ndarray) -> _Papers:
        ids = rows["id"].astype(str).to_numpy() if "id" in rows.columns else np.arange(len(rows)).astype(str)
        titles = rows["title"].astype("string").fillna("").to_numpy(dtype=object) if "title" in rows else ids
        levels = tree_levels(rows) or [0]  # no level column: the ``topic`` column is level 0
        labels = {lv: level_labels(rows, lv) for lv in levels}
        return cls(np.asarray(list(texts), dtype=object), vectors, ids, titles, labels)


def _slice_records(
    papers: _Papers, in_slice: np.ndarray, value: Any, n_words: int, n_papers: int, min_papers: int
) -> list[dict[str, Any]]:
    """The rows of one period (the papers ``in_slice``): per level and node with ``min_papers`` papers there, its
    keyphrases from a c-TF-IDF fitted on the slice alone and its papers nearest the slice's centroid."""
    labels_at = {lv: labels[in_slice] for lv, labels in papers.labels.items()}
    finest = labels_at[min(labels_at)]
    vectorizer = make_vectorizer(len(in_slice), max(2, len(set(finest.tolist()))))
    try:
        counts = sparse.csr_matrix(vectorizer.fit_transform(papers.texts[in_slice]))
    except ValueError:  # an empty vocabulary (a slice of stop words only)
        return []
    vocab = vectorizer.get_feature_names_out()
    records = []
    for lv, labels in labels_at.items():
        nodes, classes = np.unique(labels, return_inverse=True)
        table = ClassTfidf.of(counts, classes, len(nodes))
        order = representative_order(papers.vectors[in_slice], labels)
        for row, node in enumerate(nodes):
            size = int((labels == node).sum())
            if node < 0 or size < min_papers:
                continue
            nearest = in_slice[order[int(node)][:n_papers]]
            records.append(
                {
                    "level": lv,
                    "topic": int(node),
                    "period": value,
                    "n": size,
                    "keywords": _top_phrases(table, row, vocab, n_words),
                    "representative_ids": papers.ids[nearest].tolist(),
                    "representative_titles": [str(t) for t in papers.titles[nearest]],
                }
            )
    return records


def _with_names(out: pd.DataFrame, tree: pd.DataFrame | None) -> pd.DataFrame:
    """``out`` with each node's ``label`` and ``theme`` from ``tree`` after ``topic`` (missing: NA)."""
    names = pd.DataFrame({"level": pd.Series(dtype=np.int64), "topic": pd.Series(dtype=np.int64)})
    if tree is not None and len(tree):
        cols = [c for c in ("label", "theme") if c in tree.columns]
        names = tree[["level", "topic", *cols]].astype({"level": np.int64, "topic": np.int64})
        names = names.drop_duplicates(["level", "topic"])
    for col in ("label", "theme"):
        if col not in names.columns:
            names[col] = pd.Series(dtype="object")
    merged = out.astype({"level": np.int64, "topic": np.int64}).merge(names, on=["level", "topic"], how="left")
    first = ["level", "topic", "label", "theme"]
    return merged[first + [c for c in out.columns if c not in first]]
