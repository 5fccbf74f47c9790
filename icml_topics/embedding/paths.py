"""Precision paths: one encoder per path, their cache namespaces, and the once-per-machine choice of ``auto``.

``precision="auto"`` is resolved by vetting every candidate path (``guard.py``) against
fp32 on the fixed guard sample, the first time a model is used on a machine, and taking the first path of a
fixed preference order that keeps the task (``guard.PREFERENCE``); the decision and its
figures are stored in ``precision.json`` next to the embedding cache and shown by ``icml-topics info``.

Examples:
    >>> from icml_topics.embedding.paths import path_namespace, resolve_precision
    >>> path_namespace("all-MiniLM-L6-v2@ab12", "int8")
    'all-MiniLM-L6-v2@ab12+int8'
    >>> resolve_precision()            # on an AVX-512 VNNI CPU
    'int8'
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from icml_topics._machine_lock import machine_lock
from icml_topics.errors import InvalidValueError

from .._io import atomic_write_text
from .cache import machine_dir
from .ct2_backend import ct2_unsupported_reason
from .guard import PREFERENCE, Encoded, Encoder, GuardReference, choose_path, guard, guard_sample
from .identity import known_identity, model_identity
from .models import DEFAULT_MODEL_NAME, ModelSpec, is_default_model, load_model, resolve_device
from .onnx_backend import onnx_encoder, onnx_unsupported_reason
from .precision import (
    EXPORTED_PRECISIONS,
    PRECISIONS,
    autocast_context,
    candidate_precisions,
    cpu_features,
    cpu_has_native_bf16,
    hardware_fingerprint,
)

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer


__all__ = [
    "ct2_possible",
    "decide_path",
    "decided_path",
    "first_run_note",
    "decision_file",
    "guard_candidates",
    "make_encoder",
    "onnx_possible",
    "path_encoder",
    "path_namespace",
    "precision_decisions",
    "resolve_precision",
    "thread_settings",
]

logger = logging.getLogger("icml_topics")

PRECISION_FILE = "precision.json"
_decisions: dict[str, str] = {}  # "<model id>|<hardware>" -> path, for this process


def path_namespace(model_id: str, path: str, max_tokens: int | None = None) -> str:
    """Cache namespace of ``model_id`` on precision path ``path``: fp32 keeps the bare identity.

    Examples:
        >>> path_namespace("all-MiniLM-L6-v2@ab12", "int8", 128)
        'all-MiniLM-L6-v2@ab12+int8+t128'
    """
    name = model_id if path in ("fp32", "auto") else f"{model_id}+{path}"
    return f"{name}+t{max_tokens}" if max_tokens else name


def resolve_precision(model: ModelSpec = None, *, device: str | None = None) -> str:
    """The concrete path ``precision="auto"`` uses for ``model`` on this machine (vetting it now if never done).

    Resolve once on the driver, then pass the result as ``precision=`` to workers (e.g. Dask), so
    every process embeds on the same path and shares cache entries.

    Args:
        model: ``None`` (the packaged all-MiniLM-L6-v2), a hub name, a local folder or a ``SentenceTransformer``.
        device: the device to decide for; ``None``: this machine's default.

    Examples:
        >>> resolve_precision()            # on an AVX-512 VNNI CPU
        'int8'
    """
    st = load_model(model, device=device)
    dev = str(st.device)
    model_id = model_identity(st)
    return decided_path(model_id, dev) or decide_path(st, model_id, dev)[0]


def path_encoder(
    st: SentenceTransformer,
    path: str,
    device: str,
    *,
    model_id: str | None = None,
    max_tokens: int | None = None,
) -> Callable[[list[str]], np.ndarray]:
    """A function embedding one batch on ``path`` (torch, ONNX Runtime or CTranslate2); float32 L2-normalised rows."""
    if path in EXPORTED_PRECISIONS:
        return onnx_encoder(st, path, model_id=model_id, max_tokens=max_tokens)
    if path == "bf16" and device.startswith("cpu") and not cpu_has_native_bf16():
        logger.warning(
            "precision='bf16' on a CPU without native bf16 (no AMX-BF16/AVX512-BF16) is usually "
            "several times slower than fp32; use precision='auto' to pick the fastest safe path"
        )
    return make_encoder(st, path, device, max_tokens=max_tokens)


def make_encoder(
    st: SentenceTransformer, precision: str, device: str, *, max_tokens: int | None = None
) -> Callable[[list[str]], np.ndarray]:
    """A function embedding one batch with torch at ``precision``; returns float32 L2-normalised rows."""
    import torch

    def encode(batch: list[str]) -> np.ndarray:
        limit = st.max_seq_length
        if max_tokens:
            st.max_seq_length = max_tokens
        try:
            with torch.inference_mode(), autocast_context(precision, device):
                out = st.encode(
                    batch,
                    batch_size=max(len(batch), 1),
                    convert_to_tensor=True,
                    normalize_embeddings=False,
                    show_progress_bar=False,
                )
        finally:
            st.max_seq_length = limit
        array = out.detach().float().cpu().numpy().reshape(len(batch), -1)
        norms = np.linalg.norm(array, axis=1, keepdims=True)
        return (array / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)

    return encode


# -- the per-machine decision of precision="auto" ----------------------------------------------------
def decision_key(model_id: str, device: str) -> str:
    """The key of a model's embedding-path decision on this hardware in the decision file."""
    return f"{model_id}|{hardware_fingerprint(device)}"


def decided_path(model_id: str, device: str) -> str | None:
    """The path chosen earlier for this model on this device (this process, else the decision file), or None."""
    key = decision_key(model_id, device)
    if key in _decisions:
        return _decisions[key]
    entry = precision_decisions().get(key)
    path = entry.get("precision") if isinstance(entry, dict) else None
    if isinstance(entry, dict) and "rule" not in entry and isinstance(entry.get("guard"), list):
        path = choose_path([_quality_only(g) for g in entry["guard"] if isinstance(g, dict)])  # an older, timed choice
    if path in PRECISIONS and path != "auto":
        _decisions[key] = path
        return path
    return None


def _quality_only(entry: dict[str, Any]) -> dict[str, Any]:
    """A guard entry of a decision made before the preference rule, judged on quality alone: a path that failed
    only for speed ("... is not faster than fp32 here") kept the task."""
    slow = str(entry.get("reason", "")).startswith(f"{entry.get('candidate')} is not faster than fp32")
    return {**entry, "passed": bool(entry.get("passed")) or slow}


def decision_lock(model_id: str, device: str) -> Path:
    """The lock file that lets one process at a time decide ``model_id``'s path on this hardware."""
    digest = hashlib.sha256(decision_key(model_id, device).encode()).hexdigest()[:16]
    return decision_file().parent / "locks" / f"decide-{digest}.lock"


def decide_path(
    st: SentenceTransformer | None, model_id: str, device: str, *, reference: GuardReference | None = None
) -> tuple[str, dict[str, Any] | None]:
    """Vet every candidate path on the fixed guard sample; store and return the first of
    ``PREFERENCE`` that keeps the task (timings are recorded, never compared).

    ``reference``: fp32's vectors of the sample and the paths to vet, made earlier where the model was loaded
    (``guard_reference.measure``); then ``st`` may be None and the exported paths are vetted without torch.
    One process at a time per model and hardware: a process that waited for another's decision returns
    that one (with no report of its own)."""
    key = decision_key(model_id, device)
    with machine_lock(decision_lock(model_id, device), what="choice of the embedding path"):
        decided = decided_path(model_id, device)  # made by the process this one waited for
        if decided is not None:
            return decided, None
        if st is None and reference is None:  # only a path still to decide needs them
            raise InvalidValueError("decide_path needs the loaded model or a guard reference made with it")
        return _decide(st, model_id, device, key, reference)


def guard_candidates(st: SentenceTransformer, device: str) -> list[str]:
    """The paths ``decide_path`` vets for ``st`` on ``device`` (``precision.candidate_precisions``)."""
    onnx = onnx_possible(st)  # the CTranslate2 model is made by the same export, so it needs what ONNX Runtime does
    return candidate_precisions(device, onnx=onnx, cuda_bf16=_cuda_bf16(device), ct2=onnx and ct2_possible(st))


def _decide(
    st: SentenceTransformer | None, model_id: str, device: str, key: str, reference: GuardReference | None
) -> tuple[str, dict[str, Any] | None]:
    candidates = list(reference.candidates) if reference is not None else guard_candidates(st, device)
    if not candidates:
        _decisions[key] = "fp32"
        return "fp32", None
    sample = list(guard_sample())
    logger.info(
        "choosing the embedding path for this machine: vetting %s against fp32 on %d texts (once)",
        ", ".join(candidates),
        len(sample),
    )
    made = reference.made if reference is not None else {}  # the torch paths, made where the model was loaded
    encoders: dict[str, Encoder | Encoded] = {}
    failures: list[dict[str, Any]] = []
    with thread_settings(device):
        for name in candidates:
            try:
                encoders[name] = made[name] if name in made else path_encoder(st, name, device, model_id=model_id)
            except Exception as exc:  # an export that fails leaves the other paths
                logger.warning("precision path %s is unavailable here: %s", name, exc)
                failures.append({"candidate": name, "passed": False, "reason": f"unavailable: {exc}"})
        # speed is measured and recorded, never a condition: a timing on a busy machine is not a rule
        fp32 = made["fp32"] if "fp32" in made else make_encoder(st, "fp32", device)
        reports, _, fp32_speed = guard(sample, fp32, encoders, min_speedup=None)
    entries = [r.to_dict() for r in reports] + failures
    for report in reports:
        logger.info("precision guard: %s", report.reason)
    chosen = choose_path(reports)
    _decisions[key] = chosen
    record = {
        "precision": chosen,
        "model": model_id,
        "device": device,
        "cpu": cpu_features(),
        "rule": f"first of {' > '.join(PREFERENCE)} that keeps the task, else fp32",
        "fp32_docs_per_second": fp32_speed,
        "n_sample": len(sample),
        "guard": entries,
        "decided_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    save_decision(key, record)
    logger.info("embedding path for this machine: %s", chosen)
    return chosen, {"chosen": chosen, "candidates": entries}


SETUP_DURATION = "about 20-40 s on 2 idle cores, a few minutes on a busy machine"
"""What the once-per-machine setup (the ONNX export, the CTranslate2 conversion and the guard's paths) costs: 24 s
on an idle 2-core Intel Xeon (before the conversion), 34 s on an idle 2-core AMD EPYC, about 200 s on a 2-core
machine shared with other jobs (``docs/how-to/speed.md``)."""


def first_run_note(model: ModelSpec = None, cache_folder: Path | None = None, device: str | None = None) -> str | None:
    """A line saying what the once-per-machine setup of ``precision="auto"`` will cost, or None when this
    model's path is already decided here (read from the identity record next to the cache: no model load).

    Examples:
        >>> first_run_note()
        'first run on this machine: ...'
    """

    device = resolve_device(device)
    known = known_identity(model, cache_folder) if cache_folder is not None else None
    if known is not None:
        if decided_path(known[0], device) is not None:
            return None
    else:  # a new cache: any decision for a model of this name on this hardware (the identity needs the weights)
        name = DEFAULT_MODEL_NAME if is_default_model(model) else Path(os.fspath(model)).name if model else ""
        suffix = f"|{hardware_fingerprint(device)}"
        if name and any(k.startswith(f"{name}@") and k.endswith(suffix) for k in precision_decisions()):
            return None
    return (
        "first run on this machine: a one-time setup exports the embedding model (ONNX Runtime, CTranslate2) and "
        f"checks which faster embedding path keeps the results ({SETUP_DURATION}; recorded in "
        f"{decision_file().parent}, later runs skip it)"
    )


def onnx_possible(st: SentenceTransformer) -> bool:
    """Whether this model can run on ONNX Runtime here (the int8 / fp32-onnx paths are candidates)."""

    return onnx_unsupported_reason(st) is None


def ct2_possible(st: SentenceTransformer) -> bool:
    """Whether this model converts to CTranslate2 here (the int8-ct2 path is a candidate)."""

    return ct2_unsupported_reason(st) is None


def _cuda_bf16(device: str) -> bool:
    if not device.startswith("cuda"):
        return False
    import torch

    return bool(torch.cuda.is_bf16_supported())


def decision_file() -> Path:
    """Where the per-machine decisions of ``precision="auto"`` are stored (``machine_dir``)."""

    return machine_dir() / PRECISION_FILE


def precision_decisions() -> dict[str, Any]:
    """Every stored decision: ``"<model id>|<hardware>"`` -> path, guard figures, date (``{}`` when none).

    Examples:
        >>> list(precision_decisions())
    """
    try:
        data = json.loads(decision_file().read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}  # none yet, unreadable or damaged: decide again


def save_decision(key: str, record: dict[str, Any]) -> None:
    """Record the decision ``record`` (at least ``{"precision": path}``) under ``key`` in the decision file."""

    path = decision_file()
    data = precision_decisions()
    data[key] = record
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(data, indent=2, default=str))
    except OSError as exc:
        logger.debug("could not save the precision decision to %s: %s", path, exc)


def _available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@contextlib.contextmanager
def thread_settings(device: str) -> Iterator[None]:
    """Use every CPU this process may run on while embedding, then restore torch's setting.

    ``ICML_TOPICS_NUM_THREADS`` sets the count explicitly; ``OMP_NUM_THREADS`` / ``MKL_NUM_THREADS``
    are respected by leaving torch's own setting alone. Without torch loaded (an ONNX path whose export
    is made) there is nothing to set.
    """
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    explicit = os.environ.get("ICML_TOPICS_NUM_THREADS", "").strip()
    if not device.startswith("cpu") and not explicit:
        yield
        return
    if explicit:
        try:
            wanted = max(1, int(explicit))
        except ValueError:
            raise InvalidValueError(f"ICML_TOPICS_NUM_THREADS must be a positive integer, got {explicit!r}") from None
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
