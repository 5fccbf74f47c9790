"""What the guard needs from torch and the model, made in the setup process that holds them and kept in a small file,
so the guard that runs after the ONNX graph passes loads neither again.

The guard (``guard.guard``) vets the exported paths against fp32 sentence-transformers vectors of the fixed
guard sample. What it takes from torch: those vectors, the vectors of any torch path it vets (bf16 on a CPU with
native bf16, fp16 on CUDA), their seconds, and the list of paths worth vetting (which needs the loaded model's
modules and config). ``measure`` makes them batch by batch as the guard embeds (same batches, same warm-up, same
threads), so the guard's figures and decision are those it would reach with the model loaded; only the torch
paths' timings are not interleaved with the exported paths' (timings are recorded, never decide). ``save``
writes them atomically into the setup's work folder; ``load`` gives them back, or None when the file is
missing, damaged or made for another sample, model or device (the guard then loads the model itself).

Examples:
    >>> from icml_topics.embedding.guard_reference import load, measure, save
    >>> save(measure(st, model_id=model_identity(st), device="cpu"), folder / "guard-reference.npz")
    >>> load(folder / "guard-reference.npz", model_id=model_identity(st), device="cpu").candidates
    ('int8', 'fp32-onnx', 'int8-ct2')
"""

from __future__ import annotations

import hashlib
import json
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._io import atomic_path
from .guard import GUARD_BATCH, Encoded, Encoder, GuardReference, guard_sample
from .paths import guard_candidates, make_encoder, path_encoder, thread_settings
from .precision import EXPORTED_PRECISIONS

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = ["FILE", "load", "measure", "save"]

FILE = "guard-reference.npz"
"""The file's name in the setup's work folder (the staged export, removed before the export is installed)."""


def _sample_digest(sample: Sequence[str], batch_size: int) -> str:
    """Names the texts and batches the vectors were made from."""
    return hashlib.sha256(json.dumps([batch_size, list(sample)]).encode("utf-8")).hexdigest()


def measure(st: SentenceTransformer, *, model_id: str, device: str) -> GuardReference:
    """The paths ``decide_path`` would vet for ``st`` on ``device``, and the vectors of ``guard_sample()`` by fp32
    and by each torch path among them, made as ``guard.guard`` makes them (same threads, a two-text warm-up,
    then timed batch by batch). fp32 failing raises, as in the guard; another path failing is recorded."""
    candidates = tuple(guard_candidates(st, device))
    made: dict[str, Encoded] = {}
    with thread_settings(device):
        made["fp32"] = _encode(make_encoder(st, "fp32", device))
        for name in candidates:
            if name in EXPORTED_PRECISIONS:
                continue  # vetted by the guard itself, without torch
            try:
                made[name] = _encode(path_encoder(st, name, device, model_id=model_id))
            except Exception as exc:  # a failing fast path must never break embedding
                made[name] = Encoded(None, float("nan"), f"{type(exc).__name__}: {exc}")
    return GuardReference(model_id, device, candidates, made)


def _encode(encode: Encoder) -> Encoded:
    texts = list(guard_sample())
    encode(texts[:2])  # the guard's warm-up: first-call costs do not count
    parts, seconds = [], 0.0
    for start in range(0, len(texts), GUARD_BATCH):
        t0 = time.perf_counter()
        parts.append(np.asarray(encode(texts[start : start + GUARD_BATCH]), dtype=np.float32))
        seconds += time.perf_counter() - t0
    return Encoded(np.concatenate(parts), seconds)


def save(reference: GuardReference, path: Path) -> None:
    """Write ``reference`` to ``path`` (``.npz``, no pickled objects), atomically."""
    made = {name: {"seconds": e.seconds, "error": e.error} for name, e in reference.made.items()}
    meta = {
        "model": reference.model,
        "device": reference.device,
        "candidates": list(reference.candidates),
        "made": made,
        "sample": _sample_digest(guard_sample(), GUARD_BATCH),
    }
    arrays = {name: e.vectors for name, e in reference.made.items() if e.vectors is not None}
    with atomic_path(path, suffix=".npz") as tmp, open(tmp, "wb") as handle:
        np.savez(handle, meta=np.array(json.dumps(meta)), **arrays)


def load(path: Path, *, model_id: str, device: str) -> GuardReference | None:
    """The reference ``save`` wrote to ``path`` for ``model_id`` on ``device``; None when there is none, it cannot
    be read, or it was made for another model, device or guard sample."""
    rows = len(guard_sample())
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            arrays = {name: np.asarray(data[name], dtype=np.float32) for name in data.files if name != "meta"}
        if (
            meta["model"] != model_id
            or meta["device"] != device
            or meta["sample"] != _sample_digest(guard_sample(), GUARD_BATCH)
            or any(a.shape[0] != rows or a.ndim != 2 for a in arrays.values())
        ):
            return None
        made = {
            name: Encoded(arrays.get(name), float(entry["seconds"]), entry["error"])
            for name, entry in meta["made"].items()
        }
        if made["fp32"].vectors is None:
            return None
        return GuardReference(model_id, device, tuple(str(c) for c in meta["candidates"]), made)
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):
        return None  # missing, damaged or of another layout: the guard loads the model itself
