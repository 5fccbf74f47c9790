"""Precision paths: the ONNX Runtime and CTranslate2 export (real model, real runtimes; the only fake is a failing
converter), the task-level guard, the choice."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest
from conftest import TEXTS, st_reference

from icml_topics.embedding import ct2_backend, load_model, model_identity, onnx_backend
from icml_topics.embedding.ct2_backend import CT2_FILES, CT2_FOLDER
from icml_topics.embedding.guard import Encoded, choose_path, cosine_agreement, guard, guard_sample, knn_agreement
from icml_topics.embedding.onnx_backend import MANIFEST, ONNX_PATHS, OnnxEncoder, export_dir, onnx_encoder
from icml_topics.embedding.paths import make_encoder
from icml_topics.embedding.precision import candidate_precisions, validate_precision
from icml_topics.errors import InvalidValueError


@pytest.fixture(scope="module")
def model():
    return load_model()


@pytest.fixture(scope="module")
def export_root(tmp_path_factory):
    return tmp_path_factory.mktemp("onnx-root")


@pytest.fixture(autouse=True)
def _fresh_sessions(monkeypatch):
    monkeypatch.setattr(onnx_backend, "_sessions", {})
    monkeypatch.setattr(onnx_backend, "_checked", {})


# -- ONNX Runtime export --------------------------------------------------------------------------------
def test_export_then_both_onnx_paths_agree_with_sentence_transformers(model, export_root):
    reference = st_reference(model, TEXTS)
    fp32 = onnx_encoder(model, "fp32-onnx", root=export_root)(TEXTS)
    int8 = onnx_encoder(model, "int8", root=export_root)(TEXTS)
    assert fp32.shape == int8.shape == (len(TEXTS), 384) and int8.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(int8, axis=1), 1.0, atol=1e-5)
    assert cosine_agreement(reference, fp32).min() > 0.9999
    assert cosine_agreement(reference, int8).mean() > 0.98
    folder = export_dir(model_identity(model), export_root)
    manifest = json.loads((folder / MANIFEST).read_text())
    ct2_files = {f"{CT2_FOLDER}/{name}" for name in CT2_FILES}  # the CTranslate2 model lives beside the graphs
    assert set(manifest["sha256"]) == {*ONNX_PATHS.values(), *ct2_files, "tokenizer.json"}
    assert manifest["paths"] == [*ONNX_PATHS, "int8-ct2"]
    # the int8 graph really is quantised: about a quarter of the fp32 file
    assert (folder / ONNX_PATHS["int8"]).stat().st_size < 0.4 * (folder / ONNX_PATHS["fp32-onnx"]).stat().st_size


def test_an_int8_vector_does_not_depend_on_its_batch(model, export_root):
    """Dynamic quantisation scales by the whole input: a text must get the same vector alone, in any
    batch and in any order, or warm, partial and distributed runs would differ from a cold one."""
    encode = onnx_encoder(model, "int8", root=export_root)
    alone = np.vstack([encode([t]) for t in TEXTS])
    together = encode(TEXTS)
    reversed_batch = encode(TEXTS[::-1])[::-1]
    np.testing.assert_array_equal(alone, together)
    np.testing.assert_array_equal(alone, reversed_batch)


def test_a_corrupted_export_is_detected_and_rebuilt(model, export_root, caplog):
    """Both kinds of file damaged at once (an ONNX graph and the CTranslate2 model: the manifest's checksums cover
    both, ``test_export_then_both_onnx_paths_agree_with_sentence_transformers``): one rebuild, after which each
    file matches its checksum and each path gives the model's vectors."""
    onnx_encoder(model, "int8", root=export_root)
    folder = export_dir(model_identity(model), export_root)
    corrupted = {"int8": ONNX_PATHS["int8"], "int8-ct2": f"{CT2_FOLDER}/model.bin"}
    for name in corrupted.values():
        data = bytearray((folder / name).read_bytes())
        data[len(data) // 2 : len(data) // 2 + 64] = b"\0" * 64
        (folder / name).write_bytes(bytes(data))
    for name in corrupted.values():  # each damaged file alone fails the check
        assert onnx_backend.sha256_file(folder / name) != json.loads((folder / MANIFEST).read_text())["sha256"][name]
    onnx_backend.forget_sessions()
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="icml_topics"):
        vectors = {path: onnx_encoder(model, path, root=export_root)(TEXTS) for path in ("int8-ct2", "int8")}
    assert "unusable" in caplog.text and "checksum" in caplog.text
    assert caplog.text.count("once for this machine") == 1, caplog.text  # one export repaired both
    manifest = json.loads((folder / MANIFEST).read_text())
    for name in corrupted.values():
        assert onnx_backend.sha256_file(folder / name) == manifest["sha256"][name]
    reference = st_reference(model, TEXTS)
    assert cosine_agreement(reference, vectors["int8"]).mean() > 0.98
    assert cosine_agreement(reference, vectors["int8-ct2"]).mean() > 0.99


def test_a_stale_export_is_rebuilt(model, export_root, caplog):
    onnx_encoder(model, "fp32-onnx", root=export_root)
    folder = export_dir(model_identity(model), export_root)
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["recipe"] = "an older recipe"
    (folder / MANIFEST).write_text(json.dumps(manifest))
    onnx_backend.forget_sessions()
    with caplog.at_level(logging.WARNING, logger="icml_topics"):
        onnx_encoder(model, "fp32-onnx", root=export_root)
    assert "another export recipe" in caplog.text
    assert json.loads((folder / MANIFEST).read_text())["recipe"] == onnx_backend.RECIPE


def test_onnx_fast_mode_truncates_like_sentence_transformers(model, export_root):
    long_text = TEXTS[4] * 3
    fast = onnx_encoder(model, "fp32-onnx", root=export_root, max_tokens=128)([long_text])
    model.max_seq_length = 128
    try:
        truncated = st_reference(model, [long_text])
    finally:
        model.max_seq_length = 256
    assert float(fast[0] @ truncated[0]) > 0.9999
    assert float(fast[0] @ st_reference(model, [long_text])[0]) < 0.9999


# -- CTranslate2 (int8-ct2), converted into the same export folder --------------------------------------
def test_int8_ct2_keeps_the_task_and_a_text_gets_one_vector_alone_in_any_batch_and_thread_count(model, export_root):
    reference = st_reference(model, TEXTS)
    encode = onnx_encoder(model, "int8-ct2", root=export_root)
    together = encode(TEXTS)
    assert together.shape == (len(TEXTS), 384) and together.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert cosine_agreement(reference, together).min() > 0.99
    alone = np.vstack([encode([t]) for t in TEXTS])
    np.testing.assert_array_equal(alone, together)
    np.testing.assert_array_equal(encode(TEXTS[::-1])[::-1], together)
    folder = export_dir(model_identity(model), export_root)
    for threads in (1, 2):  # whatever the default (one thread per pytest-xdist worker on 2 cores: conftest)
        np.testing.assert_array_equal(OnnxEncoder(folder, "int8-ct2", 256, threads=threads)(TEXTS), together)
    # int8 for real: the converted model is about a quarter of the fp32 graph
    assert (folder / CT2_FOLDER / "model.bin").stat().st_size < 0.4 * (folder / "model.onnx").stat().st_size


def test_converting_leaves_the_loaded_model_as_it_was(model, tmp_path):
    """CTranslate2's quantisation writes into arrays it was handed; the fp32 model (the guard's reference, the
    probe vector) must not change."""
    before = st_reference(model, TEXTS)
    files = ct2_backend.convert(model, tmp_path)
    assert all((tmp_path / name).is_file() for name in files)
    np.testing.assert_array_equal(st_reference(model, TEXTS), before)


def test_int8_ct2_is_closer_to_fp32_than_dynamic_int8_on_the_guard_sample(model, export_root):
    """Why the path exists beside int8: per-token activation scales lose less than one scale per text."""
    sample = list(guard_sample())[:64]
    reference = st_reference(model, sample)
    ct2 = onnx_encoder(model, "int8-ct2", root=export_root)(sample)
    int8 = onnx_encoder(model, "int8", root=export_root)(sample)
    assert cosine_agreement(reference, ct2).mean() > cosine_agreement(reference, int8).mean()
    assert knn_agreement(reference, ct2).mean() >= 0.85


def test_a_failing_converter_keeps_the_onnx_paths_and_names_the_missing_one(model, tmp_path, monkeypatch, caplog):
    def broken(st, out):
        raise RuntimeError("unsupported layer")

    monkeypatch.setattr("icml_topics.embedding.onnx_export.convert", broken)
    with caplog.at_level(logging.WARNING, logger="icml_topics"):
        int8 = onnx_encoder(model, "int8", root=tmp_path)(TEXTS)
    assert "could not convert" in caplog.text and "unsupported layer" in caplog.text
    manifest = json.loads((export_dir(model_identity(model), tmp_path) / MANIFEST).read_text())
    assert manifest["paths"] == ["int8", "fp32-onnx"] and int8.shape == (len(TEXTS), 384)
    assert not onnx_backend.export_ready(model_identity(model), "int8-ct2", tmp_path)
    assert onnx_backend.export_ready(model_identity(model), "int8", tmp_path)


def test_a_model_ctranslate2_cannot_convert_gets_a_clear_error(model, export_root, monkeypatch):
    monkeypatch.setattr(ct2_backend, "MODEL_TYPES", ("distilbert",))
    reason = ct2_backend.ct2_unsupported_reason(model)
    assert reason is not None and "'bert'" in reason
    with pytest.raises(InvalidValueError, match=r"cannot use precision='int8-ct2'.*use precision='fp32'"):
        onnx_encoder(model, "int8-ct2", root=export_root)


def test_making_a_ct2_encoder_leaves_torch_its_threads(model, export_root):
    """CTranslate2 sets OpenMP's thread count of the thread that builds an encoder; torch, sharing that
    runtime, would run the fp32 path (the guard's reference) on one thread from then on."""
    import torch

    onnx_encoder(model, "int8-ct2", root=export_root)  # the export, made once
    folder = export_dir(model_identity(model), export_root)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        OnnxEncoder(folder, "int8-ct2", 256, threads=2)([TEXTS[0]])
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


# -- the task-level guard -------------------------------------------------------------------------------
def test_knn_agreement_on_synthetic_vectors():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 8))
    assert knn_agreement(x, x).min() == 1.0
    assert knn_agreement(x, x * 3.0).min() == 1.0  # scale does not move cosine neighbours
    shuffled = knn_agreement(x, rng.normal(size=(50, 8)))
    assert shuffled.mean() < 0.5  # unrelated vectors share few neighbours


def test_guard_rejects_a_path_that_changes_the_task_and_survives_a_crashing_one(model):
    reference_fn = make_encoder(model, "fp32", "cpu")
    rng = np.random.default_rng(0)
    sample = list(guard_sample())[:64]

    def noisy(batch):
        vectors = reference_fn(batch) + rng.normal(scale=0.08, size=(len(batch), 384))
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def crashes(batch):
        raise RuntimeError("kernel not supported")

    reports, reference, fp32_speed = guard(
        sample, reference_fn, {"noisy": noisy, "same": reference_fn, "broken": crashes}, min_speedup=None
    )
    by_name = {r.candidate: r for r in reports}
    assert reference.shape == (64, 384) and fp32_speed > 0
    assert not by_name["noisy"].passed and "changes the task" in by_name["noisy"].reason
    assert by_name["noisy"].knn_agreement < 0.85 or by_name["noisy"].mean_cosine < 0.99
    assert by_name["same"].passed and by_name["same"].knn_agreement == 1.0
    assert not by_name["broken"].passed and "kernel not supported" in by_name["broken"].reason
    assert choose_path(reports) == "same"


def test_guard_requires_a_speedup(model):
    reference_fn = make_encoder(model, "fp32", "cpu")
    reports, _, _ = guard(TEXTS, reference_fn, {"same": reference_fn}, min_speedup=5.0)
    assert not reports[0].passed and "not faster" in reports[0].reason


def test_guard_takes_paths_made_ahead_as_they_are():
    """fp32 and a torch path made in another process (``Encoded``) beside a live encoder: compared on their rows,
    timed by their own seconds; one that failed there is reported as failed."""
    sample = list(guard_sample())[:40]
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(len(sample), 16)).astype(np.float32)
    by_text = dict(zip(sample, rows))
    reports, reference, fp32_speed = guard(
        sample,
        Encoded(rows, 2.0),
        {
            "live": lambda batch: np.vstack([by_text[t] for t in batch]),
            "ahead": Encoded(rows * 2.0, 0.5),
            "broken": Encoded(None, float("nan"), "RuntimeError: no bf16 kernel"),
        },
        min_speedup=None,
    )
    by_name = {r.candidate: r for r in reports}
    np.testing.assert_array_equal(reference, rows)
    assert fp32_speed == len(sample) / 2.0
    assert by_name["live"].passed and by_name["live"].knn_agreement == 1.0
    assert by_name["ahead"].passed and by_name["ahead"].speedup == 4.0
    assert not by_name["broken"].passed and "no bf16 kernel" in by_name["broken"].reason
    with pytest.raises(InvalidValueError, match="fp32 reference failed"):
        guard(sample, Encoded(None, 0.0, "OSError: gone"), {"live": by_text.get}, min_speedup=None)


def test_guard_sample_is_fixed_and_mixes_abstracts_and_sentences():
    sample = guard_sample()
    assert len(sample) == 128 and len(set(sample)) == 128
    lengths = sorted(len(t.split()) for t in sample)
    assert lengths[-1] > 100 and lengths[0] < 30


# -- which paths are offered, and which is chosen -------------------------------------------------------
def test_candidates_per_device():
    assert candidate_precisions("cuda") == ["fp16"]
    assert candidate_precisions("cuda:1", cuda_bf16=True) == ["fp16", "bf16"]
    assert candidate_precisions("cpu", native_bf16=True, onnx=True) == ["bf16", "int8", "fp32-onnx"]
    assert candidate_precisions("cpu", native_bf16=False, onnx=True) == ["int8", "fp32-onnx"]
    assert candidate_precisions("cpu", native_bf16=False, onnx=True, ct2=True) == ["int8", "fp32-onnx", "int8-ct2"]
    assert candidate_precisions("cpu", native_bf16=False, onnx=False) == []
    assert candidate_precisions("mps") == []


def test_choose_path_takes_the_preferred_path_that_passed():
    reports = [
        {"candidate": "bf16", "passed": True, "speedup": 1.5},
        {"candidate": "int8", "passed": True, "speedup": 3.1},
        {"candidate": "fp32-onnx", "passed": False, "speedup": 4.0},
    ]
    assert choose_path(reports) == "int8"
    assert choose_path([{"candidate": "fp16", "passed": True, "speedup": 6.0}]) == "fp16"
    assert choose_path([{"candidate": "int8", "passed": False, "speedup": 3.0}]) == "fp32"
    assert choose_path([]) == "fp32"


def test_exported_paths_are_cpu_only():
    validate_precision("int8", "cpu")
    validate_precision("int8-ct2", "cpu")
    with pytest.raises(ValueError, match="runs on CPU"):
        validate_precision("int8", "cuda")
    with pytest.raises(ValueError, match=r"runs on CPU \(CTranslate2\)"):
        validate_precision("int8-ct2", "cuda:0")
    with pytest.raises(ValueError, match="precision must be one of"):
        validate_precision("int4", "cpu")


def test_the_first_run_note_shows_until_the_path_is_decided(tmp_path, monkeypatch):
    from icml_topics.embedding import paths
    from icml_topics.embedding.identity import remember_identity

    monkeypatch.setenv("ICML_TOPICS_MACHINE_DIR", str(tmp_path / "machine"))
    monkeypatch.setattr(paths, "_decisions", {})
    cache = tmp_path / "embeddings"
    cache.mkdir()
    note = paths.first_run_note(None, cache)
    assert (
        note.startswith("first run on this machine")
        and "a few minutes on a busy machine" in note
        and str(tmp_path / "machine") in note
    )
    remember_identity(None, "all-MiniLM-L6-v2@test", 384, cache)  # the model's identity is known ...
    assert paths.first_run_note(None, cache) is not None  # ... but no path is decided yet
    paths.save_decision(paths.decision_key("all-MiniLM-L6-v2@test", "cpu"), {"precision": "int8"})
    assert paths.first_run_note(None, cache, device="cpu") is None
    fresh = tmp_path / "another-cache"  # a new embedding cache on a machine where the path is decided
    assert paths.first_run_note(None, fresh, device="cpu") is None


def test_an_unwritable_machine_folder_exports_for_the_process_with_the_same_vectors(
    model, export_root, tmp_path, monkeypatch, caplog
):
    """A read-only machine folder (here: one below a file, which no user can create) must not change the
    embedding path's vectors, or a fit's topics would depend on whether the cache can be written."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("ICML_TOPICS_MACHINE_DIR", str(blocker / "machine"))
    onnx_backend.forget_sessions()
    with caplog.at_level(logging.WARNING, logger="icml_topics"):
        fallback = onnx_encoder(model, "int8")(TEXTS)
    assert "cannot write the ONNX export folder" in caplog.text and "ICML_TOPICS_MACHINE_DIR" in caplog.text
    process_root = onnx_backend.writable_onnx_root()
    assert process_root.is_dir() and str(process_root) in caplog.text and not process_root.is_relative_to(tmp_path)
    onnx_backend.forget_sessions()  # the next test looks at its own machine folder again
    np.testing.assert_array_equal(fallback, onnx_encoder(model, "int8", root=export_root)(TEXTS))
