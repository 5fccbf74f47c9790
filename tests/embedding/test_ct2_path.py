"""The CTranslate2 path ``int8-ct2``: real model, real converter, real CTranslate2 (no mocks but a failing converter)."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest
from conftest import TEXTS, st_reference

from icml_topics.embedding import ct2_backend, load_model, model_identity, onnx_backend
from icml_topics.embedding.ct2_backend import CT2_FOLDER
from icml_topics.embedding.onnx_backend import MANIFEST, OnnxEncoder, export_dir, onnx_encoder
from icml_topics.embedding.precision import cosine_agreement, knn_agreement
from icml_topics.errors import InvalidValueError


@pytest.fixture(scope="module")
def model():
    return load_model()


@pytest.fixture(scope="module")
def export_root(tmp_path_factory):
    return tmp_path_factory.mktemp("ct2-root")


@pytest.fixture(autouse=True)
def _fresh_sessions(monkeypatch):
    monkeypatch.setattr(onnx_backend, "_sessions", {})
    monkeypatch.setattr(onnx_backend, "_checked", {})


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
    one_thread = OnnxEncoder(folder, "int8-ct2", 256, threads=1)(TEXTS)
    np.testing.assert_array_equal(one_thread, together)
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
    from icml_topics.embedding.precision import guard_sample

    sample = list(guard_sample())[:64]
    reference = st_reference(model, sample)
    ct2 = onnx_encoder(model, "int8-ct2", root=export_root)(sample)
    int8 = onnx_encoder(model, "int8", root=export_root)(sample)
    assert cosine_agreement(reference, ct2).mean() > cosine_agreement(reference, int8).mean()
    assert knn_agreement(reference, ct2).mean() >= 0.85


def test_a_corrupted_ct2_model_is_detected_and_rebuilt(model, export_root, caplog):
    onnx_encoder(model, "int8-ct2", root=export_root)
    folder = export_dir(model_identity(model), export_root)
    target = folder / CT2_FOLDER / "model.bin"
    data = bytearray(target.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 64] = b"\0" * 64
    target.write_bytes(bytes(data))
    onnx_backend.forget_sessions()
    with caplog.at_level(logging.WARNING, logger="icml_topics"):
        vectors = onnx_encoder(model, "int8-ct2", root=export_root)(TEXTS)
    assert "unusable" in caplog.text and "checksum" in caplog.text
    manifest = json.loads((folder / MANIFEST).read_text())
    assert onnx_backend.sha256_file(target) == manifest["sha256"][f"{CT2_FOLDER}/model.bin"]
    assert cosine_agreement(st_reference(model, TEXTS), vectors).mean() > 0.99


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
