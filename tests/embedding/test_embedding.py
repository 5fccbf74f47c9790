"""embed(), model loading and identity, and the precision guard — with the real packaged model."""

from __future__ import annotations

import copy
import json
import logging
import os
from pathlib import Path

import numpy as np
import pytest
from conftest import TEXTS, st_reference

from icml_topics.embedding import (
    DEFAULT_MODEL_NAME,
    EmbeddingCache,
    embed,
    last_run_info,
    load_model,
    model_identity,
    onnx_backend,
)
from icml_topics.embedding import paths as paths_module
from icml_topics.embedding.guard import choose_path, cosine_agreement
from icml_topics.embedding.paths import path_namespace, precision_decisions

# The once-per-machine state (precision decision, ONNX export) stays in the session's cache root
# (tests/conftest.py), so it is made once per test run; each test gets its own embedding cache.
SESSION_ROOT = Path(os.environ["ICML_TOPICS_CACHE_DIR"])

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    """Every test gets its own default cache folder and a fresh in-process precision memory."""
    monkeypatch.setenv("ICML_TOPICS_CACHE_DIR", str(tmp_path / "cache-root"))
    monkeypatch.setattr(paths_module, "decision_file", lambda: SESSION_ROOT / "precision.json")
    monkeypatch.setattr(onnx_backend, "onnx_root", lambda: SESSION_ROOT / "onnx")


@pytest.fixture(scope="module")
def model():
    return load_model()


def test_shape_dtype_normalisation_and_input_order(model):
    vectors = embed(TEXTS, cache=False, precision="fp32")
    assert vectors.shape == (len(TEXTS), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # length-sorted batching (batch of 2 here) must hand rows back in input order
    batched = embed(TEXTS, cache=False, precision="fp32", batch_size=2)
    cos = cosine_agreement(st_reference(model, TEXTS), batched)
    assert cos.min() > 0.99999, cos


def test_duplicates_and_whitespace_variants_are_embedded_once():
    texts = ["Bandits.", "  Bandits.\n", "Diffusion   models.", "Bandits.", "Diffusion models."]
    vectors = embed(texts, cache=False)
    info = last_run_info()
    assert (info.n_texts, info.n_unique, info.n_embedded) == (5, 2, 2)
    np.testing.assert_array_equal(vectors[0], vectors[1])
    np.testing.assert_array_equal(vectors[0], vectors[3])
    np.testing.assert_array_equal(vectors[2], vectors[4])
    assert not np.array_equal(vectors[0], vectors[2])


def test_empty_input_gives_zero_rows():
    vectors = embed([], cache=False)
    assert vectors.shape == (0, 384) and vectors.dtype == np.float32
    assert last_run_info().n_texts == 0


@pytest.mark.parametrize("bad", ["a single string", [1, 2], ["ok", None]])
def test_non_string_input_is_rejected_with_a_fix(bad):
    with pytest.raises(TypeError, match="str"):
        embed(bad, cache=False)


def test_precision_errors_name_the_fix():
    with pytest.raises(ValueError, match="precision must be one of"):
        embed(["x"], cache=False, precision="int4")
    with pytest.raises(ValueError, match="CUDA"):
        embed(["x"], cache=False, precision="fp16", device="cpu")


def test_second_call_comes_from_cache(tmp_path):
    first = embed(TEXTS, cache=tmp_path / "c")
    assert last_run_info().n_embedded == len(TEXTS)
    second = embed(TEXTS, cache=tmp_path / "c")
    info = last_run_info()
    assert (info.n_embedded, info.n_from_cache) == (0, len(TEXTS))
    np.testing.assert_array_equal(first, second)
    # one new text: only it is embedded, the rest come from the cache
    embed([*TEXTS, "Kernel methods."], cache=tmp_path / "c")
    assert (last_run_info().n_embedded, last_run_info().n_from_cache) == (1, len(TEXTS))


def test_default_cache_lives_under_env_folder(tmp_path):
    embed(["Bandits."])
    stats = EmbeddingCache().stats()
    assert Path(stats["path"]).is_relative_to(tmp_path / "cache-root")
    assert stats["entries"] == 1
    assert last_run_info().cache_path == stats["path"]


def test_cache_false_writes_nothing(tmp_path):
    embed(["Bandits."], cache=False)
    assert last_run_info().cache_path is None
    assert not (tmp_path / "cache-root").exists()


def test_forced_reduced_precision_never_shares_fp32_cache_entries(tmp_path, model):
    texts = ["Bandits.", "Diffusion models."]
    embed(texts, cache=tmp_path / "c", precision="fp32")
    forced = embed(texts, cache=tmp_path / "c", precision="bf16")
    info = last_run_info()
    assert info.precision == "bf16" and info.n_from_cache == 0 and info.n_embedded == 2
    assert cosine_agreement(st_reference(model, texts), forced).min() > 0.99
    stats = EmbeddingCache(tmp_path / "c").stats()
    assert sorted(stats["models"]) == [model_identity(model), model_identity(model) + "+bf16"]


def test_unwritable_cache_warns_and_still_embeds(tmp_path, caplog, model):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    with caplog.at_level(logging.WARNING, logger="icml_topics"):
        vectors = embed(TEXTS[:2], cache=blocker / "cache", precision="fp32")
    assert "will not be cached" in caplog.text
    assert cosine_agreement(st_reference(model, TEXTS[:2]), vectors).min() > 0.99999


def test_model_identity_is_stable_across_loads_and_tracks_weights():
    from sentence_transformers import SentenceTransformer

    from icml_topics.embedding.models import default_model_path

    a = SentenceTransformer(str(default_model_path()), device="cpu")
    b = SentenceTransformer(str(default_model_path()), device="cpu")
    assert a is not b
    ident = model_identity(a)
    assert ident == model_identity(b) == model_identity(None)
    assert ident.startswith(f"{DEFAULT_MODEL_NAME}@")

    changed = copy.deepcopy(b)
    other = model_identity(changed)
    assert other == ident  # a copy computes the same vectors
    with __import__("torch").no_grad():
        next(changed.parameters()).mul_(1.01)  # in-place edit, like a fine-tuning step
    assert model_identity(changed) != ident


def test_default_model_aliases_resolve_to_the_packaged_model():
    assert load_model("all-MiniLM-L6-v2") is load_model()
    assert load_model("sentence-transformers/all-MiniLM-L6-v2") is load_model(None)


def test_unknown_hub_model_fails_offline_with_a_clear_message(monkeypatch):
    """In this process (a fresh one paid torch's import again): offline, as the session is (``conftest.py`` sets
    HF_HUB_OFFLINE before anything imports huggingface_hub), so nothing is downloaded whatever the name."""
    from huggingface_hub import constants

    from icml_topics.embedding import ModelNotAvailableError

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(ModelNotAvailableError) as raised:
        load_model("no-such-org/no-such-model-xyz")
    message = str(raised.value)
    assert "'no-such-org/no-such-model-xyz' is not available offline" in message
    assert "local sentence-transformers folder" in message


# -- precision="auto" --------------------------------------------------------------------------------
def test_auto_uses_the_stored_machine_decision_and_its_own_cache_namespace(tmp_path, monkeypatch, model):
    """auto vets the candidate paths once (real guard, real ONNX export), stores the figures, then reuses them."""
    texts = [f"Paper {i}: we study topic {i % 7} in machine learning with method {i % 5}." for i in range(20)]
    vectors = embed(texts, cache=tmp_path / "c", precision="auto", device="cpu")
    info = last_run_info()
    decisions = precision_decisions()
    entry = next(e for k, e in decisions.items() if k.startswith(model_identity(model) + "|"))
    assert info.precision == entry["precision"] == choose_path(entry["guard"])
    for report in entry["guard"]:
        if report["passed"]:
            assert report["mean_cosine"] >= 0.99 and report["knn_agreement"] >= 0.85  # speed: recorded, not a rule
    assert cosine_agreement(st_reference(model, texts), vectors).mean() >= 0.99
    stats = EmbeddingCache(tmp_path / "c").stats()
    assert list(stats["models"]) == [path_namespace(model_identity(model), info.precision)]

    monkeypatch.setattr(paths_module, "_decisions", {})  # a new process: the decision is read from disk
    embed(texts, cache=tmp_path / "c", precision="auto", device="cpu")
    assert last_run_info().guard is None and last_run_info().precision == info.precision
    assert last_run_info().n_from_cache == len(texts)


def test_fast_mode_truncates_and_is_cached_apart(tmp_path, model):
    long_text = TEXTS[4] * 3  # well over 128 tokens
    full = embed([long_text, "Bandits."], cache=tmp_path / "c", precision="fp32")
    fast = embed([long_text, "Bandits."], cache=tmp_path / "c", precision="fp32", max_tokens=128)
    info = last_run_info()
    assert info.n_embedded == 2 and info.max_tokens == 128
    assert float(full[0] @ fast[0]) < 0.9999  # the tail was cut
    assert float(full[1] @ fast[1]) > 0.99999  # a short text is the same
    model.max_seq_length = 128
    try:
        truncated = st_reference(model, [long_text])
    finally:
        model.max_seq_length = 256
    assert float(truncated[0] @ fast[0]) > 0.99999
    with pytest.raises(ValueError, match="max_tokens"):
        embed(["x"], cache=False, max_tokens=0)


def test_real_abstracts_match_sentence_transformers(model):
    path = DATA / "icml-2013-2024.jsonl.gz"
    if not path.exists():
        pytest.skip(f"shared data not found at {path}")
    import gzip

    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(next(fh)) for _ in range(12)]
    texts = [f"{r.get('title') or ''}. {r.get('abstract') or ''}" for r in rows]
    vectors = embed(texts, cache=False, precision="fp32")
    assert cosine_agreement(st_reference(model, texts), vectors).min() >= 0.99999
