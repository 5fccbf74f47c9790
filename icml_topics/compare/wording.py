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

Example:
    >>> wording = topic_wording(docs, texts, embeddings, by="year")  # doctest: +SKIP
    >>> wording.query("level == 1 and topic == 3")[["period", "keywords"]]  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import sparse

from icml_topics._validation import require_column
from icml_topics.errors import InvalidValueError
from icml_topics.stages.keyphrases import clean_keyphrases
from icml_topics.stages.represent import make_vectorizer
from icml_topics.stages.representatives import representative_order

from .topic_trends import modelled_rows, topic_levels

__all__ = ["topic_wording"]

_CANDIDATES = 3  # c-TF-IDF terms looked at per keyphrase kept (variants merge into one phrase)


def _ctfidf(counts: sparse.csr_matrix, classes: np.ndarray, n_classes: int) -> np.ndarray:
    """Class-based TF-IDF of a term-count matrix, rows = classes ``0..n_classes-1``."""
    indicator = sparse.csr_matrix(
        (np.ones(len(classes)), (classes, np.arange(len(classes)))), shape=(n_classes, len(classes))
    )
    tf = np.asarray((indicator @ counts).todense(), dtype=float)
    words = tf.sum(axis=1, keepdims=True)
    freq = tf.sum(axis=0)
    avg = words.mean()
    with np.errstate(divide="ignore", invalid="ignore"):
        idf = np.log1p(np.where(freq > 0, avg / freq, 0.0))
        return np.nan_to_num(tf / words) * idf


def _top_phrases(scores: np.ndarray, vocab: np.ndarray, n_words: int) -> list[str]:
    order = np.lexsort((np.arange(len(scores)), -scores))[: n_words * _CANDIDATES]
    return clean_keyphrases(str(vocab[i]) for i in order if scores[i] > 0)[:n_words]


def topic_wording(
    documents: pd.DataFrame,
    texts: Sequence[str],
    embeddings: np.ndarray,
    *,
    by: str = "year",
    n_words: int = 8,
    n_papers: int = 3,
    min_papers: int = 2,
) -> pd.DataFrame:
    """Per node, level and period: the period's own keyphrases and representative papers.

    ``documents`` are the modelled rows of ``TopicMap.documents_`` (or all of them, with a ``status``
    column: only ``"ok"`` rows are used), in the order of ``texts`` (the modelled texts) and
    ``embeddings``. Returns ``level, topic, period, n, keywords, representative_ids,
    representative_titles`` for every node with at least ``min_papers`` papers in the period.

    Example:
        >>> wording = topic_wording(tm.documents_, tm.state_.texts, tm.state_.embeddings)  # doctest: +SKIP
    """
    rows = modelled_rows(documents)
    vectors = np.asarray(embeddings, dtype=np.float32)
    if not (len(rows) == len(texts) == len(vectors)):
        raise InvalidValueError(
            f"documents ({len(rows)} modelled rows), texts ({len(texts)}) and embeddings ({len(vectors)} rows) "
            "must be aligned row by row; pass tm.documents_, tm.state_.texts and tm.state_.embeddings."
        )
    require_column(rows, by, "by", "year")
    levels = topic_levels(rows)
    columns = {lv: f"topic_{lv}" for lv in levels} or {0: "topic"}
    text_array = np.asarray(list(texts), dtype=object)
    ids = rows["id"].astype(str).to_numpy() if "id" in rows.columns else np.arange(len(rows)).astype(str)
    titles = rows["title"].astype("string").fillna("").to_numpy(dtype=object) if "title" in rows else ids
    period = rows[by].to_numpy(dtype=object)
    known = rows[by].notna().to_numpy()
    records = []
    for value in sorted(set(period[known].tolist())):
        in_slice = np.flatnonzero(known & (period == value))
        level_labels = {
            lv: pd.to_numeric(rows[col].iloc[in_slice], errors="coerce").fillna(-1).to_numpy(np.int64)
            for lv, col in columns.items()
        }
        finest = level_labels[min(level_labels)]
        vectorizer = make_vectorizer(len(in_slice), max(2, len(set(finest.tolist()))))
        try:
            counts = sparse.csr_matrix(vectorizer.fit_transform(text_array[in_slice]))
        except ValueError:  # an empty vocabulary (a slice of stop words only)
            continue
        vocab = vectorizer.get_feature_names_out()
        for lv, labels in level_labels.items():
            nodes, classes = np.unique(labels, return_inverse=True)
            scores = _ctfidf(counts, classes, len(nodes))
            order = representative_order(vectors[in_slice], labels)
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
                        "keywords": _top_phrases(scores[row], vocab, n_words),
                        "representative_ids": ids[nearest].tolist(),
                        "representative_titles": [str(t) for t in titles[nearest]],
                    }
                )
    columns_out = ["level", "topic", "period", "n", "keywords", "representative_ids", "representative_titles"]
    out = pd.DataFrame.from_records(records, columns=columns_out)
    return out.sort_values(["level", "topic", "period"], kind="mergesort").reset_index(drop=True)
