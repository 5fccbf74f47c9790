"""Reduced-precision fast paths, the hardware checks that offer them, and the guard that vets them.

A fast path is only *offered* where the hardware computes it natively: bf16 on CPUs with AMX-BF16
or AVX512-BF16 (on AVX2-only CPUs bf16 autocast is emulated and several times slower than fp32),
fp16 on CUDA GPUs. An offered path is only *used* after :func:`guard` has embedded a sample in both
fp32 and the candidate and found every sample's cosine similarity >= 0.999 and the candidate
faster; otherwise fp32 is used. The decision is remembered per machine (see ``pipeline.py``).

Example:
    >>> from icml_topics.embedding.precision import candidate_precisions
    >>> candidate_precisions("cpu")        # on an AVX2-only CPU   # doctest: +SKIP
    []
"""

from __future__ import annotations

import contextlib
import hashlib
import platform
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import numpy as np

__all__ = [
    "MIN_COSINE",
    "MIN_SPEEDUP",
    "Precision",
    "GuardReport",
    "autocast_context",
    "candidate_precisions",
    "cosine_agreement",
    "cpu_has_native_bf16",
    "guard",
    "hardware_fingerprint",
    "validate_precision",
]

Precision = Literal["auto", "fp32", "bf16", "fp16"]
PRECISIONS: tuple[str, ...] = ("auto", "fp32", "bf16", "fp16")

MIN_COSINE = 0.999
"""Every guard-sample vector must have at least this cosine similarity to its fp32 vector."""
MIN_SPEEDUP = 1.15
"""A candidate must be at least this much faster than fp32 on the guard sample to be used."""


@lru_cache(maxsize=1)
def _cpu_flags() -> frozenset[str]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags") or line.startswith("Features"):
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


@lru_cache(maxsize=1)
def cpu_has_native_bf16() -> bool:
    """True when the CPU has bf16 matrix units (AMX-BF16 or AVX512-BF16).

    On Linux this reads ``/proc/cpuinfo``; elsewhere it trusts torch (AVX512 capability and oneDNN
    bf16 support), and the speed probe in :func:`guard` rejects bf16 if that was optimistic.
    """
    flags = _cpu_flags()
    if flags:
        return bool(flags & {"amx_bf16", "avx512_bf16"})
    try:
        import torch

        capability = torch.backends.cpu.get_cpu_capability()
        return capability.startswith("AVX512") and bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except Exception:
        return False


def _device_type(device: str) -> str:
    return str(device).split(":", 1)[0]


def candidate_precisions(device: str) -> list[str]:
    """Reduced precisions worth trying on ``device`` (fastest expected first); ``[]`` means fp32 only."""
    kind = _device_type(device)
    if kind == "cuda":
        import torch

        candidates = ["fp16"]
        if torch.cuda.is_bf16_supported():
            candidates.append("bf16")
        return candidates
    if kind == "cpu" and cpu_has_native_bf16():
        return ["bf16"]
    return []


def validate_precision(precision: str, device: str) -> None:
    """Raise ``ValueError`` naming the fix when ``precision`` is unknown or impossible on ``device``."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}; got {precision!r}")
    kind = _device_type(device)
    if precision == "fp16" and kind != "cuda":
        raise ValueError(
            f"precision='fp16' needs a CUDA GPU (device is {device!r}); use precision='auto' or 'fp32' on CPU"
        )
    if precision == "bf16" and kind not in {"cpu", "cuda"}:
        raise ValueError(f"precision='bf16' is supported on cpu and cuda, not {device!r}; use precision='fp32'")


@contextlib.contextmanager
def autocast_context(precision: str, device: str) -> Iterator[None]:
    """Context in which the model runs at ``precision`` (torch autocast; a no-op for fp32)."""
    if precision == "fp32":
        yield
        return
    import torch

    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[precision]
    with torch.autocast(device_type=_device_type(device), dtype=dtype):
        yield


def cosine_agreement(reference: np.ndarray, candidate: np.ndarray) -> np.ndarray:
    """Row-wise cosine similarity between two equally shaped embedding matrices."""
    ref = np.asarray(reference, dtype=np.float64)
    cand = np.asarray(candidate, dtype=np.float64)
    if ref.shape != cand.shape:
        raise ValueError(f"cannot compare embeddings of shapes {ref.shape} and {cand.shape}")
    denom = np.linalg.norm(ref, axis=1) * np.linalg.norm(cand, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        cos = (ref * cand).sum(axis=1) / denom
    return np.nan_to_num(cos, nan=-1.0)


@dataclass(frozen=True)
class GuardReport:
    """Outcome of vetting one candidate precision against fp32 on a sample."""

    candidate: str
    passed: bool
    min_cosine: float
    mean_cosine: float
    speedup: float  # fp32 seconds / candidate seconds on the sample; nan when not timed
    n_sample: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def guard(
    sample: Sequence[str],
    reference_fn: Callable[[list[str]], np.ndarray],
    candidate: str,
    candidate_fn: Callable[[list[str]], np.ndarray],
    *,
    min_cosine: float = MIN_COSINE,
    min_speedup: float | None = MIN_SPEEDUP,
    reference: np.ndarray | None = None,
    reference_seconds: float | None = None,
) -> tuple[GuardReport, np.ndarray]:
    """Vet ``candidate_fn`` against ``reference_fn`` (fp32) on ``sample``.

    Returns the report and the fp32 vectors of the sample (so the caller can keep them: the guard
    costs one extra candidate pass, nothing more). Pass ``reference`` / ``reference_seconds`` to
    reuse vectors already computed. ``min_speedup=None`` skips the speed requirement.
    The candidate passes only if *every* sample vector has cosine >= ``min_cosine`` to fp32.

    Example:
        >>> report, ref = guard(texts, fp32_fn, "bf16", bf16_fn)      # doctest: +SKIP
        >>> report.passed, round(report.min_cosine, 5)                   # doctest: +SKIP
        (True, 0.99995)
    """
    texts = list(sample)
    if not texts:
        raise ValueError("the guard needs at least one sample text")
    if reference is None:
        warm = texts[:2]
        reference_fn(warm)  # warm-up so one-off start-up costs do not count against fp32
        start = time.perf_counter()
        reference = np.asarray(reference_fn(texts), dtype=np.float32)
        reference_seconds = time.perf_counter() - start
    try:
        candidate_fn(texts[:2])  # warm-up (autocast / kernel selection)
        start = time.perf_counter()
        vectors = np.asarray(candidate_fn(texts), dtype=np.float32)
        candidate_seconds = time.perf_counter() - start
    except Exception as exc:  # a failing fast path must never break embedding
        report = GuardReport(candidate, False, float("nan"), float("nan"), float("nan"), len(texts),
                             f"{candidate} failed on the sample: {type(exc).__name__}: {exc}")
        return report, reference
    cos = cosine_agreement(reference, vectors)
    speedup = (reference_seconds / candidate_seconds) if reference_seconds and candidate_seconds > 0 else float("nan")
    lo, mean = float(cos.min()), float(cos.mean())
    if lo < min_cosine:
        reason = f"{candidate} disagrees with fp32: min cosine {lo:.5f} < {min_cosine}"
        passed = False
    elif min_speedup is not None and not (speedup >= min_speedup):
        reason = f"{candidate} is not faster than fp32 here: {speedup:.2f}x < {min_speedup}x"
        passed = False
    else:
        reason = f"{candidate} agrees with fp32 (min cosine {lo:.5f}) and is {speedup:.2f}x faster"
        passed = True
    return GuardReport(candidate, passed, lo, mean, float(speedup), len(texts), reason), reference


def hardware_fingerprint(device: str) -> str:
    """Short hash of what decides which precision is fastest: CPU/GPU model, flags, torch version."""
    import torch

    parts = [platform.machine(), platform.processor(), torch.__version__, _device_type(device)]
    if _device_type(device) == "cuda":
        index = torch.device(device).index or 0
        parts.append(torch.cuda.get_device_name(index))
    else:
        parts.append(" ".join(sorted(_cpu_flags())))
        parts.append(_cpu_model_name())
    return hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()[:16]


def _cpu_model_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()
