"""``embed()``: texts in, L2-normalised float32 vectors out — cached, length-sorted, on the fastest safe path.

Steps: normalise texts (NFC, collapse whitespace) and drop duplicates; look them up in the
persistent cache; embed only the misses, longest first in batches (little padding), on the
precision path chosen for this machine; write new vectors to the cache every few batches (so an
interrupted run keeps its progress); return one row per input text, in input order.

Examples:
    >>> from icml_topics import embed
    >>> vectors = embed(["Graph neural networks.", "Diffusion models."])
    >>> vectors.shape, vectors.dtype
    ((2, 384), dtype('float32'))
    >>> last_run_info().summary()
    'embedded 2 new texts (0 from cache) with all-MiniLM-L6-v2 [fp32, cpu] at 9.1 docs/s'
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

from icml_topics._progress import STAGE
from icml_topics.errors import InvalidTypeError, InvalidValueError

from .cache import EmbeddingCache, normalize_text
from .identity import known_identity, model_identity, remember_identity
from .models import ModelSpec, embedding_dimension, load_model, resolve_device
from .onnx_backend import export_ready
from .paths import decide_path, decided_path, path_encoder, path_namespace, thread_settings
from .precision import Precision, validate_precision

__all__ = ["EmbeddingRunInfo", "embed", "last_run_info"]

logger = logging.getLogger("icml_topics")

FLUSH_EVERY = 512
"""New vectors are written to the cache at least this often (in texts)..."""
FLUSH_SECONDS = 2.0
"""... and at least this often (in seconds of embedding), so a killed run keeps nearly all its work."""
PROGRESS_MIN_TEXTS = 256
LOG_MIN_TEXTS = 64
"""Calls embedding fewer new texts than this log at DEBUG, so a fit prints one line per stage at most."""


@dataclass(frozen=True)
class EmbeddingRunInfo:
    """What the last [`embed`][icml_topics.embed] call did (see [`last_run_info`][icml_topics.embedding.last_run_info]).

    Attributes:
        n_texts: texts passed in.
        n_unique: distinct texts after normalisation (each is embedded or read once).
        n_from_cache: distinct texts read from the cache.
        n_embedded: distinct texts embedded by this call.
        model: the model's identity (the cache key).
        precision: the embedding path used (``"fp32"``, ``"int8"``, ...).
        device: where it ran (``"cpu"``, ``"cuda"``).
        seconds: the whole call's wall time.
        embed_seconds: the wall time of the forward passes only.
        cache_path: the cache file used; ``None``: no cache.
        guard: what the embedding-path check measured when ``precision="auto"`` decided now; ``None`` otherwise.
        max_tokens: the truncation used; ``None``: the model's limit.

    Examples:
        >>> embed(["An abstract."]); last_run_info().n_embedded
    """

    n_texts: int
    n_unique: int
    n_from_cache: int
    n_embedded: int
    model: str
    precision: str
    device: str
    seconds: float
    embed_seconds: float
    cache_path: str | None
    guard: dict[str, Any] | None = None
    max_tokens: int | None = None

    @property
    def docs_per_second(self) -> float:
        """Throughput of the texts actually embedded (nan when everything came from the cache)."""
        return self.n_embedded / self.embed_seconds if self.n_embedded and self.embed_seconds > 0 else math.nan

    def summary(self) -> str:
        name = self.model.split("@", 1)[0]
        speed = f" at {self.docs_per_second:.1f} docs/s" if self.n_embedded else ""
        tokens = f", {self.max_tokens} tokens" if self.max_tokens else ""
        return (
            f"embedded {self.n_embedded} new texts ({self.n_from_cache} from cache) with {name} "
            f"[{self.precision}{tokens}, {self.device}]{speed}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "docs_per_second": self.docs_per_second}


_last_run: EmbeddingRunInfo | None = None
_state_lock = threading.Lock()


def last_run_info() -> EmbeddingRunInfo | None:
    """Information about the most recent [`embed`][icml_topics.embed] call in this process (``None`` before the first).

    One record for the whole process, replaced by every call (a fit's keyphrase embedding included). What one
    call did: ``embed(..., on_info=callback)``; what a fit did: ``TopicMap.embedding_counts_`` and
    ``embedding_path_`` (``docs/how-to/environment.md`` lists the process-wide state).

    Examples:
        >>> vectors = embed(["First abstract.", "Second abstract."])
        >>> info = last_run_info(); info.n_from_cache + info.n_embedded
        2
    """
    return _last_run


def embed(
    texts: Sequence[str],
    model: ModelSpec = None,
    *,
    batch_size: int = 32,
    cache: bool | str | os.PathLike[str] | EmbeddingCache | None = True,
    precision: Precision = "auto",
    device: str | None = None,
    max_tokens: int | None = None,
    show_progress_bar: bool | Literal["log"] | None = None,
    client: Any = None,
    on_info: Callable[[EmbeddingRunInfo], None] | None = None,
) -> np.ndarray:
    """Embed ``texts`` with a sentence-transformers model; returns float32 ``(len(texts), dim)``, rows L2-normalised.

    Args:
        texts: the documents (e.g. title + abstract). Texts are compared and embedded after Unicode
            NFC normalisation and whitespace collapsing; duplicates are embedded once.
        model: ``None`` for the packaged all-MiniLM-L6-v2, a model name, a local folder, or a
            ``SentenceTransformer`` (moved to ``device`` when one is given).
        batch_size: texts per forward pass.
        cache: ``True`` for the default persistent cache, ``False``/``None`` for none, a folder or
            file path, or an [`EmbeddingCache`][icml_topics.EmbeddingCache].
        precision: ``"auto"`` uses the first path of a fixed preference order that passed the task-level
            guard on this machine (decided once, stored; see
            [`resolve_precision`][icml_topics.embedding.resolve_precision]): CUDA fp16 on a GPU; on CPU bf16
            (where native), int8 on CTranslate2, int8 or fp32 on ONNX Runtime, or fp32.
            ``"fp32"`` (sentence-transformers), ``"bf16"``, ``"fp16"``, ``"int8"``, ``"fp32-onnx"``,
            ``"int8-ct2"`` force a path. Each path has its own cache entries, so vectors of two paths never mix.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:1"``...; default: CUDA when torch sees it, else CPU.
        max_tokens: truncate texts to this many tokens (default: the model's own limit, 256 for
            all-MiniLM-L6-v2). ``128`` is the opt-in fast mode: about 2x faster again on long
            abstracts, at a small cost in quality (see the README). Cached separately.
        show_progress_bar: default shows a tqdm bar (texts/s, time left) when more than 256 texts must be
            embedded; ``"log"``: no bar but,
            when more than one batch must be embedded, an INFO line on the ``icml_topics`` logger after the
            first batch, then every 5 s and after the last (what the CLI shows when it writes to a log file).
        client: a ``distributed.Client``: the texts not in the cache are embedded on its Dask workers,
            in the same batches, with the same vectors (``icml_topics.embedding.distributed``).
        on_info: called with this call's [`EmbeddingRunInfo`][icml_topics.embedding.EmbeddingRunInfo] (what a fit
            counts; ``last_run_info()`` gives the last call's of the whole process instead).

    Raises:
        TypeError: ``texts`` is a single string or holds non-strings.
        ValueError: an unknown precision, or one the device cannot run; a bad ``max_tokens``.
        ModelNotAvailableError: the model name cannot be loaded (e.g. offline and not cached).

    Examples:
        >>> vectors = embed(["Graph neural networks."], precision="int8", cache=False)
    """
    global _last_run
    started = time.perf_counter()
    items = _check_texts(texts)
    if batch_size < 1:
        raise InvalidValueError(f"batch_size must be a positive integer, got {batch_size}")
    if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 8):
        raise InvalidValueError(f"max_tokens must be an integer >= 8 (e.g. 128 for the fast mode), got {max_tokens!r}")
    normalized = [normalize_text(t) for t in items]
    unique = list(dict.fromkeys(normalized))
    store, owned = _resolve_cache(cache)
    try:
        # A local model folder seen before is known by its files' signature, so a call answered
        # entirely from the cache neither imports sentence-transformers' weights nor hashes them.
        known = known_identity(model, store.path.parent if store is not None else None)
        st = None
        if known is None:
            st = load_model(model, device=device)
            model_id, dim = model_identity(st), embedding_dimension(st)
            remember_identity(model, model_id, dim, store.path.parent if store is not None else None)
            dev = str(st.device)
        else:
            model_id, dim = known
            dev = resolve_device(device)
        validate_precision(precision, dev)
        guard_report = None
        if precision == "auto":
            used = decided_path(model_id, dev)
            if used is None:
                st = st or load_model(model, device=device)
                used, guard_report = decide_path(st, model_id, dev)
        else:
            used = precision
        namespace = path_namespace(model_id, used, max_tokens)
        vectors: dict[str, np.ndarray] = {}
        if store is not None and unique:
            for text, vector in zip(unique, store.get_many(namespace, unique, dim=dim)):
                if vector is not None:
                    vectors[text] = vector
        n_from_cache = len(vectors)
        missing = sorted((t for t in unique if t not in vectors), key=len, reverse=True)

        embed_seconds = 0.0
        if missing:
            if st is None and client is None and not export_ready(model_id, used):
                st = load_model(model, device=device)  # an ONNX path with its export made needs no torch
                dev = str(st.device)
            t0 = time.perf_counter()
            if client is not None:
                from .workers import run_partitions  # heavy: distributed

                lines = (
                    _ProgressLines(len(missing)) if show_progress_bar == "log" and len(missing) > batch_size else None
                )
                done = lines.update if lines is not None else None
                run_partitions(
                    client, missing, model, used, batch_size, device, max_tokens, store, namespace, vectors, done
                )
                dev = f"dask:{len(client.scheduler_info().get('workers', {}))} workers"
            else:
                with thread_settings(dev):
                    encode = path_encoder(st, used, dev, model_id=model_id, max_tokens=max_tokens)
                    _embed_missing(encode, missing, batch_size, store, namespace, vectors, show_progress_bar)
            embed_seconds = time.perf_counter() - t0

        out = np.empty((len(items), dim), dtype=np.float32)
        for row, text in enumerate(normalized):
            out[row] = vectors[text]
        info = EmbeddingRunInfo(
            n_texts=len(items),
            n_unique=len(unique),
            n_from_cache=n_from_cache,
            n_embedded=len(missing),
            model=model_id,
            precision=used,
            device=dev,
            seconds=time.perf_counter() - started,
            embed_seconds=embed_seconds,
            cache_path=str(store.path) if store is not None else None,
            guard=guard_report,
            max_tokens=max_tokens,
        )
    finally:
        if owned and store is not None:
            store.close()
    with _state_lock:
        _last_run = info
    if on_info is not None:
        on_info(info)
    if items:
        # small calls (keyphrases, a few new texts) stay quiet: one line per stage at most
        logger.log(logging.INFO if info.n_embedded >= LOG_MIN_TEXTS else logging.DEBUG, info.summary())
    return out


# -- helpers ----------------------------------------------------------------------------------------
def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, (str, bytes)):
        raise InvalidTypeError("texts must be a sequence of strings, not a single string; wrap it as [text]")
    items = list(texts)
    for i, text in enumerate(items):
        if not isinstance(text, str):
            raise InvalidTypeError(
                f"texts[{i}] is {type(text).__name__}, not str; replace missing values first "
                "(e.g. series.fillna('').astype(str))"
            )
    return items


def _resolve_cache(cache: bool | str | os.PathLike[str] | EmbeddingCache | None) -> tuple[EmbeddingCache | None, bool]:
    if cache is None or cache is False:
        return None, False
    if cache is True:
        return EmbeddingCache(), True
    if isinstance(cache, EmbeddingCache):
        return cache, False
    if isinstance(cache, (str, os.PathLike)):
        return EmbeddingCache(cache), True
    raise InvalidTypeError(f"cache must be True, False, a path or an EmbeddingCache, not {type(cache).__name__}")


def _embed_missing(
    encode: Callable[[list[str]], np.ndarray],
    missing: list[str],
    batch_size: int,
    store: EmbeddingCache | None,
    namespace: str,
    vectors: dict[str, np.ndarray],
    show: bool | Literal["log"] | None,
) -> None:
    """Embed ``missing`` (longest first) into ``vectors``, writing them to ``store`` every few batches."""
    from tqdm.auto import tqdm

    log = show == "log" and len(missing) > batch_size
    if show is None:  # a few batches take seconds: a bar (a widget left in a notebook) only for longer runs
        show = len(missing) > PROGRESS_MIN_TEXTS
    elif show == "log":
        show = False
    pending_texts: list[str] = []
    pending_vecs: list[np.ndarray] = []
    last_flush = [time.monotonic()]

    def collect(batch: list[str], batch_vectors: np.ndarray) -> None:
        for text, vector in zip(batch, batch_vectors):
            vectors[text] = vector
        if store is not None:
            pending_texts.extend(batch)
            pending_vecs.append(batch_vectors)
            if len(pending_texts) >= FLUSH_EVERY or time.monotonic() - last_flush[0] >= FLUSH_SECONDS:
                flush()

    def flush() -> None:
        if store is not None and pending_texts:
            store.put_many(namespace, pending_texts, np.concatenate(pending_vecs))
            pending_texts.clear()
            pending_vecs.clear()
        last_flush[0] = time.monotonic()

    progress = _ProgressLines(len(missing)) if log else None
    with tqdm(total=len(missing), desc="Embedding", unit="text", disable=not show, leave=False) as bar:
        try:
            for start in range(0, len(missing), batch_size):
                batch = missing[start : start + batch_size]
                collect(batch, encode(batch))
                bar.update(len(batch))
                if progress is not None:
                    progress.update(len(batch))
        finally:
            flush()  # keep what was embedded even if interrupted


PROGRESS_LINE_SECONDS = 5.0
"""With ``show_progress_bar="log"``: a progress line after the first batch, then at most this often, and after the last."""


class _ProgressLines:
    """Per-batch progress as log lines (texts done, texts/s, time left), for a log that cannot redraw a bar."""

    def __init__(self, total: int) -> None:
        self.total, self.done = total, 0
        self.started = time.perf_counter()
        self.last: float | None = None

    def update(self, n: int) -> None:

        self.done += n
        now = time.perf_counter()
        if self.done < self.total and self.last is not None and now - self.last < PROGRESS_LINE_SECONDS:
            return
        self.last = now
        rate = self.done / max(now - self.started, 1e-9)
        left = f"about {math.ceil((self.total - self.done) / rate)} s left" if self.done < self.total else "done"
        logger.info(
            "embedding: %d of %d texts (%d%%), %.1f texts/s, %s",
            self.done,
            self.total,
            100 * self.done // self.total,
            rate,
            left,
            extra={STAGE: True},
        )
