"""Match the topics of two separately fitted models (e.g. ICML 2019 and ICML 2024).

Similarity between topic *i* of A and topic *j* of B is
``(1 - keyword_weight) * cosine(centroid_i, centroid_j) + keyword_weight * keyword_similarity``,
where keyword similarity is the Jaccard index of the words in the two keyword lists, or (with a
``keyword_embedder``) the cosine of the mean keyword embeddings. Outlier topics (-1) are ignored.

* ``mode="one-to-one"``: optimal assignment (Hungarian algorithm); pairs below ``threshold`` are
  dropped. Topics are only "matched", "vanished" (A) or "new" (B).
* ``mode="many-to-one"`` (default): every topic is linked to its most similar topic on the other
  side when that similarity reaches ``threshold``. A topic of A linked to two or more topics of B
  *split*; a topic of B linked to two or more topics of A is a *merge*.

Resolution. Two models of different granularity (2019 fitted into 40 topics, 2024 into 12) would
show many "merges" that only say B is coarser. ``resolution_ratio`` = topics of B / topics of A;
when B is coarser by at least ``RESOLUTION_GAP`` (ratio <= 1/2) a merge of no more A topics than
the ratio explains is reported as ``coarser``, not ``merged`` (and a split into a finer B as
``finer``). [`align_models`][icml_topics.compare.align_models] goes further with models that have a topic tree: it aligns the two
tree levels whose node counts match best (``level="match"``), so merges and splits compare like with
like. Each link also has a ``margin`` (its similarity minus the next best on either side) and a
``confidence`` (``high``: margin >= 0.05 and similarity >= threshold + 0.05; ``low``: margin < 0.02 or
similarity within 0.02 of the threshold; ``medium`` otherwise).

Stability. A split or merge says something only between nodes that another perturbation of the data
would find again: with a ``stability`` column in ``topics_`` (the share of the hierarchy's perturbed runs
in which a node reappears), a node under ``MIN_STABILITY`` keeps only its best link, so it is matched,
never split or merged, and a link touching one has ``low`` confidence.

Examples:
    >>> import numpy as np, pandas as pd
    >>> ta = pd.DataFrame({"topic": [0, 1], "label": ["RL", "GNN"], "size": [30, 20],
    ...                    "keywords": [["policy", "reward"], ["graph", "node"]]})
    >>> tb = pd.DataFrame({"topic": [0, 1], "label": ["RL", "LLMs"], "size": [25, 40],
    ...                    "keywords": [["policy", "reward"], ["language", "model"]]})
    >>> al = align_topics(ta, np.eye(3)[:2], tb, np.eye(3)[[0, 2]])
    >>> al.counts()
    {'matched': 1, 'split': 0, 'merged': 0, 'finer': 0, 'coarser': 0, 'vanished': 1, 'new': 1}
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from icml_topics.errors import InvalidTypeError, InvalidValueError
from icml_topics.schema import ALIGN_PAIR_COLUMNS, ALIGN_SUMMARY_COLUMNS
from icml_topics.stages.hierarchy import MIN_STABILITY

from .align_links import RESOLUTION_GAP, LinkGraph, link_graph, similarities, unstable

__all__ = ["MIN_STABILITY", "RESOLUTION_GAP", "STATUSES", "TopicAlignment", "align_topics"]

STATUSES = ("matched", "split", "merged", "finer", "coarser", "vanished", "new")


@dataclass(eq=False)
class TopicAlignment:
    """Result of [`align_topics`][icml_topics.compare.align_topics] (and
    [`align_models`][icml_topics.compare.align_models]); built by them, not by hand.

    Args:
        pairs: one row per link: ``topic_a, label_a, topic_b, label_b, similarity,
            centroid_similarity, keyword_similarity, size_a, size_b, relation`` (``relation`` is
            "matched", "split", "merged" or "split+merged" when both ends have several partners).
        summary: one row per topic of either side: ``side`` ("a"/"b"), ``topic``, ``label``, ``size``,
            ``status`` (one of ``STATUSES``), ``partners`` (topic ids on the other side),
            ``best_match`` and ``best_similarity`` (closest topic on the other side, even below
            the threshold: use it to judge whether a "vanished" topic really vanished).
        similarity: the combined similarity matrix: rows = ``topics_a``, columns = ``topics_b``.
        centroid_similarity: the cosine similarity of the topic centroids, same rows and columns.
        keyword_similarity: the keyword similarity, same rows and columns.
        topics_a: A's topic ids (outliers removed), the rows of the matrices.
        topics_b: B's topic ids (outliers removed), their columns.
        threshold: the similarity a link needs.
        mode: ``"many-to-one"`` or ``"one-to-one"`` (see the module docstring).
        keyword_weight: the weight of keyword similarity in ``similarity``.
        resolution_ratio: topics of B / topics of A (``coarser``/``finer`` links, see the module docstring).
        levels: the tree levels of A and B that were aligned (``align_models``); ``(None, None)``: fine topics.

    Examples:
        >>> alignment = align_models(tm_2019, tm_2024)
        >>> alignment.summary.head()
    """

    pairs: pd.DataFrame
    summary: pd.DataFrame
    similarity: np.ndarray
    centroid_similarity: np.ndarray
    keyword_similarity: np.ndarray
    topics_a: np.ndarray
    topics_b: np.ndarray
    threshold: float
    mode: str
    keyword_weight: float
    resolution_ratio: float = 1.0
    levels: tuple[Any, Any] = (None, None)

    @property
    def status_a(self) -> pd.Series:
        """Status of each topic of A, indexed by topic id."""
        return self._status("a")

    @property
    def status_b(self) -> pd.Series:
        """Status of each topic of B, indexed by topic id."""
        return self._status("b")

    def _status(self, side: str) -> pd.Series:
        rows = self.summary[self.summary["side"] == side]
        return pd.Series(
            rows["status"].to_numpy(), index=pd.Index(rows["topic"].to_numpy(), name="topic"), name="status"
        )

    def counts(self) -> dict[str, int]:
        """Events: 1:1 ``matched`` pairs, A topics that ``split``, B topics that are ``merged``, splits
        into a finer B and merges into a coarser B that the resolution explains (``finer``, ``coarser``),
        ``vanished`` A topics and ``new`` B topics.

        Example: A has 5 topics, B has 5; A1 split into B1, B2; A2 and A3 merged into B3; A0 ~ B0;
        A4 vanished; B4 is new -> ``{"matched": 1, "split": 1, "merged": 1, "finer": 0, "coarser": 0,
        "vanished": 1, "new": 1}``.
        """
        a, b = self.status_a, self.status_b
        return {
            "matched": int((self.pairs["relation"] == "matched").sum()),
            "split": int((a == "split").sum()),
            "merged": int((b == "merged").sum()),
            "finer": int((a == "finer").sum()),
            "coarser": int((b == "coarser").sum()),
            "vanished": int((a == "vanished").sum()),
            "new": int((b == "new").sum()),
        }

    def to_frame(self) -> pd.DataFrame:
        """A crosswalk table: one row per link plus one per vanished or new topic (``status`` column)."""
        links = self.pairs.rename(columns={"relation": "status"})
        s = self.summary
        vanished = s[(s["side"] == "a") & (s["status"] == "vanished")]
        new = s[(s["side"] == "b") & (s["status"] == "new")]
        extra = pd.concat(
            [
                pd.DataFrame(
                    {
                        "topic_a": vanished["topic"],
                        "label_a": vanished["label"],
                        "size_a": vanished["size"],
                        "status": "vanished",
                    }
                ),
                pd.DataFrame(
                    {"topic_b": new["topic"], "label_b": new["label"], "size_b": new["size"], "status": "new"}
                ),
            ],
            ignore_index=True,
        )
        frames = [f for f in (links, extra) if not f.empty]
        out = pd.concat(frames, ignore_index=True) if frames else links.copy()
        cols = [
            "topic_a",
            "label_a",
            "size_a",
            "topic_b",
            "label_b",
            "size_b",
            "similarity",
            "centroid_similarity",
            "keyword_similarity",
            "margin",
            "confidence",
            "status",
        ]
        out = out.reindex(columns=cols)
        for col in ("topic_a", "topic_b"):
            out[col] = out[col].astype("Int64")
        return out

    def __repr__(self) -> str:
        c = ", ".join(f"{k}={v}" for k, v in self.counts().items())
        return (
            f"TopicAlignment(mode={self.mode!r}, threshold={self.threshold}, "
            f"topics_a={len(self.topics_a)}, topics_b={len(self.topics_b)}: {c})"
        )


def _prepare(topics: pd.DataFrame, emb: np.ndarray, name: str, need_keywords: bool) -> tuple[pd.DataFrame, np.ndarray]:
    if not isinstance(topics, pd.DataFrame):
        raise InvalidTypeError(
            f"topics_{name} must be a DataFrame following the topics_ contract (TopicMap.topics_), "
            f"got {type(topics).__name__}."
        )
    required = ["topic", "label", "size"] + (["keywords"] if need_keywords else [])
    missing = [c for c in required if c not in topics.columns]
    if missing:
        hint = " (or pass keyword_weight=0 to use centroids only)" if missing == ["keywords"] else ""
        raise InvalidValueError(
            f"topics_{name} is missing columns {missing}; pass a table following the topics_ "
            f"contract (columns topic, label, size, keywords){hint}."
        )
    emb = np.asarray(emb, dtype=float)
    if emb.ndim != 2 or emb.shape[0] != len(topics):
        raise InvalidValueError(
            f"emb_{name} must have one row per row of topics_{name} ({len(topics)} rows), got shape "
            f"{emb.shape}; pass the model's topic_embeddings_ aligned with its topics_."
        )
    keep = (topics["topic"].astype("Int64") != -1).fillna(True).to_numpy(dtype=bool)
    table = topics.loc[keep].reset_index(drop=True)
    if table["topic"].duplicated().any():
        raise InvalidValueError(
            f"topics_{name} has duplicated topic ids {table['topic'][table['topic'].duplicated()].tolist()}; "
            "each topic must appear once."
        )
    vectors = emb[keep]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return table, np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def _check_options(mode: str, keyword_weight: float, threshold: float) -> None:
    if mode not in ("one-to-one", "many-to-one"):
        raise InvalidValueError(f"mode must be 'one-to-one' or 'many-to-one', got {mode!r}.")
    if not 0.0 <= float(keyword_weight) <= 1.0:
        raise InvalidValueError(f"keyword_weight must be between 0 and 1 (0 = centroids only), got {keyword_weight!r}.")
    if not np.isfinite(threshold):
        raise InvalidValueError(f"threshold must be a finite similarity (e.g. 0.7), got {threshold!r}.")


def _pairs(
    graph: LinkGraph, ta: pd.DataFrame, tb: pd.DataFrame, centroid: np.ndarray, keyword: np.ndarray
) -> pd.DataFrame:
    """One row per link (``TopicAlignment.pairs``), by topic of A, most similar first."""
    pairs = pd.DataFrame(
        [
            {
                "topic_a": ta["topic"].iloc[i],
                "label_a": ta["label"].iloc[i],
                "topic_b": tb["topic"].iloc[j],
                "label_b": tb["label"].iloc[j],
                "similarity": float(graph.sim[i, j]),
                "centroid_similarity": float(centroid[i, j]),
                "keyword_similarity": float(keyword[i, j]),
                "size_a": ta["size"].iloc[i],
                "size_b": tb["size"].iloc[j],
                "relation": graph.relation(i, j),
                "margin": graph.margin(i, j),
                "confidence": graph.confidence(i, j),
            }
            for i, j in graph.links
        ],
        columns=list(ALIGN_PAIR_COLUMNS),
    )
    if pairs.empty:
        return pairs
    return pairs.sort_values(
        ["topic_a", "similarity", "topic_b"], ascending=[True, False, True], kind="mergesort"
    ).reset_index(drop=True)


def _side_rows(graph: LinkGraph, side: str, table: pd.DataFrame, other: pd.DataFrame) -> list[dict[str, Any]]:
    """The ``summary`` rows of one side: status, partners and the closest topic on the other side."""
    s = graph.sim if side == "a" else graph.sim.T
    partners = graph.partners_a if side == "a" else graph.partners_b
    rows = []
    for i in range(len(table)):
        best = int(s[i].argmax()) if s.shape[1] else None
        rows.append(
            {
                "side": side,
                "topic": table["topic"].iloc[i],
                "label": table["label"].iloc[i],
                "size": table["size"].iloc[i],
                "status": graph.status(side, i),
                "partners": [other["topic"].iloc[k] for k in partners[i]],
                "best_match": other["topic"].iloc[best] if best is not None else None,
                "best_similarity": float(s[i, best]) if best is not None else float("nan"),
            }
        )
    return rows


def align_topics(
    topics_a: pd.DataFrame,
    emb_a: np.ndarray,
    topics_b: pd.DataFrame,
    emb_b: np.ndarray,
    *,
    threshold: float = 0.7,
    keyword_weight: float = 0.25,
    mode: Literal["one-to-one", "many-to-one"] = "many-to-one",
    keyword_embedder: Callable[[list[str]], np.ndarray] | None = None,
) -> TopicAlignment:
    """Match the topics of model A to those of model B; see the module docstring for the rules.

    ``topics_*`` follow the ``topics_`` contract; ``emb_*`` row *i* is the centroid of
    ``topics_*.iloc[i]`` (both models must use the same embedding model).

    Args:
        topics_a: model A's ``topics_`` table (``topic, label, size, keywords``).
        emb_a: the centroids of ``topics_a``, one row per topic.
        topics_b: model B's ``topics_`` table.
        emb_b: the centroids of ``topics_b``.
        threshold: the combined similarity a link needs.
        keyword_weight: the weight of keyword similarity against centroid similarity (0 to 1).
        mode: ``"many-to-one"`` (splits and merges) or ``"one-to-one"`` (optimal assignment).
        keyword_embedder: ``None``: keyword similarity is the Jaccard index of the keyword words; a
            function ``texts -> embeddings``: the cosine of the mean keyword embeddings instead.

    Examples:
        >>> import numpy as np, pandas as pd
        >>> t = pd.DataFrame({"topic": [0, 1], "label": ["RL", "GNN"], "size": [3, 2],
        ...                   "keywords": [["policy"], ["graph"]]})
        >>> align_topics(t, np.eye(2), t, np.eye(2)).pairs[["topic_a", "topic_b", "similarity"]].values.tolist()
        [[0.0, 0.0, 1.0], [1.0, 1.0, 1.0]]
    """
    _check_options(mode, keyword_weight, threshold)
    ta, ea = _prepare(topics_a, emb_a, "a", keyword_weight > 0)
    tb, eb = _prepare(topics_b, emb_b, "b", keyword_weight > 0)
    sim, centroid, keyword = similarities(ta, ea, tb, eb, keyword_weight, keyword_embedder)
    graph = link_graph(sim, threshold, mode, unstable(ta), unstable(tb))
    summary = pd.DataFrame(
        _side_rows(graph, "a", ta, tb) + _side_rows(graph, "b", tb, ta), columns=list(ALIGN_SUMMARY_COLUMNS)
    )
    return TopicAlignment(
        pairs=_pairs(graph, ta, tb, centroid, keyword),
        summary=summary,
        similarity=sim,
        centroid_similarity=centroid,
        keyword_similarity=keyword,
        topics_a=ta["topic"].to_numpy(),
        topics_b=tb["topic"].to_numpy(),
        threshold=float(threshold),
        mode=mode,
        keyword_weight=float(keyword_weight),
        resolution_ratio=float(graph.ratio),
    )
