"""The persistent embedding cache: keys, verification, corruption recovery, interruption, read-only."""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from icml_topics.embedding import EmbeddingCache, embed, last_run_info, load_model
from icml_topics.embedding.cache import normalize_text
from icml_topics.embedding.guard import cosine_agreement

MODEL = "test-model@0123"


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ICML_TOPICS_CACHE_DIR", str(tmp_path / "cache-root"))


def _unit_rows(n: int, dim: int = 8, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_normalize_text():
    assert normalize_text("  Caf\u0065\u0301   au\tlait\n") == "Caf\u00e9 au lait"


def test_round_trip_with_normalised_keys_and_misses(tmp_path):
    cache = EmbeddingCache(tmp_path)
    vectors = _unit_rows(2)
    cache.put_many(MODEL, ["first text", "second  text"], vectors)
    got = cache.get_many(MODEL, ["  first   text ", "unknown", "second text"])
    np.testing.assert_array_equal(got[0], vectors[0])
    assert got[1] is None
    np.testing.assert_array_equal(got[2], vectors[1])
    assert cache.get_many("other-model@1", ["first text"]) == [None]
    assert cache.get_many(MODEL, ["first text"], dim=16) == [None]  # wrong dimension is a miss
    assert cache.path == tmp_path / "embeddings.sqlite3"


def test_put_many_rejects_what_it_cannot_store_faithfully(tmp_path):
    cache = EmbeddingCache(tmp_path)
    with pytest.raises(ValueError, match="one vector per text"):
        cache.put_many(MODEL, ["a", "b"], _unit_rows(3))
    with pytest.raises(ValueError, match="L2-normalised"):
        cache.put_many(MODEL, ["a"], np.full((1, 8), 3.0, np.float32))
    with pytest.raises(ValueError, match="NaN"):
        cache.put_many(MODEL, ["a"], np.full((1, 8), np.nan, np.float32))
    assert cache.stats()["entries"] == 0


def test_stats_and_clear(tmp_path):
    cache = EmbeddingCache(tmp_path / "store.sqlite3")
    cache.put_many("a@1", ["x", "y", "z"], _unit_rows(3))
    cache.put_many("b@2", ["x"], _unit_rows(1))
    stats = cache.stats()
    assert stats["entries"] == 4 and stats["models"] == {"a@1": 3, "b@2": 1}
    assert stats["size_bytes"] > 0 and stats["path"].endswith("store.sqlite3")
    assert cache.clear("a@1") == 3
    assert cache.stats()["models"] == {"b@2": 1}
    assert cache.clear() == 1
    assert cache.stats()["entries"] == 0


def test_garbage_file_is_detected_moved_aside_and_rebuilt(tmp_path, caplog):
    folder = tmp_path / "c"
    texts = ["Graph neural networks.", "Diffusion models.", "Bandits."]
    clean = embed(texts, cache=folder)
    db = folder / "embeddings.sqlite3"
    db.write_bytes(np.random.default_rng(1).bytes(db.stat().st_size))

    with caplog.at_level(logging.WARNING, logger="icml_topics"):
        again = embed(texts, cache=folder)
    assert "corrupt" in caplog.text
    assert (folder / "embeddings.sqlite3.corrupt").exists()
    assert last_run_info().n_embedded == 3  # nothing trusted from the bad file
    assert cosine_agreement(clean, again).min() > 0.99999
    embed(texts, cache=folder)
    assert last_run_info().n_from_cache == 3  # the rebuilt cache works


def test_a_damaged_vector_is_never_returned(tmp_path, caplog):
    cache = EmbeddingCache(tmp_path)
    cache.put_many(MODEL, ["a", "b"], _unit_rows(2))
    cache.close()
    with sqlite3.connect(tmp_path / "embeddings.sqlite3") as conn:  # flip bits of one vector, keep its CRC
        key, blob = conn.execute("SELECT text_key, vector FROM vectors LIMIT 1").fetchone()
        damaged = bytearray(blob)
        damaged[5] ^= 0xFF
        conn.execute("UPDATE vectors SET vector = ? WHERE text_key = ?", (bytes(damaged), key))
    with caplog.at_level(logging.WARNING, logger="icml_topics"):
        got = EmbeddingCache(tmp_path).get_many(MODEL, ["a", "b"])
    assert sum(v is None for v in got) == 1
    assert "damaged" in caplog.text
    assert EmbeddingCache(tmp_path).stats()["entries"] == 1  # the bad row was removed


def test_killed_writer_leaves_a_usable_cache(tmp_path):
    """kill -9 a process in the middle of big writes: committed batches survive, no partial batch appears."""
    script = textwrap.dedent(f"""
        import sys, numpy as np
        from icml_topics.embedding import EmbeddingCache
        def rows(n, seed):
            r = np.random.default_rng(seed).normal(size=(n, 384)).astype(np.float32)
            return r / np.linalg.norm(r, axis=1, keepdims=True)
        cache = EmbeddingCache({str(tmp_path)!r})
        cache.put_many("m@1", [f"first {{i}}" for i in range(100)], rows(100, 0))
        print("committed", flush=True)
        batch = 0
        while True:
            batch += 1
            cache.put_many("m@1", [f"batch {{batch}} text {{i}}" for i in range(20000)], rows(20000, batch))
    """)
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2]
    )
    try:
        assert proc.stdout.readline().strip() == "committed"
        time.sleep(1.5)
    finally:
        proc.kill()
        proc.wait(timeout=60)

    cache = EmbeddingCache(tmp_path)
    entries = cache.stats()["entries"]
    assert entries >= 100 and (entries - 100) % 20000 == 0, entries
    got = cache.get_many("m@1", [f"first {i}" for i in range(100)])
    assert all(v is not None for v in got)
    assert not cache.recovered  # the file was consistent: nothing had to be moved aside


def test_cache_under_a_file_is_unavailable_but_harmless(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cache = EmbeddingCache(blocker / "cache")
    with caplog.at_level(logging.WARNING, logger="icml_topics"):
        cache.put_many(MODEL, ["a"], _unit_rows(1))
        assert cache.get_many(MODEL, ["a"]) == [None]
    assert not cache.available
    assert "ICML_TOPICS_CACHE_DIR" in caplog.text
    assert cache.stats()["entries"] == 0


def test_embed_accepts_a_cache_object_and_the_model_identity_keys_it(tmp_path):
    cache = EmbeddingCache(tmp_path)
    embed(["Bandits."], cache=cache)
    from icml_topics.embedding import last_run_info, model_identity
    from icml_topics.embedding.paths import path_namespace

    assert cache.stats()["models"] == {path_namespace(model_identity(load_model()), last_run_info().precision): 1}
    assert cache.available  # embed() does not close a cache object it was given
