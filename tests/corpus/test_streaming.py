"""Streaming input: chunked JSONL/Parquet reading gives read_corpus's table; embed_stream writes one
vector row per input row, chunk by chunk, equal to embed()'s vectors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import icml_topics
from icml_topics.corpus import read_corpus
from icml_topics.corpus.streaming import count_rows, embed_stream, iter_corpus

SEEDS = Path(icml_topics.__file__).parent / "data" / "icml-2026-seed-abstracts.jsonl"


@pytest.fixture()
def jsonl(tmp_path) -> Path:
    rows = [json.loads(line) for line in SEEDS.read_text(encoding="utf-8").splitlines() if line.strip()]
    for i, row in enumerate(rows):
        if i % 3 == 0:
            row.pop("id", None)  # generated ids must be numbered across chunks
    rows[7]["abstract"] = ""  # a row that is not modelled
    path = tmp_path / "papers.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_chunks_concatenate_to_read_corpus(jsonl, tmp_path, fmt):
    path = jsonl
    if fmt == "parquet":
        path = tmp_path / "papers.parquet"
        pd.read_json(jsonl, lines=True).to_parquet(path)
    whole = read_corpus(path)
    chunks = list(iter_corpus(path, chunksize=10))
    assert [len(c) for c in chunks] == [10, 10, 10, 8] and count_rows(path) == 38
    joined = pd.concat(chunks, ignore_index=True)
    assert joined["id"].tolist() == whole["id"].tolist()
    assert joined["abstract"].tolist() == whole["abstract"].tolist()
    assert joined["year"].tolist() == whole["year"].tolist()


def test_chunks_follow_read_corpus_rules_for_broken_lines_and_repeated_ids(tmp_path):
    lines = [json.dumps({"id": "a", "abstract": f"abstract number {i}"}) for i in range(5)]
    lines[2] = '{"id": "a", "abstract": broken'
    path = tmp_path / "papers.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    whole = read_corpus(path)
    chunks = list(iter_corpus(path, chunksize=2))
    joined = pd.concat(chunks, ignore_index=True)
    assert whole["id"].tolist() == joined["id"].tolist() == ["a", "a#1", "a#2", "a#3"]  # renamed across chunks
    assert count_rows(path) == len(whole) == 4  # the broken line is skipped by both, so vectors line up
    assert [issue.location for c in chunks for issue in c.attrs["load_report"].skipped] == ["line 3"]


def test_embed_stream_writes_one_row_per_input_row(jsonl, tmp_path):
    from icml_topics.corpus.validation import flag_rows
    from icml_topics.embedding import embed

    out = embed_stream(jsonl, tmp_path / "v.npy", chunksize=10, dtype="float32")
    vectors = np.load(out, mmap_mode="r")
    flagged = flag_rows(read_corpus(jsonl))
    ok = (flagged["status"] == "ok").to_numpy()
    assert vectors.shape == (38, 384) and not ok[7]
    assert np.array_equal(vectors[ok], embed(flagged.loc[ok, "text"].tolist()))
    assert not vectors[7].any()
    half = np.load(embed_stream(jsonl, tmp_path / "h.npy", chunksize=16), mmap_mode="r")
    assert half.dtype == np.float16 and np.abs(half.astype(np.float32) - vectors).max() < 2e-3


def test_other_formats_are_refused_with_the_fix(tmp_path):
    path = tmp_path / "papers.csv"
    path.write_text("abstract\nx\n")
    with pytest.raises(icml_topics.corpus.CorpusError, match="JSONL"):
        next(iter_corpus(path))
