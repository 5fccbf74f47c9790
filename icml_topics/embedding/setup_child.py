"""The once-per-machine setup of ``precision="auto"``, in a child process: the fit's own process never holds it.

The setup loads the model with torch, exports it to ONNX Runtime and vets every path with the guard
(``paths.decide_path``); torch, the model's weights and the export's graphs take about 1 GB that the
process keeps until it ends. ``prepare`` does it in a child and reads the decision it stored, so a
fit that then embeds on an ONNX path loads neither the model's torch weights nor the export's graphs. (torch
itself is imported later by BERTopic's import when the keyphrase stage runs: BERTopic imports
sentence-transformers; ``benchmarks/results/process_start.md``. The peak memory of a first ICML 2013-2024
fit, measured before that change: ``benchmarks/results/cold_icml_5630.md``.) Only for a model named by a path or name (an in-memory
``SentenceTransformer`` cannot be handed over). ``ICML_TOPICS_SETUP_CHILD=0`` turns the child off; then, or
when the child fails, the setup runs in this process. What the child writes (the export, the decision file,
the model's identity record) is written atomically, so an interrupted child leaves nothing half-made.

    >>> from icml_topics.embedding.setup_child import prepare
    >>> prepare(None, device=None)
    'int8'
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

from .._child import run_module
from .cache import EmbeddingCache
from .models import (
    ModelSpec,
    embedding_dimension,
    known_identity,
    load_model,
    model_identity,
    remember_identity,
    resolve_device,
)
from .paths import decide_path, decided_path

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
    try:
        done = run_module("icml_topics.embedding.setup_child", json.dumps(spec))
    except OSError as exc:
        logger.debug("embedding setup child not started: %s", exc)
        return None
    if done.returncode != 0:
        logger.debug("embedding setup child failed (exit %s): %s", done.returncode, done.stderr[-2000:])
        return None
    try:
        record = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return None
    for line in record.get("guard", []):
        logger.info("precision guard: %s", line)
    logger.info("embedding path for this machine: %s", record.get("precision"))
    return record.get("precision")


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
    folder = Path(spec["cache"]) if spec.get("cache") else None
    st = load_model(spec.get("model"), device=spec.get("device"))
    model_id = model_identity(st)
    remember_identity(spec.get("model"), model_id, embedding_dimension(st), folder)
    dev = str(st.device)
    path, report = decided_path(model_id, dev), None
    if path is None:
        path, report = decide_path(st, model_id, dev)
    guard = [c.get("reason", "") for c in (report or {}).get("candidates", []) if isinstance(c, dict)]
    print(json.dumps({"precision": path, "model": model_id, "guard": guard}), flush=True)


if __name__ == "__main__":  # pragma: no cover - run as the child process by prepare()
    _main(sys.argv[1])
