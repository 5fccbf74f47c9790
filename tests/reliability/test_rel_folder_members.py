"""A saved model folder is read only from regular files inside it (issue 48).

A crafted ``manifest.json`` that lists ``../victim.txt`` with its true SHA-256, a ``coords.npy`` that is a
symbolic link to an array outside the folder, a listed sub-folder that is a link: each made ``load`` hash or
read a file outside the folder. Now every one is refused with an error naming the folder's file and the fix;
the manifests below match the files, so only the new rule can catch them. A 200,000-deep JSON value in
``model.json`` or ``manifest.json`` is a library error naming the file, not a raw ``RecursionError``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from icml_topics import TopicMap
from icml_topics.errors import IcmlTopicsError
from icml_topics.store.folders import verify_folder


@pytest.fixture(scope="module")
def saved(seeds_fitted, tmp_path_factory) -> Path:
    return seeds_fitted.save(tmp_path_factory.mktemp("members") / "model")


def _copy(saved: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    shutil.copytree(saved, folder)
    return folder


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _list(folder: Path, **files: str) -> None:
    """Rewrite the manifest with extra (or replaced) entries name -> SHA-256, as a crafted folder would."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"].update(files)
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def test_the_copy_loads(saved, tmp_path):
    TopicMap.load(_copy(saved, tmp_path))  # the copy itself is fine: what follows fails for its one change


@pytest.mark.parametrize("name", ["../victim.txt", "sub/../../victim.txt", "./../victim.txt", "ABSOLUTE"])
def test_a_manifest_naming_a_file_outside_the_folder_is_refused(saved, tmp_path, name):
    folder = _copy(saved, tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("a private file outside the model folder\n", encoding="utf-8")
    name = str(victim) if name == "ABSOLUTE" else name
    (folder / "sub").mkdir()
    _list(folder, **{name: _sha(victim)})
    with pytest.raises(IcmlTopicsError, match=r"manifest\.json.*outside the folder.*again") as err:
        TopicMap.load(folder)
    assert str(folder) in str(err.value)


@pytest.mark.parametrize("member", ["coords.npy", "model.json", "theme_proba.npy", "documents.parquet"])
def test_a_listed_file_that_is_a_symbolic_link_is_refused(saved, tmp_path, member):
    folder = _copy(saved, tmp_path)
    outside = tmp_path / f"outside-{member}"
    shutil.move(folder / member, outside)  # the same bytes, so the manifest's checksum still matches
    os.symlink(outside, folder / member)
    with pytest.raises(IcmlTopicsError, match=rf"{member}.*symbolic link.*again"):
        TopicMap.load(folder)


def test_a_linked_folder_on_the_way_to_a_listed_file_is_refused(saved, tmp_path):
    folder = _copy(saved, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    np.save(elsewhere / "x.npy", np.zeros(3))
    os.symlink(elsewhere, folder / "sub")
    _list(folder, **{"sub/x.npy": _sha(elsewhere / "x.npy")})
    with pytest.raises(IcmlTopicsError, match=r"sub.*symbolic link"):
        TopicMap.load(folder)


def test_an_unlisted_optional_file_is_never_read(saved, tmp_path):
    """theme_proba.npy left out of the manifest and replaced by a link to garbage: not read, not trusted."""
    folder = _copy(saved, tmp_path)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    del manifest["files"]["theme_proba.npy"]
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    outside = tmp_path / "garbage.npy"
    np.save(outside, np.full((2, 2), 7.0))
    (folder / "theme_proba.npy").unlink()
    os.symlink(outside, folder / "theme_proba.npy")
    tm = TopicMap.load(folder)  # rebuilt from the listed files (the theme rule is fitted again)
    assert len(tm.documents_) > 0


def test_the_manifest_itself_as_a_link_is_refused(saved, tmp_path):
    folder = _copy(saved, tmp_path)
    outside = tmp_path / "manifest-elsewhere.json"
    shutil.move(folder / "manifest.json", outside)
    os.symlink(outside, folder / "manifest.json")
    with pytest.raises(IcmlTopicsError, match=r"manifest\.json is not a regular file"):
        TopicMap.load(folder)


def test_an_output_folder_is_verified_the_same_way(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    victim = tmp_path / "victim.csv"
    victim.write_text("a,b\n", encoding="utf-8")
    os.symlink(victim, folder / "topics.csv")
    manifest = {"complete": True, "format": 1, "written_by": "icml_topics", "files": {"topics.csv": _sha(victim)}}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(IcmlTopicsError, match=r"topics\.csv.*symbolic link"):
        verify_folder(folder)
    manifest["files"] = {"../victim.csv": _sha(victim)}
    (folder / "topics.csv").unlink()
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(IcmlTopicsError, match=r"outside the folder"):
        verify_folder(folder)


DEEP = "[" * 200_000 + "]" * 200_000


def test_a_deeply_nested_model_json_is_a_library_error_naming_the_file(saved, tmp_path):
    folder = _copy(saved, tmp_path)
    meta = json.loads((folder / "model.json").read_text(encoding="utf-8"))
    text = json.dumps(meta)[:-1] + ', "crafted": ' + DEEP + "}"
    (folder / "model.json").write_text(text, encoding="utf-8")
    _list(folder, **{"model.json": _sha(folder / "model.json")})
    with pytest.raises(IcmlTopicsError, match=r"model\.json.*nested too deeply.*TopicMap\.save"):
        TopicMap.load(folder)


def test_a_deeply_nested_manifest_is_a_library_error_naming_the_file(saved, tmp_path):
    folder = _copy(saved, tmp_path)
    (folder / "manifest.json").write_text('{"files": ' + DEEP + "}", encoding="utf-8")
    with pytest.raises(IcmlTopicsError, match=r"manifest\.json cannot be read.*again"):
        TopicMap.load(folder)


@pytest.mark.parametrize(
    "change",
    [
        lambda m: m.update(taxonomy={"themes": [[[]]]}),
        lambda m: m.update(theme_settings={"n_neighbors": [1, 2]}),
        lambda m: m.update(topic_tree={"parents": 5}),
        lambda m: m.update(theme_rule=[1]),
        lambda m: m.update(theme_names=["x"] * 3),
    ],
)
def test_a_crafted_model_json_value_is_a_library_error(saved, tmp_path, change):
    folder = _copy(saved, tmp_path)
    meta = json.loads((folder / "model.json").read_text(encoding="utf-8"))
    change(meta)
    (folder / "model.json").write_text(json.dumps(meta), encoding="utf-8")
    _list(folder, **{"model.json": _sha(folder / "model.json")})
    with pytest.raises(IcmlTopicsError, match=r"model\.json.*(TopicMap\.save|save the model again)") as err:
        TopicMap.load(folder)
    assert str(folder) in str(err.value)
