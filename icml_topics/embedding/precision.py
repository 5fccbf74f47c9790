"""Precision paths, the hardware checks that offer them, and the task-level guard that vets them.

Paths: ``fp32`` (sentence-transformers, torch), ``bf16`` (torch autocast; offered only on CPUs with
AMX-BF16/AVX512-BF16, where it is native), ``fp16`` (CUDA), ``int8`` and ``fp32-onnx`` (ONNX Runtime,
see ``onnx_backend.py``), ``int8-ct2`` (CTranslate2, see ``ct2_backend.py``). ``precision="auto"`` vets
every offered path once per machine with ``guard`` on a fixed sample (``guard_sample``) embedded
by fp32 and by each candidate, interleaved batch by batch, and takes the first path of ``PREFERENCE`` that
keeps the *task*: mean cosine to fp32 >= 0.99 and >= 85% of each text's 10 nearest neighbours unchanged (the
speed of each path is measured and recorded, but never decides: one timing on a busy machine is a race).
A per-vector cosine rule would reject int8, which measurably loses nothing at topic modelling.

Examples:
    >>> from icml_topics.embedding.precision import candidate_precisions
    >>> candidate_precisions("cpu", native_bf16=False, onnx=True)
    ['int8', 'fp32-onnx']
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import platform
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import numpy as np

from icml_topics.errors import InvalidValueError

__all__ = [
    "KNN",
    "MIN_KNN_AGREEMENT",
    "MIN_MEAN_COSINE",
    "MIN_SPEEDUP",
    "EXPORTED_PRECISIONS",
    "ONNX_PRECISIONS",
    "PRECISIONS",
    "PREFERENCE",
    "Precision",
    "Encoded",
    "Encoder",
    "GuardReport",
    "autocast_context",
    "candidate_precisions",
    "choose_path",
    "cosine_agreement",
    "cpu_features",
    "cpu_flags",
    "cpu_has_native_bf16",
    "guard",
    "guard_sample",
    "hardware_fingerprint",
    "knn_agreement",
    "package_version",
    "validate_precision",
]

Precision = Literal["auto", "fp32", "bf16", "fp16", "int8", "fp32-onnx", "int8-ct2"]
PRECISIONS: tuple[str, ...] = ("auto", "fp32", "bf16", "fp16", "int8", "fp32-onnx", "int8-ct2")
ONNX_PRECISIONS: tuple[str, ...] = ("int8", "fp32-onnx")
EXPORTED_PRECISIONS: tuple[str, ...] = (*ONNX_PRECISIONS, "int8-ct2")
"""The CPU paths that run a model exported once per machine (``onnx_backend``, ``ct2_backend``)."""

MIN_MEAN_COSINE = 0.99
"""The guard sample's mean cosine similarity to fp32 must be at least this."""
MIN_KNN_AGREEMENT = 0.85
"""On average at least this share of each sample text's ``KNN`` nearest neighbours must be unchanged."""
KNN = 10
MIN_SPEEDUP = 1.15
"""``guard(min_speedup=...)`` can require a candidate to be this much faster than fp32 on the sample; the
decision of ``auto`` does not (``min_speedup=None``): a timing is not a deterministic rule."""
GUARD_SIZE = 128
"""Texts in the guard sample: the 38 bundled abstracts and 90 of their sentences (a quarter of the first
run's setup each time it halves)."""
GUARD_BATCH = 32


@lru_cache(maxsize=1)
def cpu_flags() -> frozenset[str]:
    """The CPU's instruction-set flags (``/proc/cpuinfo``; empty where it cannot be read)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags") or line.startswith("Features"):
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


def cpu_features() -> str:
    """The CPU's model name and instruction-set flags that decide kernels (part of cache keys)."""
    relevant = sorted(
        f for f in cpu_flags() if f.startswith(("avx", "amx", "sse4", "fma", "f16c", "vnni", "neon", "asimd", "sve"))
    )
    return f"{platform.machine()}|{_cpu_model_name()}|{' '.join(relevant)}"


@lru_cache(maxsize=1)
def cpu_has_native_bf16() -> bool:
    """True when the CPU has bf16 matrix units (AMX-BF16 or AVX512-BF16).

    On Linux this reads ``/proc/cpuinfo``; elsewhere it trusts torch (AVX512 capability and oneDNN
    bf16 support), and the speed probe in ``guard`` rejects bf16 if that was optimistic.
    """
    flags = cpu_flags()
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


def candidate_precisions(
    device: str,
    *,
    native_bf16: bool | None = None,
    onnx: bool = True,
    cuda_bf16: bool = False,
    ct2: bool = False,
) -> list[str]:
    """Paths worth vetting against fp32 on ``device``; ``[]`` means fp32 only.

    CUDA: fp16 (and bf16 where the GPU supports it). CPU: bf16 where the CPU has native bf16, the
    ONNX Runtime paths where the model can be exported (``onnx``) and the CTranslate2 path where it can
    be converted (``ct2``).
    """
    kind = _device_type(device)
    if kind == "cuda":
        return ["fp16", "bf16"] if cuda_bf16 else ["fp16"]
    if kind != "cpu":
        return []
    native = cpu_has_native_bf16() if native_bf16 is None else native_bf16
    return (["bf16"] if native else []) + (list(ONNX_PRECISIONS) if onnx else []) + (["int8-ct2"] if ct2 else [])


def validate_precision(precision: str, device: str) -> None:
    """Raise ``ValueError`` naming the fix when ``precision`` is unknown or impossible on ``device``."""
    if precision not in PRECISIONS:
        raise InvalidValueError(f"precision must be one of {', '.join(PRECISIONS)}; got {precision!r}")
    kind = _device_type(device)
    if precision == "fp16" and kind != "cuda":
        raise InvalidValueError(
            f"precision='fp16' needs a CUDA GPU (device is {device!r}); use precision='auto' or 'fp32' on CPU"
        )
    if precision == "bf16" and kind not in {"cpu", "cuda"}:
        raise InvalidValueError(f"precision='bf16' is supported on cpu and cuda, not {device!r}; use precision='fp32'")
    if precision in EXPORTED_PRECISIONS and kind != "cpu":
        runtime = "CTranslate2" if precision == "int8-ct2" else "ONNX Runtime"
        raise InvalidValueError(
            f"precision={precision!r} runs on CPU ({runtime}), not {device!r}; use precision='auto' or device='cpu'"
        )


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
        raise InvalidValueError(f"cannot compare embeddings of shapes {ref.shape} and {cand.shape}")
    denom = np.linalg.norm(ref, axis=1) * np.linalg.norm(cand, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        cos = (ref * cand).sum(axis=1) / denom
    return np.nan_to_num(cos, nan=-1.0)


def knn_agreement(reference: np.ndarray, candidate: np.ndarray, k: int = KNN) -> np.ndarray:
    """Per row: the share of its ``k`` nearest neighbours (cosine, itself excluded) that both matrices agree on."""
    ref = np.asarray(reference, dtype=np.float64)
    cand = np.asarray(candidate, dtype=np.float64)
    n = len(ref)
    if n < 2:
        return np.ones(n)
    k = min(k, n - 1)

    def neighbours(x: np.ndarray) -> np.ndarray:
        x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
        sims = x @ x.T
        np.fill_diagonal(sims, -np.inf)
        return np.argsort(-sims, axis=1, kind="stable")[:, :k]

    a, b = neighbours(ref), neighbours(cand)
    return np.array([len(set(x) & set(y)) / k for x, y in zip(a.tolist(), b.tolist())])


@dataclass(frozen=True)
class GuardReport:
    """Outcome of vetting one candidate path against fp32 on the guard sample."""

    candidate: str
    passed: bool
    min_cosine: float
    mean_cosine: float
    knn_agreement: float  # mean share of unchanged 10 nearest neighbours
    speedup: float  # fp32 seconds / candidate seconds on the sample; nan when it failed
    docs_per_second: float
    n_sample: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Encoded:
    """A path's vectors of the guard sample made ahead, in another process (``guard_reference``): rows in the
    sample's order, made batch by batch as ``guard`` makes them, and their seconds; or the error that stopped it."""

    vectors: np.ndarray | None
    seconds: float
    error: str | None = None


Encoder = Callable[[list[str]], np.ndarray]


def guard(
    sample: Sequence[str],
    reference_fn: Encoder | Encoded,
    candidates: dict[str, Encoder | Encoded],
    *,
    min_mean_cosine: float = MIN_MEAN_COSINE,
    min_knn: float = MIN_KNN_AGREEMENT,
    min_speedup: float | None = MIN_SPEEDUP,
    batch_size: int = GUARD_BATCH,
) -> tuple[list[GuardReport], np.ndarray, float]:
    """Vet each candidate encoder against ``reference_fn`` (fp32) on ``sample``, timed batch by batch, interleaved.

    Returns one report per candidate, the fp32 vectors of the sample and fp32's docs/s. Interleaving
    makes a busy machine slow every path alike. A candidate passes when its mean cosine to fp32 is
    >= ``min_mean_cosine``, its mean 10-NN agreement >= ``min_knn`` and (unless ``min_speedup`` is
    None) it is at least ``min_speedup`` times faster. A candidate that raises fails, never breaks embedding.
    A path given as ``Encoded`` (the torch paths, made where the model was loaded) is compared as it is: the
    same vectors, but its timing was not interleaved with the others'.

    Examples:
        >>> reports, ref, fp32_speed = guard(texts, fp32_fn, {"int8": int8_fn})
        >>> reports[0].passed, round(reports[0].knn_agreement, 2)
        (True, 0.92)
    """
    texts = list(sample)
    if not texts:
        raise InvalidValueError("the guard needs at least one sample text")
    paths = {"fp32": reference_fn, **candidates}
    fns = {name: fn for name, fn in paths.items() if not isinstance(fn, Encoded)}
    seconds = dict.fromkeys(paths, 0.0)
    parts: dict[str, list[np.ndarray]] = {name: [] for name in paths}
    failed: dict[str, str] = {}
    for name, made in paths.items():
        if isinstance(made, Encoded):
            if made.error is not None or made.vectors is None:
                failed[name] = made.error or "no vectors"
            else:
                parts[name], seconds[name] = [np.asarray(made.vectors, dtype=np.float32)], float(made.seconds)
    if "fp32" in failed:
        raise InvalidValueError(f"the guard's fp32 reference failed: {failed['fp32']}")
    for name, fn in fns.items():  # warm-up: first-call costs (kernel selection, allocation) do not count
        try:
            fn(texts[:2])
        except Exception as exc:
            if name == "fp32":
                raise
            failed[name] = f"{type(exc).__name__}: {exc}"
    for start in range(0, len(texts), batch_size):
        batch = texts[start : start + batch_size]
        for name, fn in fns.items():
            if name in failed:
                continue
            try:
                t0 = time.perf_counter()
                parts[name].append(np.asarray(fn(batch), dtype=np.float32))
                seconds[name] += time.perf_counter() - t0
            except Exception as exc:  # a failing fast path must never break embedding
                if name == "fp32":
                    raise
                failed[name] = f"{type(exc).__name__}: {exc}"
    reference = np.concatenate(parts["fp32"])
    fp32_speed = len(texts) / seconds["fp32"] if seconds["fp32"] > 0 else float("nan")
    reports = []
    for name in candidates:
        if name in failed:
            reports.append(
                GuardReport(
                    name,
                    False,
                    float("nan"),
                    float("nan"),
                    float("nan"),
                    float("nan"),
                    float("nan"),
                    len(texts),
                    f"{name} failed on the sample: {failed[name]}",
                )
            )
            continue
        vectors = np.concatenate(parts[name])
        cos = cosine_agreement(reference, vectors)
        knn = float(knn_agreement(reference, vectors).mean())
        speedup = seconds["fp32"] / seconds[name] if seconds[name] > 0 else float("nan")
        lo, mean = float(cos.min()), float(cos.mean())
        figures = f"mean cosine {mean:.4f} (min {lo:.4f}), 10-NN agreement {knn:.3f}, {speedup:.2f}x fp32"
        if mean < min_mean_cosine or knn < min_knn:
            passed, reason = (
                False,
                f"{name} changes the task: {figures} (needs mean cosine >= {min_mean_cosine}, 10-NN >= {min_knn})",
            )
        elif min_speedup is not None and not speedup >= min_speedup:
            passed, reason = False, f"{name} is not faster than fp32 here: {figures} (needs >= {min_speedup}x)"
        else:
            passed, reason = True, f"{name} keeps the task: {figures}"
        reports.append(
            GuardReport(name, passed, lo, mean, knn, float(speedup), len(texts) / seconds[name], len(texts), reason)
        )
    return reports, reference, fp32_speed


PREFERENCE: tuple[str, ...] = ("fp16", "int8-ct2", "int8", "fp32-onnx", "bf16")
"""The order in which ``auto`` takes the paths that keep the task (the first that passed the guard wins, else
fp32): a fixed rule, so two machines, two cache folders or a Dask worker never pick another path because one
timing on a busy machine came out otherwise. int8 on CTranslate2 before ONNX Runtime's int8 (closer to fp32
and faster on every CPU measured, ``docs/how-to/speed.md``); the torch-free fp32-onnx (same vectors as fp32)
before bf16."""


def choose_path(reports: Sequence[GuardReport | dict[str, Any]]) -> str:
    """The first path of ``PREFERENCE`` that passed the guard (then any other, in the order reported), else
    ``"fp32"``; timings play no part.

    Examples:
        >>> choose_path([{"candidate": "int8", "passed": True, "speedup": 3.1},
        ...              {"candidate": "int8-ct2", "passed": True, "speedup": 2.0},
        ...              {"candidate": "fp32-onnx", "passed": False, "speedup": 5.0}])
        'int8-ct2'
    """
    passed: list[str] = []  # in the order reported; a path not in PREFERENCE ranks after those in it
    for report in reports:
        entry = report.to_dict() if isinstance(report, GuardReport) else report
        if entry.get("passed"):
            passed.append(str(entry["candidate"]))
    ranked = sorted(passed, key=lambda path: PREFERENCE.index(path) if path in PREFERENCE else len(PREFERENCE))
    return ranked[0] if ranked else "fp32"


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


@lru_cache(maxsize=1)
def guard_sample(size: int = GUARD_SIZE) -> tuple[str, ...]:
    """The fixed guard sample: the bundled 38 ICML 2026 abstracts, then their sentences (128 texts).

    Whole abstracts are what fits embed; single sentences stand in for the short texts (keyphrases,
    theme descriptions) a fit also embeds. Same texts on every machine, so decisions are comparable.
    """
    path = Path(str(resources.files("icml_topics") / "data" / "icml-2026-seed-abstracts.jsonl"))
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    docs = [". ".join(str(r.get(k) or "").strip() for k in ("title", "abstract") if r.get(k)) for r in records]
    sentences = [
        s
        for r in records
        for s in _SENTENCE_END.split(" ".join(str(r.get("abstract", "")).split()))
        if len(s.split()) >= 4
    ]
    return tuple(dict.fromkeys(docs + sentences))[:size]


def hardware_fingerprint(device: str) -> str:
    """Short hash of what decides which precision is fastest: CPU/GPU model, flags, torch, ONNX Runtime and
    CTranslate2 versions (a new runtime re-opens the choice)."""
    parts = [platform.machine(), platform.processor(), _torch_version(), _device_type(device), _ort_version()]
    parts.append(_ct2_version())
    if _device_type(device) == "cuda":
        import torch

        index = torch.device(device).index or 0
        parts.append(torch.cuda.get_device_name(index))
    else:
        parts.append(" ".join(sorted(cpu_flags())))
        parts.append(_cpu_model_name())
    return hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()[:16]


def package_version(distribution: str, module: str) -> str | None:
    """A package's version without importing it (torch, onnxruntime: seconds) when it is not loaded yet:
    a fit whose vectors all come from the cache needs neither. None when it is not installed."""
    import sys

    if module in sys.modules:
        return str(sys.modules[module].__version__)
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:  # another build (onnxruntime-gpu, ...), or none
        try:
            return str(importlib.import_module(module).__version__)
        except ImportError:
            return None


def _torch_version() -> str:
    return package_version("torch", "torch") or "no-torch"


def _ort_version() -> str:
    return package_version("onnxruntime", "onnxruntime") or "no-onnxruntime"


def _ct2_version() -> str:
    return package_version("ctranslate2", "ctranslate2") or "no-ctranslate2"


def _cpu_model_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()
