"""The benchmark corpus: the shared ICML / NeurIPS / seed files, and deterministic nested samples.

Sampling rule (the same on every machine, and nested: the 1k sample is inside the 2k sample):

1. ICML 2013-2024 first: the abstracts of the packaged dev set (150 hand-labelled ICML 2024 papers,
   ``icml_topics.evaluate.load_dev_labels``) lead, so label agreement is measurable at every size,
   then the other ICML abstracts in a seeded random order;
2. then NeurIPS 1987-2018 in a seeded random order (sizes above 5,630 only);
3. then the 38 ICML 2026 seed abstracts (only when a size asks for every record).

A size N takes the first N records of that order; the sample file keeps the corpus order (file, then
row), so it reads like a subset of the corpus. ``--corpus icml`` uses step 1 only.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["CORPUS_FILES", "Corpus", "DataMissing", "check_data", "load_corpus", "raw_text", "write_jsonl"]

# (file name, short name); order = sampling order
CORPUS_FILES = (
    ("icml-2013-2024.jsonl.gz", "icml"),
    ("neurips-1987-2018.jsonl.gz", "neurips"),
    ("icml-2026-seed-abstracts.jsonl", "seed"),
)


class DataMissing(RuntimeError):
    """The shared data folder, or one of its files, is not there."""


def _read_jsonl(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def raw_text(record: dict) -> str:
    """What a BERTopic user embeds: ``title + ". " + abstract`` as published (no cleaning)."""
    title = (record.get("title") or "").strip()
    abstract = (record.get("abstract") or "").strip()
    return f"{title}. {abstract}" if title else abstract


@dataclass
class Corpus:
    """Every record of the chosen files, with the sampling order."""

    records: list[dict]  # corpus order: file by file, row by row
    source: list[str]  # short file name per record
    order: np.ndarray  # sampling order: indices into ``records``
    scope: str  # "icml" or "all"

    @property
    def size(self) -> int:
        return len(self.records)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for s in self.source:
            out[s] = out.get(s, 0) + 1
        return out

    def sample(self, n: int) -> list[dict]:
        """The first ``n`` records of the sampling order, in corpus order."""
        if not 0 < n <= self.size:
            raise ValueError(f"sample size must be in 1..{self.size}, got {n}")
        return [self.records[i] for i in np.sort(self.order[:n])]

    def describe(self, n: int) -> str:
        """``"ICML 5,630"`` or ``"ICML 5,630 + NeurIPS 2,370"``: what a sample of ``n`` holds."""
        picked: dict[str, int] = {}
        for i in self.order[:n]:
            picked[self.source[i]] = picked.get(self.source[i], 0) + 1
        names = {"icml": "ICML", "neurips": "NeurIPS", "seed": "ICML 2026 seeds"}
        return " + ".join(f"{names[short]} {picked[short]:,}" for _, short in CORPUS_FILES if short in picked)


def check_data(data_dir: Path, scope: str = "all") -> None:
    """Raise :class:`DataMissing` with a readable message when a file the benchmark reads is absent."""
    if scope not in ("icml", "all"):
        raise ValueError(f"scope must be 'icml' or 'all', got {scope!r}")
    data_dir = Path(data_dir)
    if not data_dir.is_dir():
        raise DataMissing(
            f"The benchmark data folder {data_dir} does not exist. The benchmark reads the shared corpus "
            f"({', '.join(f for f, _ in CORPUS_FILES)}) from ../shared/data next to the repository; "
            "pass --data-dir to point at another copy."
        )
    wanted = CORPUS_FILES[:1] if scope == "icml" else CORPUS_FILES
    missing = [name for name, _ in wanted if not (data_dir / name).is_file()]
    if missing:
        raise DataMissing(f"{data_dir} lacks {', '.join(missing)}; the benchmark needs it to build its samples.")


def load_corpus(data_dir: Path, scope: str = "all", *, seed: int = 0, dev_ids: set[str] | None = None) -> Corpus:
    """Read the shared files (``scope="icml"``: the ICML file only) and fix the sampling order."""
    check_data(data_dir, scope)
    data_dir = Path(data_dir)
    wanted = CORPUS_FILES[:1] if scope == "icml" else CORPUS_FILES
    records: list[dict] = []
    source: list[str] = []
    for name, short in wanted:
        rows = _read_jsonl(data_dir / name)
        records.extend(rows)
        source.extend([short] * len(rows))
    rng = np.random.default_rng(seed)
    dev_ids = dev_ids or set()
    order: list[int] = []
    src = np.asarray(source)
    for _, short in wanted:
        idx = np.flatnonzero(src == short)
        if short == "seed":  # appended last, as they are: only a request for every record takes them
            order.extend(idx.tolist())
            continue
        lead = [i for i in idx if str(records[i].get("id")) in dev_ids]
        rest = np.array([i for i in idx if str(records[i].get("id")) not in dev_ids], dtype=np.int64)
        order.extend(lead)
        order.extend(rng.permutation(rest).tolist())
    return Corpus(records=records, source=source, order=np.asarray(order, dtype=np.int64), scope=scope)


def write_jsonl(records: list[dict], path: Path) -> Path:
    """Write records as JSON Lines (what ``TopicMap.fit`` and the baseline both read)."""
    path = Path(path)
    with open(path, "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path
