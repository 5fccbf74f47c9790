"""The tree stage's work: every level's keyphrases (BERTopic's representation, cached), then the named tree.

>>> tree = topic_tree(config, texts, embeddings, embed, modelled, themes)  # doctest: +SKIP
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pandas as pd

from icml_topics._progress import step
from icml_topics._validation import valid_representation
from icml_topics.fit_config import FitConfig
from icml_topics.fit_inputs import EmbedFn
from icml_topics.stages import size_aware_defaults
from icml_topics.stages.keybert_bounded import MAX_CANDIDATES
from icml_topics.stages.represent import TopicRepresentation, represent_topics
from icml_topics.stages.tree import TopicTree, build_tree, renumbered_finest
from icml_topics.store.cache import cached_json, content_key

__all__ = [
    "PERIOD_COLUMN",
    "author_keywords",
    "periods",
    "represent",
    "represent_levels",
    "topic_tree",
]

logger = logging.getLogger("icml_topics")

PERIOD_COLUMN = "year"  # the periods a new subject is new in (stages/new_subjects.py)


def represent(
    texts: list[str], emb: np.ndarray, labels: np.ndarray, embed: EmbedFn, config: FitConfig
) -> TopicRepresentation:
    """BERTopic's representation, or the keyphrases it gave before for the same texts, labels and settings."""
    from icml_topics.embedding import cached_model_identity  # lazy: keeps TopicMap light

    sample_size = config.sample_size
    settings = dict(
        n_keywords=config.n_keywords, min_df=size_aware_defaults(len(texts)).min_df, random_state=config.seed
    )
    identity = cached_model_identity(config.embedding_model, config.embeddings_dir)
    large = config.is_large(len(texts))  # vocabulary from a sample and candidates bounded: keyed only then
    bounds = [sample_size, MAX_CANDIDATES] if large else []  # (a small corpus's keyphrases and keys unchanged)
    key = content_key("represent-v1", identity, sorted(settings.items()), texts, labels, *bounds)
    fresh: list[TopicRepresentation] = []

    def compute() -> dict:
        sample = texts[:: -(-len(texts) // sample_size)] if large else None
        fresh.append(represent_topics(texts, emb, labels, embed, vocabulary_from=sample, **settings))
        return {"labels": fresh[0].labels.tolist(), "keywords": {str(k): v for k, v in fresh[0].keywords.items()}}

    value = cached_json(key, compute, config.representations_dir, check=lambda v: valid_representation(v, len(texts)))
    if fresh:
        return fresh[0]
    logger.info("reusing cached keyphrases for %d topics", len(value["keywords"]))
    keywords = {int(k): list(v) for k, v in value["keywords"].items()}
    return TopicRepresentation(np.asarray(value["labels"], dtype=np.int64), keywords)


def represent_levels(
    texts: list[str], emb: np.ndarray, labels: np.ndarray, embed: EmbedFn, config: FitConfig
) -> list[TopicRepresentation]:
    """``represent`` of each level of ``labels`` (``(n, levels)``, finest first), in that order."""
    return [represent(texts, emb, labels[:, lv], embed, config) for lv in range(labels.shape[1])]


def topic_tree(
    config: FitConfig,
    texts: list[str],
    emb: np.ndarray,
    embed: EmbedFn,
    modelled: pd.DataFrame,
    themes: Sequence[str],
) -> TopicTree:
    """The topic tree stage (``stages/tree.py``) of the ``modelled`` rows (their ``texts``, embeddings ``emb``
    and ``themes``): the hierarchy under each paper's theme, each level's keyphrases computed as BERTopic's
    representation (and cached alike), every node named; with ``config.client``, each theme's consensus tree
    on its Dask workers (a cluster started for this fit, ``--workers``, is closed once they are built)."""
    numbering: list[dict[int, int]] = []  # per level: BERTopic's id of each node

    def keyphrases(labels: np.ndarray) -> list[dict[int, list[str]]]:
        if config.client is not None:  # the levels are built: the fit's last use of its Dask workers
            from icml_topics.embedding.distributed import release_cluster  # lazy: distributed is heavy

            release_cluster(config.client)  # a cluster started for this fit (--workers) is closed now
        step("keyphrases of %d levels (BERTopic's c-TF-IDF and KeyBERT)", labels.shape[1])
        out = []
        for rep, level in zip(represent_levels(texts, emb, labels, embed, config), labels.T, strict=True):
            ours: dict[int, int] = {}  # BERTopic numbers topics by size: back to the level's node ids
            for new, old in zip(rep.labels.tolist(), level.tolist()):
                ours.setdefault(new, old)
            numbering.append({old: new for new, old in ours.items() if old != -1})
            out.append({ours[t]: list(kw) for t, kw in rep.keywords.items() if t in ours})
        return out

    tree = build_tree(
        emb,
        list(themes),
        texts,
        modelled["title"].fillna("").astype(str).tolist(),
        keyphrases,
        settings=config.hierarchy_settings(len(texts)),
        author_keywords=author_keywords(modelled),
        namer=config.topic_namer,
        cache_dir=config.trees_dir,
        periods=periods(modelled),
        client=config.client,
    )
    return renumbered_finest(tree, numbering[0])  # topics_ numbered as BERTopic numbers them (ties included)


def periods(rows: pd.DataFrame) -> list[object] | None:
    """Each row's year (``PERIOD_COLUMN``), for the tree's new subjects; None when the input has no numeric year."""
    if PERIOD_COLUMN not in rows.columns or not pd.api.types.is_numeric_dtype(rows[PERIOD_COLUMN]):
        return None
    return [None if pd.isna(v) else float(v) for v in rows[PERIOD_COLUMN].tolist()]


def author_keywords(rows: pd.DataFrame) -> list[list[str]] | None:
    """The authors' keywords of each row (a ``keywords`` column: a list, or text separated by ``;`` or
    ``,``), or None when the input has none."""
    if "keywords" not in rows.columns:
        return None
    out = []
    for value in rows["keywords"].tolist():
        if isinstance(value, str):
            out.append([k.strip() for k in value.replace(";", ",").split(",") if k.strip()])
        elif isinstance(value, (list, tuple, np.ndarray)):
            out.append([str(k).strip() for k in value if str(k).strip()])
        else:
            out.append([])
    return out if any(out) else None
