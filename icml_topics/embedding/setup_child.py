"""The once-per-machine setup of ``precision="auto"``, in child processes: the fit's own process never holds it.

The setup loads the model with torch, exports it to ONNX Runtime and vets every path with the guard
(``paths.decide_path``); torch, the model's weights and the export's graphs take about 1 GB that a
process keeps until it ends. ``prepare`` does it in children and reads the decision they stored, so a
fit that then embeds on an ONNX path loads neither the model's torch weights nor the export's graphs. (torch
itself is imported later by BERTopic's import when the keyphrase stage runs: BERTopic imports
sentence-transformers; ``benchmarks/results/process_start.md``. The peak memory of a first ICML 2013-2024
fit, measured before that change: ``benchmarks/results/cold_icml_5630.md``.) Only for a model named by a path or name (an in-memory
``SentenceTransformer`` cannot be handed over). ``ICML_TOPICS_SETUP_CHILD=0`` turns the children off; then, or
when one fails, the setup runs in this process. What the children write (the export, the decision file,
the model's identity record) is written atomically, so an interrupted child leaves nothing half-made.

On a new machine the setup is three children, one after the other, never two alive at once: the first loads
the model and makes everything that needs torch: the half of the export (``onnx_backend.stage_export``: the
trace, the CTranslate2 model, the probe vector) and what the guard takes from the model
(``guard_reference.measure``: the fp32 vectors of the guard sample, those of any torch path it vets, the paths
to vet), kept in the export's work folder; the second, without torch, runs the ONNX graph passes
(``onnx_export.finish``); the third, without torch either, moves the export into place and runs the guard on
the exported paths against the vectors the first one made. The graph passes (about 1.2 GB) thus never sit
beside a process holding torch and the model (about 650 MB), and the model is loaded once
(``benchmarks/results/cold_setup_torch_once.md``). Where that file is missing or unreadable the third child loads the
model itself.

    >>> from icml_topics.embedding.setup_child import prepare
    >>> prepare(None, device=None)
    'int8'
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
from pathlib import Path

from .._child import run_module
from . import guard_reference
from .cache import EmbeddingCache
from .identity import known_identity, model_identity, remember_identity
from .models import ModelSpec, embedding_dimension, load_model, resolve_device
from .onnx_backend import export_ready, install_export, stage_export
from .onnx_export import run_passes
from .paths import decide_path, decided_path, guard_candidates
from .precision import EXPORTED_PRECISIONS

__all__ = ["identity_folder", "prepare"]

logger = logging.getLogger("icml_topics")

_ENV = "ICML_TOPICS_SETUP_CHILD"


def prepare(model: ModelSpec, *, device: str | None, cache: object = True) -> str | None:
    """Make sure the embedding path of ``model`` on this machine is decided (and its export made), in a
    child process when it is not yet; returns the decided path, or None when the caller must do it.
    ``cache``: the ``cache=`` of [`embed`][icml_topics.embed] (the model's identity is kept next to it)."""
    if os.environ.get(_ENV, "").strip().lower() in ("0", "false", "no", "off"):
        return None
    if model is not None and not isinstance(model, (str, os.PathLike)):
        return None
    cache_folder = identity_folder(cache)
    dev = resolve_device(device)
    known = known_identity(model, cache_folder)
    if known is not None:
        path = decided_path(known[0], dev)
        if path is not None:
            return path
    spec = {
        "model": None if model is None else os.fspath(model),
        "device": device,
        "cache": cache_folder and str(cache_folder),
    }
    passes: dict | None = None
    try:
        record = _run(spec)
        if record is not None and record.get("passes"):
            passes = record["passes"]  # the export's torch half is made: its graph passes, then the decision
            done = run_passes({k: v for k, v in passes.items() if k != "folder"})
            if done.returncode != 0:
                logger.debug("ONNX graph passes failed (exit %s): %s", done.returncode, done.stderr[-2000:])
                return None
            staged = {"out": passes["out"], "folder": passes["folder"], "model": record.get("model")}
            record = _run({**spec, "staged": {**staged, "device": record.get("device")}})
    except OSError as exc:
        logger.debug("embedding setup child not started: %s", exc)
        return None
    finally:
        if passes is not None:
            shutil.rmtree(passes["out"], ignore_errors=True)  # installed (moved away), failed or not needed
    if record is None:
        return None
    for line in record.get("guard", []):
        logger.info("precision guard: %s", line)
    logger.info("embedding path for this machine: %s", record.get("precision"))
    return record.get("precision")


def _run(spec: dict) -> dict | None:
    """One setup child (``_main``): its record, or None when it failed."""
    done = run_module("icml_topics.embedding.setup_child", json.dumps(spec))
    if done.returncode != 0:
        logger.debug("embedding setup child failed (exit %s): %s", done.returncode, done.stderr[-2000:])
        return None
    try:
        record = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def identity_folder(cache: object) -> Path | None:
    """The folder the model's identity is kept in for ``cache`` (the ``cache=`` of ``embed``), or None."""
    if cache is None or cache is False:
        return None
    if isinstance(cache, EmbeddingCache):
        return cache.path.parent
    if cache is True or isinstance(cache, (str, os.PathLike)):
        return EmbeddingCache(None if cache is True else cache).path.parent
    return None


def _main(argument: str) -> None:
    spec = json.loads(argument)
    staged = spec.get("staged")
    record = _guard_staged(spec, staged) if staged else None
    if record is None:
        record = _setup(spec)
    print(json.dumps(record), flush=True)


def _setup(spec: dict) -> dict:
    """The child that loads the model: its identity, then the decision, or the export's torch half and what the
    guard needs from torch (``{"passes": ...}``: the graph passes and the guard follow, each in a process of its
    own). With ``spec["staged"]`` (the guard's reference was unusable): the staged export installed, then the guard."""
    folder = Path(spec["cache"]) if spec.get("cache") else None
    st = load_model(spec.get("model"), device=spec.get("device"))
    model_id = model_identity(st)
    remember_identity(spec.get("model"), model_id, embedding_dimension(st), folder)
    dev = str(st.device)
    staged = spec.get("staged")
    if staged:
        install_export(Path(staged["out"]), Path(staged["folder"]))
    path, report = decided_path(model_id, dev), None
    if path is None and not staged:
        exported = [p for p in guard_candidates(st, dev) if p in EXPORTED_PRECISIONS]
        if exported and not all(export_ready(model_id, p) for p in exported):
            reference = guard_reference.measure(st, model_id=model_id, device=dev)  # on the model as loaded
            passes = stage_export(st, model_id)
            if passes is not None:
                guard_reference.save(reference, Path(passes["out"]) / guard_reference.FILE)
                return {"passes": passes, "model": model_id, "device": dev}
            path, report = decide_path(st, model_id, dev, reference=reference)
    if path is None:
        path, report = decide_path(st, model_id, dev)
    return _decision(path, model_id, report)


def _guard_staged(spec: dict, staged: dict) -> dict | None:
    """The child after the graph passes, without torch: the export moved into place, then the guard against the
    reference the first child made; None when that reference is missing or unusable (the caller loads the model)."""
    out, model_id, dev = Path(staged["out"]), str(staged.get("model")), str(staged.get("device"))
    reference = guard_reference.load(out / guard_reference.FILE, model_id=model_id, device=dev)
    (out / guard_reference.FILE).unlink(missing_ok=True)  # not part of the export
    if reference is None:
        return None
    install_export(out, Path(staged["folder"]))
    path, report = decided_path(model_id, dev), None
    if path is None:
        path, report = decide_path(None, model_id, dev, reference=reference)
    return _decision(path, model_id, report)


def _decision(path: str, model_id: str, report: dict | None) -> dict:
    guard = [c.get("reason", "") for c in (report or {}).get("candidates", []) if isinstance(c, dict)]
    return {"precision": path, "model": model_id, "guard": guard}


if __name__ == "__main__":  # pragma: no cover - run as the child process by prepare()
    _main(sys.argv[1])
