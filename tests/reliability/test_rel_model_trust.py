"""A saved model folder is data, not configuration (issue 38, cases 5 and 11).

One model (the bundled seed abstracts, ``seeds_fitted``) is saved once per module; each test copies the
folder, changes one file as a hostile or careless editor would, and writes a manifest that matches the
changed files (so the manifest check alone cannot catch it). ``TopicMap.load`` must then ignore the
machine's parameters it holds (with a warning), refuse a model path it names, and refuse every crafted
array or parameter with a message naming the file, the value and the fix (``TopicMap.save``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from icml_topics import TopicMap
from icml_topics.errors import InvalidValueError

FIX = "TopicMap.save"  # every refusal says how to get a good folder again


@pytest.fixture(scope="module")
def saved(seeds_fitted, tmp_path_factory) -> Path:
    return seeds_fitted.save(tmp_path_factory.mktemp("trust") / "model")


def tampered(saved: Path, tmp_path: Path, edit: Callable[[Path], None]) -> Path:
    """A copy of the saved folder changed by ``edit``, with a manifest whose checksums match the changes."""
    folder = tmp_path / "model"
    shutil.copytree(saved, folder)
    edit(folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"] = {name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in manifest["files"]}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def edit_params(**changes: object) -> Callable[[Path], None]:
    def edit(folder: Path) -> None:
        meta = json.loads((folder / "model.json").read_text(encoding="utf-8"))
        meta["params"].update(changes)
        (folder / "model.json").write_text(json.dumps(meta), encoding="utf-8")

    return edit


def save_array(name: str, make: Callable[[np.ndarray], np.ndarray]) -> Callable[[Path], None]:
    def edit(folder: Path) -> None:
        array = make(np.load(folder / name))
        np.save(folder / name, array, allow_pickle=array.dtype == object)

    return edit


def save_rule_array(member: str, make: Callable[[np.ndarray], np.ndarray]) -> Callable[[Path], None]:
    def edit(folder: Path) -> None:
        with np.load(folder / "theme_rule.npz") as archive:
            arrays = dict(archive)
        arrays[member] = make(arrays[member])
        np.savez(folder / "theme_rule.npz", **arrays)

    return edit


def drop_column(path: Path, column: str) -> None:
    pd.read_parquet(path).drop(columns=[column]).to_parquet(path, index=False)


def refused(folder: Path, *texts: str, fix: str = FIX) -> str:
    """The message of ``TopicMap.load``'s refusal, checked to name each of ``texts`` and the ``fix``."""
    with pytest.raises(InvalidValueError) as info:
        TopicMap.load(folder)
    message = str(info.value)
    for text in (*texts, fix):
        assert text in message, f"{text!r} not in: {message}"
    return message


@pytest.fixture
def warnings_logged():
    """The warnings the ``icml_topics`` logger emits during the test (its own handler: the CLI may have
    turned propagation off)."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("icml_topics")
    logger.addHandler(handler)
    try:
        yield records
    finally:
        logger.removeHandler(handler)


# ----------------------------------------------------------------------------- case 5: machine parameters
def test_a_saved_cache_folder_is_ignored_with_a_warning(saved, tmp_path, warnings_logged, seeds_fitted):
    elsewhere = tmp_path / "elsewhere"
    folder = tampered(saved, tmp_path, edit_params(cache=str(elsewhere)))
    tm = TopicMap.load(folder)
    placed = tm.transform([seeds_fitted.documents_["abstract"].iloc[0]])
    assert len(placed) == 1
    assert not elsewhere.exists(), sorted(p.name for p in elsewhere.rglob("*"))
    assert tm.cache is True
    text = "\n".join(r.getMessage() for r in warnings_logged)
    assert "cache=" + repr(str(elsewhere)) in text and "ignored" in text and "using cache=True" in text, text


def test_the_caller_chooses_the_cache_of_a_loaded_model(saved, tmp_path, warnings_logged):
    folder = tampered(saved, tmp_path, edit_params(cache=str(tmp_path / "elsewhere")))
    mine = tmp_path / "my-cache"
    assert TopicMap.load(folder, cache=str(mine)).cache == str(mine)
    assert not any("cache" in r.getMessage() for r in warnings_logged)


def test_a_saved_embedding_model_path_is_refused_unless_the_caller_passes_it(saved, tmp_path):
    hub = tampered(saved, tmp_path / "hub", edit_params(embedding_model="sentence-transformers/all-mpnet-base-v2"))
    assert TopicMap.load(hub).embedding_model == "sentence-transformers/all-mpnet-base-v2"  # a name, not a path
    model_dir = tmp_path / "planted-model"
    model_dir.mkdir()
    folder = tampered(saved, tmp_path / "path", edit_params(embedding_model=str(model_dir)))
    fix = f"TopicMap.load({str(folder)!r}, embedding_model={str(model_dir)!r})"
    refused(folder, "model.json", f"embedding_model={str(model_dir)!r}", "never a file or folder", fix=fix)
    assert TopicMap.load(folder, embedding_model=str(model_dir)).embedding_model == str(model_dir)


def test_an_unsaved_embedding_model_object_must_be_passed(saved, tmp_path):
    folder = tampered(saved, tmp_path, edit_params(embedding_model={"unsaved_object": "SentenceTransformer"}))
    with pytest.raises(InvalidValueError, match=r"model\.json.*SentenceTransformer.*embedding_model="):
        TopicMap.load(folder)


# --------------------------------------------------------------------------------- case 11: parameters
def test_min_topic_size_of_a_trillion_is_refused_like_in_init(saved, tmp_path):
    folder = tampered(saved, tmp_path, edit_params(min_topic_size=10**12))
    refused(folder, "model.json", "min_topic_size=1000000000000", "an integer from 2 to")
    with pytest.raises(InvalidValueError, match="min_topic_size=1000000000000 is not allowed"):  # the same rule
        TopicMap(min_topic_size=10**12).fit(["We study bandits.", "We study graphs."])


def test_an_unknown_saved_parameter_names_the_file(saved, tmp_path):
    folder = tampered(saved, tmp_path, edit_params(learning_rate=0.1))
    refused(folder, "model.json", "'learning_rate'")


def test_an_unknown_parameter_passed_to_load_is_refused(saved):
    with pytest.raises(InvalidValueError, match="learning_rate.*set_taxonomy"):
        TopicMap.load(saved, learning_rate=0.1)


# ------------------------------------------------------------------------------------- case 11: arrays
ARRAY_CASES = {
    "labels of 1e9": ("labels.npy", save_array("labels.npy", lambda a: np.full_like(a, 10**9)), "1000000000"),
    "float labels": ("labels.npy", save_array("labels.npy", lambda a: a.astype(np.float64)), "float64"),
    "object labels": ("labels.npy", save_array("labels.npy", lambda a: a.astype(object)), "objects"),
    "NaN embeddings": ("embeddings.npy", save_array("embeddings.npy", lambda a: np.full_like(a, np.nan)), "NaN"),
    "zero embedding": ("embeddings.npy", save_array("embeddings.npy", lambda a: np.vstack([0 * a[:1], a[1:]])), "zero"),
    "infinite coords": ("coords.npy", save_array("coords.npy", lambda a: np.full_like(a, np.inf)), "infinite"),
    "NaN theme vectors": (
        "theme_embeddings.npy",
        save_array("theme_embeddings.npy", lambda a: np.full_like(a, np.nan)),
        "NaN",
    ),
    "probabilities of 2": ("theme_proba.npy", save_array("theme_proba.npy", lambda a: np.full_like(a, 2.0)), "[0, 1]"),
    "object tree labels": ("tree_labels.npy", save_array("tree_labels.npy", lambda a: a.astype(object)), "objects"),
    "object theme rule": (
        "theme_rule.npz",
        save_rule_array("prototype_theme", lambda a: a.astype(object)),
        "'prototype_theme'",
    ),
    "theme id outside the theme table": (
        "theme_rule.npz",
        save_rule_array("prototype_theme", lambda a: a + 1000),
        "outside the theme table",
    ),
    "documents without status": (
        "documents.parquet",
        lambda f: drop_column(f / "documents.parquet", "status"),
        "status",
    ),
    "documents not Parquet": (
        "documents.parquet",
        lambda f: (f / "documents.parquet").write_text("id,title"),
        "Parquet",
    ),
    "NaN theme centroids": ("theme_rule.npz", save_rule_array("centroids", lambda a: np.full_like(a, np.nan)), "NaN"),
}


@pytest.mark.parametrize("case", list(ARRAY_CASES))
def test_a_crafted_array_is_refused_naming_the_file_and_the_fix(saved, tmp_path, case):
    name, edit, value = ARRAY_CASES[case]
    refused(tampered(saved, tmp_path, edit), name, value)
