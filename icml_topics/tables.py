"""Build the fitted tables (``documents_``, ``topics_``, ``themes_``) from the stages' outputs.

The column contract is in docs/architecture.md; every input row appears exactly once in documents_.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from icml_topics.errors import InvalidValueError, UnknownNameError
from icml_topics.fitted_tables import level_column, modelled_mask, modelled_rows
from icml_topics.schema import (
    DOCUMENT_COLUMNS,
    REPRESENTATIVE_COLUMNS,
    TEXT_COLUMNS,
    THEME_TABLE_COLUMNS,
    TOPIC_COLUMNS,
    TOPIC_DTYPE,
    TREE_COLUMNS,
    level_columns,
    with_text_dtypes,
)
from icml_topics.stages.keyphrases import clean_keyphrases
from icml_topics.stages.naming import OUTLIER_LABEL
from icml_topics.stages.representatives import label_rows, representative_order
from icml_topics.themes.assign import DocumentThemes, ThemeRule

__all__ = [
    "DOCUMENT_COLUMNS",
    "N_REPRESENTATIVE",
    "REPRESENTATIVE_COLUMNS",
    "TOPIC_COLUMNS",
    "document_info",
    "documents_table",
    "nearest_topics",
    "representative_rows",
    "theme_ranking",
    "themes_table",
    "topic_centroids",
    "topics_table",
    "tree_frame",
    "tree_level",
    "tree_level_rows",
    "with_representatives",
    "with_tree_columns",
]

N_REPRESENTATIVE = 3


def documents_table(
    flagged: pd.DataFrame,
    labels: np.ndarray,
    topic_names: Mapping[int, str],
    themes: DocumentThemes,
    coords: np.ndarray,
    similarity: np.ndarray | None = None,
) -> pd.DataFrame:
    """One row per input row, indexed by the paper id (the ``id`` column stays); modelled rows
    (``fitted_tables.modelled_mask``) get the stage results in order. ``topic`` is ``Int64``, text columns ``string``;
    ``similarity``: each modelled row's cosine to its topic's centroid (``topic_similarity``; NaN: none)."""
    out = flagged.reset_index(drop=True).copy()
    ok = modelled_mask(out)
    n = len(out)
    topic = pd.array([pd.NA] * n, dtype=TOPIC_DTYPE)
    topic[ok] = labels
    out["topic"] = topic
    out["topic_label"] = ""
    out.loc[ok, "topic_label"] = [topic_names.get(int(t), OUTLIER_LABEL) for t in labels]
    sim = np.full(n, np.nan, dtype=np.float64)
    if similarity is not None:
        sim[ok] = similarity
    out["topic_similarity"] = np.round(sim, 4)
    for column, names, scores in (("theme", themes.theme, themes.score), ("theme_2", themes.theme_2, themes.score_2)):
        out[column] = ""
        out.loc[ok, column] = list(names)
        score = np.full(n, np.nan, dtype=np.float64)
        score[ok] = scores
        out[column + "_score"] = np.round(score, 4)
    out["theme_reason"] = ""
    out.loc[ok, "theme_reason"] = list(themes.reason)
    out.loc[~ok, "theme_reason"] = "not modelled: " + out.loc[~ok, "drop_reason"].astype(str)
    xy = np.full((n, 2), np.nan, dtype=np.float64)
    xy[ok] = coords[:, :2]
    out["x"], out["y"] = np.round(xy[:, 0], 5), np.round(xy[:, 1], 5)
    extra = [c for c in out.columns if c not in DOCUMENT_COLUMNS and c != "text"]  # the modelled text stays internal
    out = with_text_dtypes(out[DOCUMENT_COLUMNS + extra], TEXT_COLUMNS)  # decision, source, area, ...: string too
    out.index = pd.Index(out["id"].to_numpy(), dtype="string")
    return out


def with_tree_columns(documents: pd.DataFrame, tree_labels: np.ndarray | None) -> pd.DataFrame:
    """``documents`` with one ``topic_<level>`` column per tree level after ``x, y`` (``Int64``: the
    node, -1 = none at that level, NA = not modelled); ``tree_labels``: (n modelled, n levels) or None.
    Level columns already there (an input that had them) are replaced."""
    out = documents.drop(columns=level_columns(documents.columns))
    if tree_labels is None:
        return out
    ok = modelled_mask(out)
    at = out.columns.get_loc("y") + 1  # after DOCUMENT_COLUMNS, before extra input columns
    for level in range(tree_labels.shape[1]):
        column = pd.array([pd.NA] * len(out), dtype=TOPIC_DTYPE)
        column[ok] = tree_labels[:, level]
        out.insert(at + level, level_column(level), column)
    return out


def tree_level(
    level: int,
    tree,
    labels: np.ndarray,
    theme: Mapping[int, str],
    score: Mapping[int, float],
    purity: Mapping[int, float],
    state,
) -> pd.DataFrame:
    """The ``topic_tree_`` rows of one level of ``tree`` (a ``TopicTree``):
    size, theme and purity from its papers, x / y the mean map position of its papers."""
    nodes = tree.nodes(level)
    sizes = pd.Series(labels).value_counts()
    rows, empty = label_rows(labels), np.zeros(0, dtype=np.int64)  # one sort, not a pass over the corpus a node
    xy = np.vstack([state.coords[rows.get(t, empty), :2].mean(axis=0) for t in nodes]) if nodes else np.zeros((0, 2))
    frame = pd.DataFrame(
        {
            "level": level,
            "topic": nodes,
            "parent": [tree.parents[level][t] for t in nodes],
            "label": [tree.names[level].get(t, "") for t in nodes],
            "size": [int(sizes.get(t, 0)) for t in nodes],
            "stability": [
                round(float(tree.stability[level].get(t, np.nan)), 4) if tree.stability else np.nan for t in nodes
            ],
            "theme": [theme.get(t, "") for t in nodes],
            "theme_score": [round(float(score.get(t, np.nan)), 4) for t in nodes],
            "purity": [round(float(purity.get(t, np.nan)), 4) for t in nodes],
            "x": np.round(xy[:, 0], 5),
            "y": np.round(xy[:, 1], 5),
            "keywords": [clean_keyphrases(tree.keywords[level].get(t, [])) for t in nodes],
        }
    )
    ids = state.modelled["id"].astype(str).tolist()
    titles = state.modelled["title"].astype("string").fillna("").tolist()
    order = representative_order(state.embeddings, labels)
    picks = [order[t][:N_REPRESENTATIVE] for t in nodes]
    frame["representative_ids"] = [[ids[i] for i in rows] for rows in picks]
    frame["representative_titles"] = [[titles[i] for i in rows] for rows in picks]
    return frame


def tree_frame(levels: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The levels' rows as one ``topic_tree_`` table (columns ``schema.TREE_COLUMNS``, typed)."""
    frame = pd.concat(levels, ignore_index=True) if levels else pd.DataFrame(columns=TREE_COLUMNS)
    return frame.astype(
        {"level": "int64", "topic": "int64", "parent": "int64", "size": "int64", "label": "string", "theme": "string"}
    )[TREE_COLUMNS]


def tree_level_rows(tree: pd.DataFrame, level: int) -> pd.DataFrame:
    """The rows of ``tree`` (``topic_tree_``) at ``level``; ``ValueError`` naming the levels there are."""
    levels = sorted(set(tree["level"].tolist()))
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or level not in levels:
        raise InvalidValueError(
            f"level={level!r} is not a level of this topic tree: use one of {levels}"
            + ("" if levels else " (none: this table has no tree; fit a TopicMap and use its topic_tree_)")
            + "."
        )
    return tree[tree["level"] == level].reset_index(drop=True)


def topic_centroids(embeddings: np.ndarray, labels: np.ndarray, topics: Sequence[int]) -> np.ndarray:
    """L2-normalised mean embedding of each topic's documents, rows in the order of ``topics``."""
    members, rows = label_rows(labels), []
    empty = np.zeros(0, dtype=np.int64)
    for t in topics:
        v = embeddings[members.get(int(t), empty)].mean(axis=0)
        rows.append(v / (np.linalg.norm(v) or 1.0))
    return np.vstack(rows).astype(np.float32) if rows else np.zeros((0, embeddings.shape[1]), np.float32)


def topics_table(
    labels: np.ndarray,
    keywords: Mapping[int, Sequence[str]],
    topic_names: Mapping[int, str],
    topic_theme: Mapping[int, str],
    topic_score: Mapping[int, float],
    topic_purity: Mapping[int, float] | None = None,
    stability: Mapping[int, float] | None = None,
) -> pd.DataFrame:
    """One row per topic (papers without one, ``-1``, last when present), sorted by topic id; ``stability``:
    the share of the hierarchy's perturbed runs in which each topic reappears."""
    sizes = pd.Series(labels).value_counts()
    topics = sorted(int(t) for t in sizes.index if t != -1) + ([-1] if -1 in sizes.index else [])
    return pd.DataFrame(
        {
            "topic": pd.array(topics, dtype=TOPIC_DTYPE),
            "label": pd.array([topic_names.get(t, OUTLIER_LABEL) for t in topics], dtype="string"),
            "theme": pd.array([topic_theme.get(t, "") for t in topics], dtype="string"),
            "theme_score": [round(float(topic_score.get(t, np.nan)), 4) for t in topics],
            "theme_purity": [round(float((topic_purity or {}).get(t, np.nan)), 4) for t in topics],
            "size": [int(sizes[t]) for t in topics],
            "stability": [round(float((stability or {}).get(t, np.nan)), 4) for t in topics],
            "keywords": [clean_keyphrases(keywords.get(t, [])) for t in topics],
        },
        columns=TOPIC_COLUMNS,
    )


def with_representatives(
    topics: pd.DataFrame, documents: pd.DataFrame, embeddings: np.ndarray, labels: np.ndarray, k: int = N_REPRESENTATIVE
) -> pd.DataFrame:
    """``topics`` plus ``REPRESENTATIVE_COLUMNS``: the ``k`` papers nearest each topic's centroid."""
    ok = modelled_rows(documents)
    ids = ok["id"].astype(str).tolist()
    titles = ok["title"].astype("string").fillna("").tolist() if "title" in ok.columns else [""] * len(ok)
    order = representative_order(embeddings, labels)
    out = topics.copy()
    picks = [order.get(int(t), np.array([], dtype=np.int64))[:k] for t in out["topic"]]
    out["representative_ids"] = [[ids[i] for i in rows] for rows in picks]
    out["representative_titles"] = [[titles[i] for i in rows] for rows in picks]
    return out


def themes_table(documents: pd.DataFrame, topics: pd.DataFrame, descriptions: Mapping[str, str]) -> pd.DataFrame:
    """One row per theme present, largest first, with its share of the modelled documents."""
    ok = modelled_rows(documents)
    assigned = ok[ok["theme"] != ""]
    sizes = assigned["theme"].value_counts()
    real_topics = topics[topics["topic"] != -1]
    n_topics = real_topics.groupby("theme")["topic"].count()
    rows = [
        {
            "theme": name,
            "description": descriptions.get(name, "Topics that fit no taxonomy theme well: " + name.split(": ", 1)[-1]),
            "size": int(size),
            "share": round(float(size) / max(len(ok), 1), 4),
            "n_topics": int(n_topics.get(name, 0)),
        }
        for name, size in sizes.items()
    ]
    frame = pd.DataFrame(rows, columns=THEME_TABLE_COLUMNS).astype({"theme": "string", "description": "string"})
    return frame.sort_values(["size", "theme"], ascending=[False, True], ignore_index=True)


def theme_ranking(documents: pd.DataFrame, rule: ThemeRule, proba: np.ndarray, k: int = 3) -> pd.DataFrame:
    """Top-``k`` themes of every modelled document by probability (``proba``: the rule's columns):
    columns ``id, rank, theme, score``."""
    grouped, names = rule.grouped(proba), rule.unique_names
    top = np.argsort(-grouped, axis=1, kind="stable")[:, :k]
    ids = modelled_rows(documents)["id"].to_numpy()
    rows = [
        (ids[i], r + 1, names[j], round(float(grouped[i, j]), 4)) for i in range(len(ids)) for r, j in enumerate(top[i])
    ]
    return pd.DataFrame(rows, columns=["id", "rank", "theme", "score"])


def representative_rows(documents: pd.DataFrame, topics: pd.DataFrame, topic: int) -> pd.DataFrame:
    """The ``documents`` rows (columns ``id, title, year, venue, authors``) of ``topic``'s representative
    papers, nearest its centroid first."""
    row = topics.loc[topics["topic"] == topic]
    if row.empty:
        raise UnknownNameError(
            f"Unknown topic {topic!r}. Topics are the integers in topics_['topic']: {topics['topic'].tolist()}."
        )
    ids = [str(i) for i in row["representative_ids"].iloc[0]]
    docs = documents.assign(_id=documents["id"].astype(str)).set_index("_id")
    columns = [c for c in ("id", "title", "year", "venue", "authors") if c in docs.columns]
    return docs.loc[ids, columns].reset_index(drop=True)


def document_info(documents: pd.DataFrame, topics: pd.DataFrame) -> pd.DataFrame:
    """One row per modelled paper (BERTopic's ``get_document_info``): ``id, title, year, topic, topic_label,
    keywords, theme, theme_score, representative`` (``True`` for the topic's papers in ``representative_ids``)."""
    ok = modelled_rows(documents)
    keywords = dict(zip(topics["topic"].astype(int), topics["keywords"]))
    representative = {str(i) for ids in topics.get("representative_ids", []) for i in ids}
    out = pd.DataFrame(
        {
            "id": ok["id"],
            "title": ok["title"] if "title" in ok.columns else pd.Series(pd.NA, index=ok.index, dtype="string"),
            "year": ok["year"],
            "topic": ok["topic"],
            "topic_label": ok["topic_label"],
            "keywords": [list(keywords.get(int(t), [])) for t in ok["topic"]],
            "theme": ok["theme"],
            "theme_score": ok["theme_score"],
            "representative": [str(i) in representative for i in ok["id"]],
        }
    )
    return out.reset_index(drop=True)


def nearest_topics(topics: pd.DataFrame, topic_embeddings: np.ndarray, query: np.ndarray, k: int) -> pd.DataFrame:
    """The ``k`` topics (outliers excluded) whose centroid (``topic_embeddings``, rows as ``topics``) is
    most cosine-similar to the L2-normalised ``query`` vector: ``topic, label, theme, size, similarity``."""
    real = (topics["topic"] != -1).to_numpy()
    centroids = np.asarray(topic_embeddings)[real]
    sims = centroids @ np.asarray(query, dtype=np.float32).ravel()
    order = np.argsort(-sims, kind="stable")[:k]
    out = topics.loc[real, ["topic", "label", "theme", "size"]].iloc[order].reset_index(drop=True)
    out["similarity"] = np.round(sims[order].astype(float), 4)
    return out
