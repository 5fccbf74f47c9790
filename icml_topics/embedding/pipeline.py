"""``embed()``: texts in, L2-normalised float32 vectors out — cached, length-sorted, on the fastest safe path.

Steps: normalise texts (NFC, collapse whitespace) and drop duplicates; look them up in the
persistent cache; embed only the misses, longest first in batches (little padding), on the
precision path chosen for this machine; write new vectors to the cache every few batches (so an
interrupted run keeps its progress); return one row per input text, in input order.

Example:
    >>> from icml_topics import embed
    >>> vectors = embed(["Graph neural networks.", "Diffusion models."])   # doctest: +SKIP
    >>> vectors.shape, vectors.dtype
    ((2, 384), dtype('float32'))
    >>> last_run_info().summary()                                              # doctest: +SKIP
    'embedded 2 new texts (0 from cache) with all-MiniLM-L6-v2 [fp32, cpu] at 9.1 docs/s'
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .cache import EmbeddingCache, normalize_text
from .models import (
    ModelSpec,
    embedding_dimension,
    known_identity,
    load_model,
    model_identity,
    remember_identity,
    resolve_device,
)
from .precision import (
    PRECISIONS,
    Precision,
    autocast_context,
    candidate_precisions,
    cpu_has_native_bf16,
    guard,
    hardware_fingerprint,
    validate_precision,
)

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = ["EmbeddingRunInfo", "embed", "last_run_info"]

logger = logging.getLogger("icml_topics")

GUARD_SAMPLE = 16
"""Texts embedded in both fp32 and a candidate precision to vet the candidate."""
GUARD_MIN_TEXTS = 64
"""Below this many texts to embed, ``auto`` uses fp32 rather than spend time vetting a fast path."""
FLUSH_EVERY = 512
"""New vectors are written to the cache at least this often (in texts)..."""
FLUSH_SECONDS = 2.0
"""... and at least this often (in seconds of embedding), so a killed run keeps nearly all its work."""
PROGRESS_MIN_TEXTS = 256
PRECISION_FILE = "precision.json"


@dataclass(frozen=True)
class EmbeddingRunInfo:
    """What the last :func:`embed` call did (see :func:`last_run_info`)."""

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

    @property
    def docs_per_second(self) -> float:
        """Throughput of the texts actually embedded (nan when everything came from the cache)."""
        return self.n_embedded / self.embed_seconds if self.n_embedded and self.embed_seconds > 0 else math.nan

    def summary(self) -> str:
        name = self.model.split("@", 1)[0]
        speed = f" at {self.docs_per_second:.1f} docs/s" if self.n_embedded else ""
        return (f"embedded {self.n_embedded} new texts ({self.n_from_cache} from cache) with {name} "
                f"[{self.precision}, {self.device}]{speed}")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "docs_per_second": self.docs_per_second}


_last_run: EmbeddingRunInfo | None = None
_decisions: dict[str, str] = {}  # "<model id>|<hardware>" -> precision, for this process
_state_lock = threading.Lock()


def last_run_info() -> EmbeddingRunInfo | None:
    """Information about the most recent :func:`embed` call in this process (``None`` before the first)."""
    return _last_run


def embed(
    texts: Sequence[str],
    model: ModelSpec = None,
    *,
    batch_size: int = 32,
    cache: bool | str | os.PathLike[str] | EmbeddingCache | None = True,
    precision: Precision = "auto",
    device: str | None = None,
    show_progress_bar: bool | None = None,
) -> np.ndarray:
    """Embed ``texts`` with a sentence-transformers model; returns float32 ``(len(texts), dim)``, rows L2-normalised.

    Args:
        texts: the documents (e.g. title + abstract). Texts are compared and embedded after Unicode
            NFC normalisation and whitespace collapsing; duplicates are embedded once.
        model: ``None`` for the packaged all-MiniLM-L6-v2, a model name, a local folder, or a
            ``SentenceTransformer`` (moved to ``device`` when one is given).
        batch_size: texts per forward pass.
        cache: ``True`` for the default persistent cache, ``False``/``None`` for none, a folder or
            file path, or an :class:`EmbeddingCache`.
        precision: ``"auto"`` uses a reduced-precision path only where the hardware runs it natively
            and it has passed the agreement guard (cosine >= 0.999 with fp32 on a sample, and faster);
            ``"fp32"`` always uses full precision; ``"bf16"`` / ``"fp16"`` force autocast without the
            guard, and their vectors are cached separately from fp32 ones.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:1"``...; default: CUDA when torch sees it, else CPU.
        show_progress_bar: default shows a tqdm bar when more than 256 texts must be embedded, or
            more than one batch on an interactive terminal.

    Raises:
        TypeError: ``texts`` is a single string or holds non-strings.
        ValueError: an unknown precision, or one the device cannot run.
        ModelNotAvailableError: the model name cannot be loaded (e.g. offline and not cached).
    """
    global _last_run
    started = time.perf_counter()
    items = _check_texts(texts)
    if batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size}")
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
        namespace = model_id if precision in ("auto", "fp32") else f"{model_id}+{precision}"
        vectors: dict[str, np.ndarray] = {}
        if store is not None and unique:
            for text, vector in zip(unique, store.get_many(namespace, unique, dim=dim)):
                if vector is not None:
                    vectors[text] = vector
        n_from_cache = len(vectors)
        missing = sorted((t for t in unique if t not in vectors), key=len, reverse=True)

        used, guard_report, embed_seconds = "fp32", None, 0.0
        if missing:
            if st is None:
                st = load_model(model, device=device)
                dev = str(st.device)
            t0 = time.perf_counter()
            with _thread_settings(dev):
                used, guard_report = _embed_missing(
                    st, dev, missing, precision, batch_size, store, namespace, vectors, show_progress_bar)
            embed_seconds = time.perf_counter() - t0

        out = np.empty((len(items), dim), dtype=np.float32)
        for row, text in enumerate(normalized):
            out[row] = vectors[text]
        info = EmbeddingRunInfo(
            n_texts=len(items), n_unique=len(unique), n_from_cache=n_from_cache, n_embedded=len(missing),
            model=model_id, precision=used, device=dev, seconds=time.perf_counter() - started,
            embed_seconds=embed_seconds, cache_path=str(store.path) if store is not None else None,
            guard=guard_report)
    finally:
        if owned and store is not None:
            store.close()
    with _state_lock:
        _last_run = info
    if items:
        # calls answered from the cache (BERTopic asks for a few keyphrases at a time) stay quiet
        logger.log(logging.INFO if info.n_embedded else logging.DEBUG, info.summary())
    return out


# -- helpers ----------------------------------------------------------------------------------------
def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be a sequence of strings, not a single string; wrap it as [text]")
    items = list(texts)
    for i, text in enumerate(items):
        if not isinstance(text, str):
            raise TypeError(
                f"texts[{i}] is {type(text).__name__}, not str; replace missing values first "
                "(e.g. series.fillna('').astype(str))")
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
    raise TypeError(f"cache must be True, False, a path or an EmbeddingCache, not {type(cache).__name__}")


def make_encoder(st: SentenceTransformer, precision: str, device: str) -> Callable[[list[str]], np.ndarray]:
    """A function embedding one batch at ``precision``; returns float32 L2-normalised rows."""
    import torch

    def encode(batch: list[str]) -> np.ndarray:
        with torch.inference_mode(), autocast_context(precision, device):
            out = st.encode(batch, batch_size=max(len(batch), 1), convert_to_tensor=True,
                            normalize_embeddings=False, show_progress_bar=False)
        array = out.detach().float().cpu().numpy().reshape(len(batch), -1)
        norms = np.linalg.norm(array, axis=1, keepdims=True)
        return (array / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)

    return encode


def _embed_missing(
    st: SentenceTransformer, device: str, missing: list[str], precision: str, batch_size: int,
    store: EmbeddingCache | None, namespace: str, vectors: dict[str, np.ndarray], show: bool | None,
) -> tuple[str, dict[str, Any] | None]:
    """Embed ``missing`` (longest first) into ``vectors``; returns the precision used and the guard report."""
    from tqdm.auto import tqdm

    if show is None:
        show = len(missing) > PROGRESS_MIN_TEXTS or (_stderr_isatty() and len(missing) > batch_size)
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

    with tqdm(total=len(missing), desc="Embedding", unit="doc", disable=not show, leave=False) as bar:
        used, report, done = _choose_precision(st, device, missing, precision, store)
        if done:  # the guard sample, already embedded in fp32
            collect(list(done), np.stack([done[t] for t in done]))
            bar.update(len(done))
        remaining = [t for t in missing if t not in done]
        encode = make_encoder(st, used, device)
        try:
            for start in range(0, len(remaining), batch_size):
                batch = remaining[start : start + batch_size]
                collect(batch, encode(batch))
                bar.update(len(batch))
        finally:
            flush()  # keep what was embedded even if interrupted
    return used, report


def _choose_precision(
    st: SentenceTransformer, device: str, missing: list[str], precision: str, store: EmbeddingCache | None,
) -> tuple[str, dict[str, Any] | None, dict[str, np.ndarray]]:
    """Pick the precision path; may embed a guard sample in fp32 (returned so it is not redone)."""
    if precision != "auto":
        if precision == "bf16" and device.startswith("cpu") and not cpu_has_native_bf16():
            logger.warning("precision='bf16' on a CPU without native bf16 (no AMX-BF16/AVX512-BF16) is usually "
                           "several times slower than fp32; use precision='auto' to pick the fastest safe path")
        return precision, None, {}
    candidates = candidate_precisions(device)
    if not candidates:
        return "fp32", None, {}
    key = f"{model_identity(st)}|{hardware_fingerprint(device)}"
    decided = _decisions.get(key) or _load_decision(store, key)
    if decided in PRECISIONS:
        _decisions[key] = decided
        return decided, None, {}
    if len(missing) < GUARD_MIN_TEXTS:
        return "fp32", None, {}

    picks = np.unique(np.linspace(0, len(missing) - 1, GUARD_SAMPLE).round().astype(int))
    sample = [missing[i] for i in picks]
    reference_fn = make_encoder(st, "fp32", device)
    reference, reference_seconds = None, None
    reports = []
    chosen = "fp32"
    for candidate in candidates:
        if reference is None:
            reference_fn(sample[:2])
            t0 = time.perf_counter()
            reference = reference_fn(sample)
            reference_seconds = time.perf_counter() - t0
        report, reference = guard(sample, reference_fn, candidate, make_encoder(st, candidate, device),
                                  reference=reference, reference_seconds=reference_seconds)
        reports.append(report.to_dict())
        logger.info("precision guard: %s", report.reason)
        if report.passed:
            chosen = candidate
            break
    _decisions[key] = chosen
    _save_decision(store, key, chosen, reports)
    done = {text: vector for text, vector in zip(sample, reference)} if reference is not None else {}
    return chosen, {"chosen": chosen, "candidates": reports}, done


def _decision_file(store: EmbeddingCache | None) -> Path | None:
    return store.path.parent / PRECISION_FILE if store is not None else None


def _load_decision(store: EmbeddingCache | None, key: str) -> str | None:
    path = _decision_file(store)
    if path is None or not path.exists():
        return None
    try:
        entry = json.loads(path.read_text(encoding="utf-8")).get(key)
        return entry.get("precision") if isinstance(entry, dict) else None
    except (OSError, ValueError, AttributeError):
        return None  # unreadable or damaged: decide again


def _save_decision(store: EmbeddingCache | None, key: str, precision: str, reports: list[dict[str, Any]]) -> None:
    path = _decision_file(store)
    if path is None or not store.writable:
        return
    from .._io import atomic_write_text

    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data[key] = {"precision": precision, "guard": reports, "decided_at": time.strftime("%Y-%m-%dT%H:%M:%S")}
    try:
        atomic_write_text(path, json.dumps(data, indent=2, default=str))
    except OSError as exc:
        logger.debug("could not save the precision decision to %s: %s", path, exc)


def _stderr_isatty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@contextlib.contextmanager
def _thread_settings(device: str) -> Iterator[None]:
    """Use every CPU this process may run on while embedding, then restore torch's setting.

    ``ICML_TOPICS_NUM_THREADS`` sets the count explicitly; ``OMP_NUM_THREADS`` / ``MKL_NUM_THREADS``
    are respected by leaving torch's own setting alone.
    """
    import torch

    explicit = os.environ.get("ICML_TOPICS_NUM_THREADS", "").strip()
    if not device.startswith("cpu") and not explicit:
        yield
        return
    if explicit:
        try:
            wanted = max(1, int(explicit))
        except ValueError:
            raise ValueError(f"ICML_TOPICS_NUM_THREADS must be a positive integer, got {explicit!r}") from None
    elif os.environ.get("OMP_NUM_THREADS") or os.environ.get("MKL_NUM_THREADS"):
        yield
        return
    else:
        wanted = _available_cpus()
    before = torch.get_num_threads()
    if wanted != before:
        torch.set_num_threads(wanted)
    try:
        yield
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)
