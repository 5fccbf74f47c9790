"""The task-level guard that vets a precision path against fp32, and the fixed rule that picks one.

``guard`` embeds a fixed sample (``guard_sample``: the bundled 38 abstracts and their sentences) by fp32 and
by each candidate, interleaved batch by batch, and a path keeps the *task* when its mean cosine to fp32 is
>= 0.99 and >= 85% of each text's 10 nearest neighbours are unchanged (the speed of each path is measured and
recorded, but never decides: one timing on a busy machine is a race). A per-vector cosine rule would reject
int8, which measurably loses nothing at topic modelling. ``choose_path`` takes the first path of
``PREFERENCE`` that passed.

Examples:
    >>> from icml_topics.embedding.guard import choose_path
    >>> choose_path([{"candidate": "int8", "passed": True}, {"candidate": "fp32-onnx", "passed": True}])
    'int8'
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from icml_topics.errors import InvalidValueError

__all__ = [
    "GUARD_BATCH",
    "GUARD_SIZE",
    "KNN",
    "MIN_KNN_AGREEMENT",
    "MIN_MEAN_COSINE",
    "MIN_SPEEDUP",
    "PREFERENCE",
    "Encoded",
    "Encoder",
    "GuardReference",
    "GuardReport",
    "choose_path",
    "cosine_agreement",
    "guard",
    "guard_sample",
    "knn_agreement",
]

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


@dataclass(frozen=True)
class GuardReference:
    """What the guard takes from torch for ``model`` on ``device``: the paths to vet (in order) and the vectors
    ``made`` of fp32 and of each torch path among them."""

    model: str
    device: str
    candidates: tuple[str, ...]
    made: dict[str, Encoded]


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
