"""Streaming input for large corpora: JSONL(.gz) / Parquet read in chunks, vectors written to disk.

A million abstracts are ~1 GB of text; their vectors are 1.5 GB in float32 (0.77 GB in float16).
``iter_corpus`` yields the corpus table chunk by chunk (same columns as [`read_corpus`][icml_topics.read_corpus],
generated ids numbered across chunks), and ``embed_stream`` embeds chunk by chunk, locally or on a
Dask cluster, into one ``.npy`` file with one row per input row (zeros for rows without an abstract),
so memory holds one chunk of text at a time. The file is what ``TopicMap.fit(embeddings=...)`` takes.

    >>> path = embed_stream("arxiv-ml.jsonl.gz", "arxiv-ml.f16.npy", client=client)
    >>> vectors = np.load(path, mmap_mode="r")
    >>> TopicMap(client=client).fit("arxiv-ml.jsonl.gz", embeddings=vectors)
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from icml_topics.corpus.errors import CorpusError
from icml_topics.corpus.load_report import LoadReport
from icml_topics.corpus.record_files import (
    LINE_SUFFIXES,
    PARQUET_SUFFIXES,
    count_parquet_rows,
    file_stem,
    format_suffix,
    iter_jsonl_chunks,
    iter_parquet_chunks,
)
from icml_topics.corpus.table import rows_to_frame, standardize, unique_ids
from icml_topics.corpus.validation import flag_rows
from icml_topics.embedding import embed
from icml_topics.errors import InvalidValueError
from icml_topics.fitted_tables import modelled_mask

if TYPE_CHECKING:
    from icml_topics.embedding.models import ModelSpec

__all__ = ["count_rows", "embed_stream", "iter_corpus"]

CHUNK_ROWS = 50_000


def _kind(path: Path) -> str:
    kind = format_suffix(path)
    if kind not in (*LINE_SUFFIXES, *PARQUET_SUFFIXES):
        raise CorpusError(f"{path}: streaming reads JSONL (.jsonl, .jsonl.gz) or Parquet; convert other formats first.")
    return kind


def count_rows(path: str | os.PathLike) -> int:
    """Number of rows ``iter_corpus`` yields (readable JSONL records, or Parquet rows), one chunk in memory."""
    path = Path(path)
    if _kind(path) in PARQUET_SUFFIXES:
        return count_parquet_rows(path)
    return sum(sum(isinstance(value, dict) for _, value in chunk) for chunk in iter_jsonl_chunks(path, CHUNK_ROWS))


def iter_corpus(
    path: str | os.PathLike, *, chunksize: int = CHUNK_ROWS, columns: Mapping[str, str] | None = None
) -> Iterator[pd.DataFrame]:
    """The corpus table of ``path`` in chunks of up to ``chunksize`` rows: the rows, ids and rules of
    [`read_corpus`][icml_topics.read_corpus] (ids generated as ``<stem>-<record number>``, repeated ids renamed across chunks,
    unreadable lines skipped and logged); each chunk carries its own load report."""
    path = Path(path)
    stem, earlier, offset = file_stem(path), {}, 0
    chunks: Iterator[Any]
    if _kind(path) in PARQUET_SUFFIXES:
        chunks = ((frame, None) for frame in iter_parquet_chunks(path, chunksize))
    else:
        chunks = ((None, rows) for rows in iter_jsonl_chunks(path, chunksize))
    for frame, rows in chunks:
        report = LoadReport(source=str(path))
        if rows is not None:
            frame, locations = rows_to_frame(rows, report, allow_empty=True)
            numbers = [offset + i for i in frame.index]
            offset += len(rows)
            if frame.empty:  # a chunk of broken lines only: nothing to yield, but say so
                report.log()
                continue
        else:
            report.n_read = len(frame)
            locations = [f"row {offset + i}" for i in range(len(frame))]
            numbers = [offset + i for i in range(len(frame))]
            offset += len(frame)
        table, locations = standardize(
            frame, columns, origin=str(path), report=report, id_prefix=stem, locations=locations, row_numbers=numbers
        )
        table = unique_ids(table, report, locations, earlier)
        report.n_kept = len(table)
        report.log()
        table.attrs["load_report"] = report
        yield table


def embed_stream(
    source: str | os.PathLike,
    out: str | os.PathLike,
    model: ModelSpec = None,
    *,
    client: Any = None,
    chunksize: int = CHUNK_ROWS,
    dtype: str = "float16",
    prepend_title: bool = True,
    columns: Mapping[str, str] | None = None,
    cache: Any = True,
    precision: str = "auto",
) -> Path:
    """Embed ``source`` chunk by chunk into the ``.npy`` file ``out``: one row per input row, ``dtype``
    (``"float16"`` halves the disk and memory; cosine changes by ~1e-3), zeros for rows not modelled.
    With ``client`` the chunks are embedded on its Dask workers; the embedding cache is used as usual.

    Args:
        source: a JSONL (.gz) or Parquet file of papers.
        out: the ``.npy`` file to write.
        model: the sentence-transformers model (name, path or object); ``None``: the bundled all-MiniLM-L6-v2.
        client: a ``distributed.Client`` to embed on; ``None``: this process.
        chunksize: rows read and embedded at a time.
        dtype: ``"float16"`` or ``"float32"``.
        prepend_title: embed ``"title. abstract"`` when a title is present.
        columns: our column name -> your column name, as in [`read_corpus`][icml_topics.read_corpus].
        cache: the embedding cache: ``True`` (default folder), ``False`` or a folder.
        precision: the embedding path, as ``TopicMap(precision=)``.

    Examples:
        >>> from icml_topics.corpus.streaming import embed_stream
        >>> path = embed_stream("arxiv-ml.jsonl.gz", "arxiv-ml.f16.npy")
    """

    if dtype not in ("float16", "float32"):
        raise InvalidValueError(f"dtype must be 'float16' or 'float32', got {dtype!r}")
    n = count_rows(source)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    vectors = None
    start = 0
    for chunk in iter_corpus(source, chunksize=chunksize, columns=columns):
        flagged = flag_rows(chunk, prepend_title=prepend_title)
        ok = modelled_mask(flagged)
        texts = flagged.loc[ok, "text"].tolist()
        emb = embed(texts, model, cache=cache, precision=precision, client=client)
        if vectors is None:
            vectors = np.lib.format.open_memmap(out, mode="w+", dtype=dtype, shape=(n, emb.shape[1]))
            vectors[:] = 0
        rows = np.arange(start, start + len(chunk))[ok]
        vectors[rows] = emb.astype(dtype)
        start += len(chunk)
    if vectors is None:
        raise CorpusError(f"{source} holds no rows.")
    vectors.flush()
    return out
