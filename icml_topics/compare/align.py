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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from icml_topics.errors import InvalidTypeError, InvalidValueError
from icml_topics.schema import split_cell
from icml_topics.stages.hierarchy import MIN_STABILITY
from icml_topics.text import letter_runs

__all__ = ["RESOLUTION_GAP", "STATUSES", "TopicAlignment", "align_topics"]

STATUSES = ("matched", "split", "merged", "finer", "coarser", "vanished", "new")
#: node-count ratio from which a split / merge can be a granularity difference
RESOLUTION_GAP = 2.0


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


def _keywords(value: Any) -> list[str]:
    """Keyword list from a list / array or a ``"; "``-joined string (as in topics.csv)."""
    return split_cell(value)


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


def _jaccard(words_a: Sequence[set[str]], words_b: Sequence[set[str]]) -> np.ndarray:
    out = np.zeros((len(words_a), len(words_b)))
    for i, wa in enumerate(words_a):
        for j, wb in enumerate(words_b):
            union = len(wa | wb)
            out[i, j] = len(wa & wb) / union if union else 0.0
    return out


def _embedded_keywords(
    kw_a: list[list[str]], kw_b: list[list[str]], embedder: Callable[[list[str]], np.ndarray]
) -> np.ndarray:
    vocab = sorted({k for kws in kw_a + kw_b for k in kws})
    if not vocab:
        return np.zeros((len(kw_a), len(kw_b)))
    vecs = np.asarray(embedder(vocab), dtype=float)
    if vecs.ndim != 2 or vecs.shape[0] != len(vocab):
        raise InvalidValueError(
            f"keyword_embedder must return one row per input string ({len(vocab)} rows), got shape "
            f"{getattr(vecs, 'shape', None)}; e.g. keyword_embedder=lambda texts: embed(texts)."
        )
    index = {k: i for i, k in enumerate(vocab)}

    def means(kws: list[list[str]]) -> np.ndarray:
        m = np.zeros((len(kws), vecs.shape[1]))
        for i, ks in enumerate(kws):
            if ks:
                m[i] = vecs[[index[k] for k in ks]].mean(axis=0)
        n = np.linalg.norm(m, axis=1, keepdims=True)
        return np.divide(m, n, out=np.zeros_like(m), where=n > 0)

    return np.clip(means(kw_a) @ means(kw_b).T, -1.0, 1.0)


def _unstable(topics: pd.DataFrame) -> np.ndarray:
    """Which topics reappear in fewer than ``MIN_STABILITY`` of the perturbed runs (unknown: stable)."""
    if "stability" not in topics.columns:
        return np.zeros(len(topics), dtype=bool)
    return (pd.to_numeric(topics["stability"], errors="coerce") < MIN_STABILITY).fillna(False).to_numpy(dtype=bool)


def _stable_links(
    links: list[tuple[int, int]], sim: np.ndarray, unstable_a: np.ndarray, unstable_b: np.ndarray
) -> list[tuple[int, int]]:
    """``links`` where an unstable node keeps only its most similar link (no split or merge of it).

    >>> _stable_links([(0, 0), (0, 1)], np.array([[0.9, 0.8]]), np.array([True]), np.array([False, False]))
    [(0, 0)]
    """
    keep = set(links)
    for side, unstable in ((0, unstable_a), (1, unstable_b)):
        for node in np.flatnonzero(unstable):
            mine = [link for link in keep if link[side] == node]
            if len(mine) > 1:
                best = max(mine, key=lambda link: (sim[link], -link[1 - side]))
                keep -= set(mine) - {best}
    return sorted(keep)


def _links(sim: np.ndarray, threshold: float, mode: str) -> list[tuple[int, int]]:
    n_a, n_b = sim.shape
    if n_a == 0 or n_b == 0:
        return []
    if mode == "one-to-one":
        rows, cols = linear_sum_assignment(sim, maximize=True)
        return sorted((int(i), int(j)) for i, j in zip(rows, cols, strict=True) if sim[i, j] >= threshold)
    edges = {(int(sim[:, j].argmax()), j) for j in range(n_b) if sim[:, j].max() >= threshold}
    edges |= {(i, int(sim[i].argmax())) for i in range(n_a) if sim[i].max() >= threshold}
    return sorted(edges)


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
    if mode not in ("one-to-one", "many-to-one"):
        raise InvalidValueError(f"mode must be 'one-to-one' or 'many-to-one', got {mode!r}.")
    if not 0.0 <= float(keyword_weight) <= 1.0:
        raise InvalidValueError(f"keyword_weight must be between 0 and 1 (0 = centroids only), got {keyword_weight!r}.")
    if not np.isfinite(threshold):
        raise InvalidValueError(f"threshold must be a finite similarity (e.g. 0.7), got {threshold!r}.")
    need_kw = keyword_weight > 0
    ta, ea = _prepare(topics_a, emb_a, "a", need_kw)
    tb, eb = _prepare(topics_b, emb_b, "b", need_kw)
    if ea.shape[1] != eb.shape[1]:
        raise InvalidValueError(
            f"centroids have different dimensions ({ea.shape[1]} vs {eb.shape[1]}): the models used "
            "different embedding models; align models fitted with the same one."
        )
    centroid = np.clip(ea @ eb.T, -1.0, 1.0)
    if need_kw:
        kw_a = [_keywords(v) for v in ta["keywords"]]
        kw_b = [_keywords(v) for v in tb["keywords"]]
        if keyword_embedder is None:
            words = lambda kws: [{w for k in ks for w in letter_runs(k)} for ks in kws]  # noqa: E731
            keyword = _jaccard(words(kw_a), words(kw_b))
        else:
            keyword = _embedded_keywords(kw_a, kw_b, keyword_embedder)
    else:
        keyword = np.zeros_like(centroid)
    sim = (1.0 - keyword_weight) * centroid + keyword_weight * keyword
    unstable_a, unstable_b = _unstable(ta), _unstable(tb)
    links = _stable_links(_links(sim, float(threshold), mode), sim, unstable_a, unstable_b)

    partners_a: list[list[int]] = [[] for _ in range(len(ta))]
    partners_b: list[list[int]] = [[] for _ in range(len(tb))]
    for i, j in links:
        partners_a[i].append(j)
        partners_b[j].append(i)

    ratio = len(tb) / len(ta) if len(ta) else 1.0

    def explained(k: int, finer: bool) -> bool:
        """``k`` partners on one side are what the resolution difference alone would give."""
        gap = ratio if finer else (1.0 / ratio if ratio > 0 else np.inf)
        return gap >= RESOLUTION_GAP and k <= int(np.ceil(gap - 1e-9))

    def split_word(k: int) -> str:
        return "finer" if explained(k, finer=True) else "split"

    def merge_word(k: int) -> str:
        return "coarser" if explained(k, finer=False) else "merged"

    def relation(i: int, j: int) -> str:
        k_a, k_b = len(partners_a[i]), len(partners_b[j])
        if k_a > 1 and k_b > 1:
            return "split+merged"
        return split_word(k_a) if k_a > 1 else merge_word(k_b) if k_b > 1 else "matched"

    def margin(i: int, j: int) -> float:
        row = np.delete(sim[i], j)
        col = np.delete(sim[:, j], i)
        rest = max(row.max() if row.size else -1.0, col.max() if col.size else -1.0)
        return float(sim[i, j] - rest) if rest > -1.0 else float("nan")

    def confidence(i: int, j: int) -> str:
        m, s_ij = margin(i, j), sim[i, j]
        if unstable_a[i] or unstable_b[j]:
            return "low"
        if (np.isnan(m) or m >= 0.05) and s_ij >= threshold + 0.05:
            return "high"
        return "low" if (not np.isnan(m) and m < 0.02) or s_ij < threshold + 0.02 else "medium"

    pairs = pd.DataFrame(
        [
            {
                "topic_a": ta["topic"].iloc[i],
                "label_a": ta["label"].iloc[i],
                "topic_b": tb["topic"].iloc[j],
                "label_b": tb["label"].iloc[j],
                "similarity": float(sim[i, j]),
                "centroid_similarity": float(centroid[i, j]),
                "keyword_similarity": float(keyword[i, j]),
                "size_a": ta["size"].iloc[i],
                "size_b": tb["size"].iloc[j],
                "relation": relation(i, j),
                "margin": margin(i, j),
                "confidence": confidence(i, j),
            }
            for i, j in links
        ],
        columns=[
            "topic_a",
            "label_a",
            "topic_b",
            "label_b",
            "similarity",
            "centroid_similarity",
            "keyword_similarity",
            "size_a",
            "size_b",
            "relation",
            "margin",
            "confidence",
        ],
    )
    if not pairs.empty:
        pairs = pairs.sort_values(
            ["topic_a", "similarity", "topic_b"], ascending=[True, False, True], kind="mergesort"
        ).reset_index(drop=True)

    def side_rows(
        side: str, table: pd.DataFrame, partners: list[list[int]], other: pd.DataFrame, s: np.ndarray
    ) -> list[dict[str, Any]]:
        rows = []
        for i in range(len(table)):
            mine = partners[i]
            if not mine:
                status = "vanished" if side == "a" else "new"
            elif len(mine) > 1:
                status = split_word(len(mine)) if side == "a" else merge_word(len(mine))
            else:
                degree = len((partners_b if side == "a" else partners_a)[mine[0]])
                status = "matched" if degree <= 1 else merge_word(degree) if side == "a" else split_word(degree)
            best = int(s[i].argmax()) if s.shape[1] else None
            rows.append(
                {
                    "side": side,
                    "topic": table["topic"].iloc[i],
                    "label": table["label"].iloc[i],
                    "size": table["size"].iloc[i],
                    "status": status,
                    "partners": [other["topic"].iloc[k] for k in mine],
                    "best_match": other["topic"].iloc[best] if best is not None else None,
                    "best_similarity": float(s[i, best]) if best is not None else float("nan"),
                }
            )
        return rows

    summary = pd.DataFrame(
        side_rows("a", ta, partners_a, tb, sim) + side_rows("b", tb, partners_b, ta, sim.T),
        columns=["side", "topic", "label", "size", "status", "partners", "best_match", "best_similarity"],
    )
    return TopicAlignment(
        pairs=pairs,
        summary=summary,
        similarity=sim,
        centroid_similarity=centroid,
        keyword_similarity=keyword,
        topics_a=ta["topic"].to_numpy(),
        topics_b=tb["topic"].to_numpy(),
        threshold=float(threshold),
        mode=mode,
        keyword_weight=float(keyword_weight),
        resolution_ratio=float(ratio),
    )
