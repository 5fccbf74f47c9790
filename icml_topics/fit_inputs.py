"""The fit's first two stages as functions: read the corpus (with its flags and modelled text) and embed it.

``fitting.py`` runs them in its stage sequence; ``transform`` and the benchmarks call the same ones:

    >>> from icml_topics.fit_config import FitConfig
    >>> flagged = read_flagged("papers.jsonl", require=1)
    >>> ok = modelled_mask(flagged)
    >>> vectors = document_embeddings(flagged.loc[ok, "text"].tolist(), None, ok, Embedder(FitConfig.from_params({})))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from icml_topics._progress import embedding_progress, quiet_libraries
from icml_topics._validation import check_embeddings
from icml_topics.corpus.readers import CorpusError, read_corpus
from icml_topics.corpus.validation import flag_rows
from icml_topics.errors import InvalidValueError
from icml_topics.fit_config import FitConfig
from icml_topics.fitted_tables import modelled_mask

if TYPE_CHECKING:
    from icml_topics.embedding.pipeline import EmbeddingRunInfo

__all__ = ["MIN_DOCUMENTS", "EmbedFn", "Embedder", "FlaggedCorpus", "document_embeddings", "read_flagged"]

MIN_DOCUMENTS = 1  # a single abstract is a map of one topic

EmbedFn = Callable[..., np.ndarray]
"""What embeds texts in a fit: ``embed(texts)``, ``embed(texts, documents=True)`` for the corpus itself."""


class Embedder:
    """Embeds through the cache with the fit's model settings and counts what it embedded.

    ``counts`` (``{"embedded": n, "from_cache": n}``) is updated in place: ``TopicMap.embedding_counts_``.
    ``corpus_size``: the fit's number of modelled documents (default: the length of the first ``documents=True``
    call); with it, ``path`` is the one embedding path of every call (``corpus_rule.fit_path``).
    """

    def __init__(self, config: FitConfig, counts: dict[str, int] | None = None, corpus_size: int | None = None) -> None:
        self.config = config
        self.counts = counts if counts is not None else {"embedded": 0, "from_cache": 0}
        self.corpus_size = corpus_size
        self._path: str | None = None

    def prepare(self, n_documents: int, *, decide_path: bool = True) -> None:
        """Take ``n_documents`` as the fit's corpus size (unless ``corpus_size`` was given) and, with ``decide_path``,
        decide the embedding path now: on a new machine its one-time setup child (torch, the exports) runs and ends
        here, so a process the caller starts next never holds memory beside it (``fitting._embed``: the fit's
        background worker starts after this)."""
        if self.corpus_size is None:
            self.corpus_size = n_documents
        if decide_path:
            _ = self.path

    @property
    def path(self) -> str:
        """The embedding path of this fit (decided on first use: a function of the corpus size and the machine)."""
        if self._path is None:
            from icml_topics.embedding.corpus_rule import fit_path  # lazy: keeps TopicMap light

            c = self.config
            self._path = fit_path(c.embedding_model, c.precision, self.corpus_size, cache=c.cache, verbose=c.verbose)
        return self._path

    def __call__(self, texts: list[str], *, documents: bool = False) -> np.ndarray:
        """Embed ``texts``; ``documents=True``: on the ``client``'s Dask workers when one is set."""
        from icml_topics.embedding import embed  # lazy: keeps TopicMap light

        c = self.config
        if documents:
            self.prepare(len(texts), decide_path=False)
        path = self.path
        with quiet_libraries():  # no "Loading weights" bar from transformers
            vectors = embed(
                texts,
                model=c.embedding_model,
                cache=c.cache,
                precision=path,
                show_progress_bar=embedding_progress(c.verbose, lines=documents),
                max_tokens=c.max_tokens,
                client=c.client if documents else None,
                on_info=self._count,
            )
        return vectors

    def _count(self, info: EmbeddingRunInfo) -> None:
        """Add one ``embed`` call's counts to this fit's (not read from the process-wide ``last_run_info``)."""
        self.counts["embedded"] += info.n_embedded
        self.counts["from_cache"] += info.n_from_cache


@dataclass(frozen=True)
class FlaggedCorpus:
    """A corpus table already flagged (``flag_rows``) with ``prepend_title``, for a caller that reads it before the
    fit: ``compare`` chooses its periods from the modelled rows, then fits on this, and the fit's read stage
    (``read_flagged``) reads and flags nothing again (cleaning the text is the slowest part of reading)."""

    table: pd.DataFrame
    prepend_title: bool

    @classmethod
    def of(cls, corpus: pd.DataFrame, *, prepend_title: bool = True) -> FlaggedCorpus:
        """``corpus`` (a table ``read_corpus`` returned) flagged once."""
        return cls(flag_rows(corpus, prepend_title=prepend_title), prepend_title)


def read_flagged(
    corpus: Any, *, columns: dict[str, str] | None = None, prepend_title: bool = True, require: int = 0
) -> pd.DataFrame:
    """The corpus table with its flags and modelled ``text``; at least ``require`` rows must be modelled. A
    ``FlaggedCorpus`` flagged with the same ``prepend_title`` (and no ``columns``) is taken as it is."""
    if isinstance(corpus, FlaggedCorpus) and corpus.prepend_title == prepend_title and columns is None:
        flagged = corpus.table
    else:
        table = corpus.table if isinstance(corpus, FlaggedCorpus) else corpus
        flagged = flag_rows(read_corpus(table, columns=columns), prepend_title=prepend_title)
    ok = modelled_mask(flagged)
    if int(ok.sum()) < require:
        raise CorpusError(
            f"Only {int(ok.sum())} of {len(flagged)} rows have an abstract to model; a topic map needs at least "
            f"{require}. Check the abstract column (rows dropped: "
            f"{flagged.loc[~ok, 'drop_reason'].value_counts().to_dict()})."
        )
    return flagged


def document_embeddings(texts: list[str], embeddings: np.ndarray | None, ok: np.ndarray, embed: Embedder) -> np.ndarray:
    """The modelled rows' unit vectors: ``embeddings`` (one row per input or per modelled row) or embedded."""
    if isinstance(embed, Embedder):  # its path follows the corpus size even when no document is embedded
        embed.prepare(len(texts), decide_path=False)
    if embeddings is None:
        return embed(texts, documents=True)
    emb = check_embeddings(embeddings)
    if emb.ndim != 2 or emb.shape[0] not in (len(ok), len(texts)):
        raise InvalidValueError(
            f"embeddings has shape {emb.shape}; expected one row per input row ({len(ok)}) "
            f"or per modelled row ({len(texts)})."
        )
    emb = emb[ok] if emb.shape[0] == len(ok) and len(ok) != len(texts) else emb
    norms = np.linalg.norm(emb, axis=1, keepdims=True)
    if np.allclose(norms, 1.0, atol=1e-5):
        return emb  # already unit length: keep the exact values (caches are keyed by them)
    return emb / norms  # check_embeddings refused all-zero rows
