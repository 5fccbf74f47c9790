"""The embedded corpora of the issue-39 benchmarks (``hierarchy_stability.py``, ``sibling_names.py``).

``prepared(name)`` returns ``FOLDER/<name>``: ``.npy`` holds the modelled rows' embeddings (the library's own
path, ``precision="auto"``, rows L2-normalised) and ``.parquet`` the rows themselves, in the same order. Each is
computed once when missing (minutes: ICML 2013-2024 is 5,630 abstracts). ``FOLDER`` is ``$HIERARCHY_EMB``, else
``benchmarks/results/raw/emb`` (ignored by git).

    icml         ICML 2013-2024, every paper
    iclr24_3000  3,000 ICLR 2024 submissions (random_state=0)
    iclr25_3000  3,000 ICLR 2025 submissions (random_state=0)
    iclr24_tune  3,000 other ICLR 2024 submissions (none of iclr24_3000; random_state=1): tuning data
    iclr_compare every ICLR 2024 and 2025 submission (18,373: the corpus of ``icml-topics compare --by year``)
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FOLDER = Path(os.environ.get("HIERARCHY_EMB") or REPO / "benchmarks" / "results" / "raw" / "emb")
SHARED = Path(os.environ.get("ICML_TOPICS_SHARED_DATA") or REPO.parent / "shared" / "data")
_SOURCES = {
    "icml": ("icml-2013-2024.jsonl.gz", None),
    "iclr24_3000": ("iclr-2024-2025-areas.jsonl.gz", 2024),
    "iclr25_3000": ("iclr-2024-2025-areas.jsonl.gz", 2025),
    "iclr24_tune": ("iclr-2024-2025-areas.jsonl.gz", 2024),
    "iclr_compare": ("iclr-2024-2025-areas.jsonl.gz", None),
}
_KEEP = ("id", "venue", "year", "title", "abstract", "text", "decision", "area", "keywords")


def prepared(name: str) -> Path:
    """``FOLDER/<name>`` (add ``.npy`` / ``.parquet``), computing both files when missing."""
    base = FOLDER / name
    if base.with_suffix(".npy").exists() and base.with_suffix(".parquet").exists():
        return base
    import numpy as np

    from icml_topics.corpus import read_corpus
    from icml_topics.corpus.validation import flag_rows
    from icml_topics.embedding import embed

    file, year = _SOURCES[name]
    corpus = read_corpus(SHARED / file)
    if year is not None:
        year_rows = corpus[corpus["year"] == year]
        corpus = year_rows.sample(n=3000, random_state=0)
        if name.endswith("_tune"):  # the papers a report leaves out
            corpus = year_rows.drop(index=corpus.index).sample(n=3000, random_state=1)
    flagged = flag_rows(corpus)
    rows = flagged[flagged["status"] == "ok"].reset_index(drop=True)
    vectors = embed(rows["text"].tolist(), precision="auto")
    FOLDER.mkdir(parents=True, exist_ok=True)
    np.save(base.with_suffix(".npy"), vectors)
    rows[[c for c in _KEEP if c in rows.columns]].to_parquet(base.with_suffix(".parquet"))
    return base
