"""Precision paths and the hardware checks that offer them.

Paths: ``fp32`` (sentence-transformers, torch), ``bf16`` (torch autocast; offered only on CPUs with
AMX-BF16/AVX512-BF16, where it is native), ``fp16`` (CUDA), ``int8`` and ``fp32-onnx`` (ONNX Runtime,
see ``onnx_backend.py``), ``int8-ct2`` (CTranslate2, see ``ct2_backend.py``). ``precision="auto"`` vets
every offered path once per machine with ``guard.guard`` (the task-level guard, its own module) and takes
the first path of ``guard.PREFERENCE`` that keeps the task.

Examples:
    >>> from icml_topics.embedding.precision import candidate_precisions
    >>> candidate_precisions("cpu", native_bf16=False, onnx=True)
    ['int8', 'fp32-onnx']
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import platform
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Literal

from icml_topics.errors import InvalidValueError

__all__ = [
    "EXPORTED_PRECISIONS",
    "ONNX_PRECISIONS",
    "PRECISIONS",
    "Precision",
    "autocast_context",
    "candidate_precisions",
    "cpu_features",
    "cpu_flags",
    "cpu_has_native_bf16",
    "hardware_fingerprint",
    "package_version",
    "validate_precision",
]

Precision = Literal["auto", "fp32", "bf16", "fp16", "int8", "fp32-onnx", "int8-ct2"]
PRECISIONS: tuple[str, ...] = ("auto", "fp32", "bf16", "fp16", "int8", "fp32-onnx", "int8-ct2")
ONNX_PRECISIONS: tuple[str, ...] = ("int8", "fp32-onnx")
EXPORTED_PRECISIONS: tuple[str, ...] = (*ONNX_PRECISIONS, "int8-ct2")
"""The CPU paths that run a model exported once per machine (``onnx_backend``, ``ct2_backend``)."""


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
