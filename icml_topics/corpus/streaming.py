"""Streaming input for large corpora: JSONL(.gz) / Parquet read in chunks, vectors written to disk.

A million abstracts are ~1 GB of text; their vectors are 1.5 GB in float32 (0.77 GB in float16).
:func:`iter_corpus` yields the corpus table chunk by chunk (same columns as :func:`read_corpus`,
generated ids numbered across chunks), and :func:`embed_stream` embeds chunk by chunk, locally or on a
Dask cluster, into one ``.npy`` file with one row per input row (zeros for rows without an abstract),
so memory holds one chunk of text at a time. The file is what ``TopicMap.fit(embeddings=...)`` takes.

    >>> path = embed_stream("arxiv-ml.jsonl.gz", "arxiv-ml.f16.npy", client=client)   # doctest: +SKIP
    >>> vectors = np.load(path, mmap_mode="r")                                        # doctest: +SKIP
    >>> TopicMap(client=client).fit("arxiv-ml.jsonl.gz", embeddings=vectors)           # doctest: +SKIP
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from icml_topics.corpus.readers import CorpusError, _find_column, _standardize, _stem

__all__ = ["count_rows", "embed_stream", "iter_corpus"]

CHUNK_ROWS = 50_000


def _kind(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes[-1:] == [".gz"]:
        suffixes = suffixes[:-1]
    kind = suffixes[-1] if suffixes else ""
    if kind not in {".jsonl", ".parquet", ".pq"}:
        raise CorpusError(f"{path}: streaming reads JSONL (.jsonl, .jsonl.gz) or Parquet; convert other formats first.")
    return kind


def count_rows(path: str | os.PathLike) -> int:
    """Number of records (non-empty JSONL lines, or Parquet rows) without loading them."""
    path = Path(path)
    if _kind(path) == ".jsonl":
        opener = gzip.open if path.suffix.lower() == ".gz" else open
        with opener(path, "rb") as fh:
            return sum(1 for line in fh if line.strip())
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).metadata.num_rows


def iter_corpus(
    path: str | os.PathLike, *, chunksize: int = CHUNK_ROWS, columns: Mapping[str, str] | None = None
) -> Iterator[pd.DataFrame]:
    """The corpus table of ``path`` in chunks of ``chunksize`` rows (ids generated as ``<stem>-<row>``)."""
    path = Path(path)
    if not path.exists():
        raise CorpusError(f"Input file not found: {path}.")
    kind = _kind(path)
    if kind == ".jsonl":
        chunks: Any = pd.read_json(path, lines=True, chunksize=chunksize, dtype=False)
    else:
        import pyarrow.parquet as pq

        chunks = (batch.to_pandas() for batch in pq.ParquetFile(path).iter_batches(batch_size=chunksize))
    offset, stem = 0, _stem(path)
    for frame in chunks:
        frame = frame.reset_index(drop=True)
        id_col = _find_column(frame, "id", columns)
        generated = [f"{stem}-{offset + i}" for i in range(len(frame))]
        if id_col is None:
            frame = frame.assign(id=generated)
        else:  # empty ids are numbered across chunks, not per chunk
            ids = frame[id_col].astype("string")
            frame[id_col] = ids.where(ids.notna() & (ids.str.strip() != ""), pd.Series(generated, dtype="string"))
        offset += len(frame)
        yield _standardize(frame, columns, origin=str(path), id_prefix=stem)


def embed_stream(
    source: str | os.PathLike,
    out: str | os.PathLike,
    model: Any = None,
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
    With ``client`` the chunks are embedded on its Dask workers; the embedding cache is used as usual."""
    from icml_topics.corpus.validation import flag_rows
    from icml_topics.embedding import embed

    if dtype not in ("float16", "float32"):
        raise ValueError(f"dtype must be 'float16' or 'float32', got {dtype!r}")
    n = count_rows(source)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    vectors = None
    start = 0
    for chunk in iter_corpus(source, chunksize=chunksize, columns=columns):
        flagged = flag_rows(chunk, prepend_title=prepend_title)
        ok = (flagged["status"] == "ok").to_numpy()
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
