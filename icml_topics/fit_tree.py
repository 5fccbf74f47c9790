"""The tree stage's work: every level's keyphrases (BERTopic's representation, cached), then the named tree.

On a first fit of a large corpus the keyphrases are computed by a child process that ``start_keyphrase_child``
starts while the map stage begins: it imports BERTopic (seconds of imports and numba compilation) while this
process assigns the themes and clusters, then takes the tree's labels and computes every level's keyphrases,
exactly as this process would (same code, same inputs; ``represent_levels``). Without a child, or when it
gives no result, they are computed here.

    >>> tree = topic_tree(config, texts, embeddings, embed, modelled, themes)  # doctest: +SKIP
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pandas as pd

from icml_topics._background import BackgroundCall, BackgroundFailed, prepared_child
from icml_topics._progress import step
from icml_topics._validation import valid_representation
from icml_topics.fit_config import FitConfig
from icml_topics.fit_inputs import Embedder, EmbedFn
from icml_topics.stages import size_aware_defaults
from icml_topics.stages.bertopic_import import import_bertopic
from icml_topics.stages.represent import TopicRepresentation, represent_topics
from icml_topics.stages.tree import TopicTree, build_tree, renumbered_finest
from icml_topics.store.cache import cached_json, content_key

__all__ = ["author_keywords", "represent", "represent_levels", "start_keyphrase_child", "topic_tree"]

logger = logging.getLogger("icml_topics")


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
    large = config.is_large(len(texts))  # vocabulary from a sample: keyed only then
    key = content_key(
        "represent-v1", identity, sorted(settings.items()), texts, labels, *([sample_size] if large else [])
    )
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
) -> tuple[list[TopicRepresentation], dict[str, int] | None]:
    """``represent`` of each level of ``labels`` (``(n, levels)``, finest first), in that order, and the
    ``Embedder``'s counts after them (``None`` for another embedder): what the keyphrase child returns."""
    reps = [represent(texts, emb, labels[:, lv], embed, config) for lv in range(labels.shape[1])]
    return reps, dict(embed.counts) if isinstance(embed, Embedder) else None


def prepare_keyphrases() -> None:
    """What the keyphrase child does while it waits for the labels: import what ``represent_levels`` runs
    (BERTopic, its representation models, the n-gram counter and the embedding backends)."""
    import icml_topics.embedding  # noqa: F401  # lazy: warm-up of the child only
    import icml_topics.stages.ngram_counts  # noqa: F401  # lazy: warm-up of the child only

    import_bertopic()
    import bertopic.representation  # noqa: F401  # lazy: warm-up of the child only


def start_keyphrase_child() -> BackgroundCall | None:
    """A child process importing BERTopic now, to compute the keyphrases later (``topic_tree``); None when
    none can start."""
    return prepared_child("icml_topics.fit_tree:prepare_keyphrases", "the keyphrases are computed in this process")


def _levels_keyphrases(
    texts: list[str],
    emb: np.ndarray,
    labels: np.ndarray,
    embed: EmbedFn,
    config: FitConfig,
    child: BackgroundCall | None,
) -> list[TopicRepresentation]:
    """``represent_levels`` in ``child`` when there is one (its embedding counts added to this fit's), else
    here, as it is when the child gives no result."""
    if child is not None:
        try:
            reps, counts = child.submit(
                "icml_topics.fit_tree:represent_levels", texts, emb, labels, embed, config
            ).result()
            if counts is not None and isinstance(embed, Embedder):
                embed.counts.update(counts)
            return reps
        except BackgroundFailed as exc:
            logger.debug("%s; computing the keyphrases in this process", exc)
    return represent_levels(texts, emb, labels, embed, config)[0]


def topic_tree(
    config: FitConfig,
    texts: list[str],
    emb: np.ndarray,
    embed: EmbedFn,
    modelled: pd.DataFrame,
    themes: Sequence[str],
    child: BackgroundCall | None = None,
) -> TopicTree:
    """The topic tree stage (``stages/tree.py``) of the ``modelled`` rows (their ``texts``, embeddings ``emb``
    and ``themes``): the hierarchy under each paper's theme, each level's keyphrases computed as BERTopic's
    representation (and cached alike; in ``child`` when given, see ``start_keyphrase_child``), every node
    named."""
    numbering: list[dict[int, int]] = []  # per level: BERTopic's id of each node

    def keyphrases(labels: np.ndarray) -> list[dict[int, list[str]]]:
        step(
            "keyphrases of %d levels (BERTopic's c-TF-IDF and KeyBERT%s)",
            labels.shape[1],
            ", in a child process" if child is not None else "",
        )
        out = []
        for rep, level in zip(_levels_keyphrases(texts, emb, labels, embed, config, child), labels.T, strict=True):
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
    )
    return renumbered_finest(tree, numbering[0])  # topics_ numbered as BERTopic numbers them (ties included)


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
