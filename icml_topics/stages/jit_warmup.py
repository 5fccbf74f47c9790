"""Numba's first-use compilation of UMAP, done by the fit's background worker while the fit reads and embeds.

UMAP and pynndescent (the 2-D map) compile their numba functions the first time a process uses them and
keep the machine code in numba's on-disk cache. On a new machine (or after an upgrade) that is tens of
seconds of single-core work at the map stage. ``compile_umap`` runs it on a small synthetic corpus; the
fit submits it to its one background worker (``_background.py``) while it embeds, so the map (drawn by
that worker, or by the fit's process from the on-disk cache) finds the code compiled. A small corpus's map
(t-SNE) and the topic tree (scipy) use no numba, so a small demo compiles nothing. Two fits started
together on a new machine (two notebooks, a test suite's workers) compile each step once: a lock per step
beside numba's cache, and the other waits for it, then finds the code cached.

Nothing is compiled ahead when numba's cache already holds UMAP's code (every later run), or with
``ICML_TOPICS_JIT_WARMUP=0``. It fits no user data; if it fails or is killed the fit compiles what it
needs itself, as without it.

    >>> from icml_topics.stages import jit_warmup
    >>> jit_warmup.wanted()  # False once numba's cache holds UMAP's code
    False
    >>> jit_warmup.compile_umap(large=False)
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
from pathlib import Path

import numpy as np

from icml_topics._machine_lock import machine_lock
from icml_topics.stages.reduce import MapProjector, knn_graph

__all__ = ["JIT_WARMUP_ENV", "STEPS", "cache_is_warm", "compile_umap", "step_is_cached", "step_lock", "wanted"]

logger = logging.getLogger("icml_topics")

STEPS = ("umap",)
"""What ``compile_umap`` compiles, in this order."""
JIT_WARMUP_ENV = "ICML_TOPICS_JIT_WARMUP"
"""``ICML_TOPICS_JIT_WARMUP=0``: numba's code is compiled where it is first used, not ahead."""
# one numba-cached source file per step: its index exists once that step's code was compiled here
_PROBES = {"umap": ("umap", "layouts")}


def cache_is_warm() -> bool:
    """Whether numba's on-disk cache already holds UMAP's compiled code on this machine."""
    return all(step_is_cached(step) for step in STEPS)


def step_is_cached(step: str) -> bool:
    """Whether numba's on-disk cache holds the code of warm-up step ``step`` (``"umap"``)."""
    return _indexed(*_PROBES[step])


def wanted() -> bool:
    """Whether the fit should compile UMAP's code ahead (``compile_umap``): numba's cache lacks it and
    ``ICML_TOPICS_JIT_WARMUP`` is not ``0``."""
    if os.environ.get(JIT_WARMUP_ENV, "").strip().lower() in ("0", "false", "no", "off"):
        return False
    return not cache_is_warm()


def _indexed(package: str, module: str) -> bool:
    """Whether numba's cache holds an index for ``package/module.py`` in the folder numba itself would use
    (``$NUMBA_CACHE_DIR``, the package's ``__pycache__``, or the per-user cache, first that is writable)."""
    spec = importlib.util.find_spec(package)  # a top-level name: found without importing (and compiling) it
    if spec is None or not spec.submodule_search_locations:
        return True  # not installed: nothing to compile
    folder = Path(next(iter(spec.submodule_search_locations)))
    root = os.environ.get("NUMBA_CACHE_DIR", "").strip()
    quick = list(Path(root).glob(f"{package}_*")) if root else [folder / "__pycache__"]  # numba's usual places
    if any(any(place.glob(f"{module}.*.nbi")) for place in quick):
        return True  # found without importing numba (a warm run need not)
    if root:
        return False  # numba uses $NUMBA_CACHE_DIR alone when it is set
    source = str(folder / f"{module}.py")
    try:
        from numba.core import caching

        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.6x
        for locator_class in impl._locator_classes:
            locator = locator_class.from_function(_indexed, source)
            if locator is not None:
                return any(Path(locator.get_cache_path()).glob(f"{module}.*.nbi"))
    except Exception as exc:  # another numba: assume cold, the child then finds its code cached quickly
        logger.debug("cannot locate numba's cache (%s)", exc)
    return False


def _synthetic_corpus(n: int = 600, dim: int = 384, n_groups: int = 12, seed: int = 0) -> np.ndarray:
    """Unit vectors around ``n_groups`` centres: clustered like abstracts, so every stage runs its whole path."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_groups, dim))
    x = centres[rng.integers(0, n_groups, n)] + 0.6 * rng.normal(size=(n, dim))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def step_lock(step: str) -> Path | None:
    """The lock file of warm-up step ``step``, beside the numba cache it fills (``$NUMBA_CACHE_DIR``, else the
    package's ``__pycache__``), so two processes never compile one step into one cache."""
    package, _ = _PROBES[step]
    root = os.environ.get("NUMBA_CACHE_DIR", "").strip()
    if root:
        return Path(root) / f"icml-topics-warmup-{step}.lock"
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None  # not installed
    # a read-only package folder (numba then caches per user): machine_lock runs the step unlocked
    return Path(next(iter(spec.submodule_search_locations))) / "__pycache__" / "icml-topics-warmup.lock"


def _compile(step: str, emb: np.ndarray, large: bool) -> None:

    knn = knn_graph(emb, 15, approximate=False)
    if large:
        knn_graph(emb, 15, approximate=True)
    MapProjector(15, method="umap", random_state=0).fit_transform(emb, knn)


def compile_umap(*, large: bool, steps: tuple[str, ...] = STEPS) -> None:
    """Compile each step that numba's cache lacks, one process at a time per step (another process compiling
    it is waited for: then the step is cached). ``large``: the fit takes the large-corpus path (approximate
    kNN graph), so compile that one too."""
    emb = _synthetic_corpus()
    for step in (s for s in STEPS if s in steps):
        lock = step_lock(step)
        with machine_lock(lock, what=f"numba compilation of {step}") if lock else contextlib.nullcontext():
            # the large path's approximate kNN graph has no probe of its own: compiled (or loaded) each time
            if not step_is_cached(step) or (large and step == "umap"):
                _compile(step, emb, large)
