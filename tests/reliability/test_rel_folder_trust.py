"""An output folder is replaced only when icml_topics can prove it wrote it (issue 38, cases 1, 2, 3 and 6):
a manifest the user wrote, an edited output file, a ``--by`` value that looks like a path and a symbolic link
given as the folder never cost the user a file."""

from __future__ import annotations

import hashlib
import inspect
import json
import os
from pathlib import Path

import pandas as pd
import pytest

from icml_topics import TopicMap
from icml_topics.outputs import write_outputs
from icml_topics.store.folders import check_output_path, verify_folder
from icml_topics.workflows import compare, fit_to_folder

LIGHT = {"report": False, "static_map": False}  # the tables and model/ only: what these tests check


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _unread_input(tmp_path: Path) -> Path:
    """An input that a run which got as far as reading it would refuse with another message."""
    path = tmp_path / "data" / "papers.csv"
    path.parent.mkdir()
    path.write_text("no,abstract,column\n1,2,3\n", encoding="utf-8")
    return path


# --- case 1: a manifest.json the user wrote is not a proof -------------------------------------------------
def _user_manifest(folder: Path, **fields) -> None:
    folder.mkdir()
    (folder / "notes.txt").write_text("my notes", encoding="utf-8")
    manifest = {"complete": True, "files": {"notes.txt": "0000"}, **fields}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


@pytest.mark.parametrize(
    "fields",
    [
        {},  # no written_by, wrong hash (the case of the issue)
        {"written_by": "someone else", "format": 1},
        {"written_by": "icml_topics", "format": 99},  # a format this version does not write
    ],
)
def test_a_manifest_the_user_wrote_is_refused_before_the_input_is_read(tmp_path, fields):
    out = tmp_path / "out"
    _user_manifest(out, **fields)
    before = _snapshot(out)
    with pytest.raises(ValueError, match=r"'notes.txt'.*manifest\.json.*new or empty folder") as err:
        fit_to_folder(str(_unread_input(tmp_path)), out)
    assert "column" not in str(err.value)  # refused before the input was read
    assert _snapshot(out) == before


def test_a_user_manifest_with_the_right_hashes_but_no_claim_is_refused_by_save(tmp_path, seeds_fitted):
    out = tmp_path / "model"
    out.mkdir()
    (out / "notes.txt").write_text("my notes", encoding="utf-8")
    digest = hashlib.sha256(b"my notes").hexdigest()
    (out / "manifest.json").write_text(json.dumps({"complete": True, "files": {"notes.txt": digest}}), "utf-8")
    before = _snapshot(out)
    with pytest.raises(ValueError, match=r"TopicMap.save: .*'notes.txt'.*written_by"):
        seeds_fitted.save(out)
    assert _snapshot(out) == before


def test_an_output_folder_of_an_earlier_version_is_refused_with_how_to_proceed(tmp_path, seeds_fitted):
    out = tmp_path / "out"
    write_outputs(seeds_fitted, out, **LIGHT)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["format"] == 1 and manifest["written_by"] == "icml_topics"
    del manifest["format"]  # as versions before the format was recorded wrote it
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    before = _snapshot(out)
    with pytest.raises(ValueError, match=r"earlier icml_topics version.*no \"format\".*rm -r"):
        write_outputs(seeds_fitted, out, **LIGHT)
    assert _snapshot(out) == before


# --- case 2: an edited output file is named, never replaced silently ---------------------------------------
def test_an_edited_output_file_is_named_and_kept(tmp_path, seeds_fitted):
    out = tmp_path / "outE"
    write_outputs(seeds_fitted, out, **LIGHT)
    with open(out / "documents.csv", "a", encoding="utf-8") as fh:
        fh.write("my,own,line\n")
    before = _snapshot(out)
    message = r"outE/documents.csv was edited.*To keep it, move the file out.*delete the folder"
    with pytest.raises(ValueError, match=message):
        write_outputs(seeds_fitted, out, **LIGHT)
    with pytest.raises(ValueError, match=message):  # the CLI's path: refused before the input is read
        fit_to_folder(str(_unread_input(tmp_path)), out)
    assert _snapshot(out) == before


def test_a_saved_model_with_an_edited_file_or_a_missing_file_is_not_replaced(tmp_path, seeds_fitted):
    path = seeds_fitted.save(tmp_path / "model")
    meta = path / "model.json"
    meta.write_text(meta.read_text(encoding="utf-8").replace('"params"', '"params" ', 1), encoding="utf-8")
    before = _snapshot(path)
    with pytest.raises(ValueError, match=r"TopicMap.save: .*model.json was edited"):
        seeds_fitted.save(path)
    assert _snapshot(path) == before
    (path / "coords.npy").unlink()
    with pytest.raises(ValueError, match=r"coords.npy is missing.*rm -r"):
        check_output_path(path, label="TopicMap.save:")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


# --- case 3: a value from the data never becomes part of a path --------------------------------------------
def test_compare_by_a_column_named_like_a_path_writes_only_inside_out(tmp_path, seeds_path):
    seeds = pd.read_json(seeds_path, lines=True)
    column = "../../pwn"
    seeds[column] = ["early" if i % 2 else "late" for i in range(len(seeds))]
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    victim = tmp_path / "pwn_theme_table.csv"
    victim.write_text("the user's table\n", encoding="utf-8")
    beside = tmp_path / "a" / "pwn_theme_table.csv"
    few = {"min_papers": 10} if "min_papers" in inspect.signature(compare).parameters else {}  # 19 papers a value
    result = compare(seeds, by=column, out=work / "out", align=False, random_state=0, **few)
    assert victim.read_text(encoding="utf-8") == "the user's table\n"
    assert not beside.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "pwn_theme_table.csv"]
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["b"]
    assert sorted(p.name for p in work.iterdir()) == ["out"]
    manifest = verify_folder(work / "out")
    on_disk = {p.relative_to(work / "out").as_posix() for p in (work / "out").rglob("*") if p.is_file()}
    assert on_disk == set(manifest["files"]) | {"manifest.json"}  # every file written is listed
    table = pd.read_csv(work / "out" / "theme_table.csv")
    assert list(table.columns) == ["theme", "../../pwn early", "../../pwn late"]  # the name labels the table
    assert set(result.paths) >= {"theme_table"}


# --- case 6: a symbolic link given as the folder is followed, never renamed aside -----------------------------
def test_a_link_to_an_empty_folder_is_followed_and_kept(tmp_path, seeds_fitted):
    target = tmp_path / "real"
    target.mkdir()
    link = tmp_path / "linkB"
    link.symlink_to(target, target_is_directory=True)
    write_outputs(seeds_fitted, link, **LIGHT)
    assert link.is_symlink() and link.resolve() == target.resolve()
    verify_folder(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["linkB", "real"]  # no .linkB.old-<pid>


def test_a_link_to_an_earlier_output_updates_the_target(tmp_path, seeds_fitted):
    target = tmp_path / "run1"
    write_outputs(seeds_fitted, target, **LIGHT)
    link = tmp_path / "latest"
    link.symlink_to(target, target_is_directory=True)
    write_outputs(seeds_fitted, link, report=True, static_map=False)  # adds report.html
    assert link.is_symlink() and (target / "report.html").is_file()
    verify_folder(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest", "run1"]


def test_save_through_a_link_and_a_dangling_link_is_refused(tmp_path, seeds_fitted):
    target = tmp_path / "models" / "m1"
    target.parent.mkdir()
    link = tmp_path / "model"
    link.symlink_to(target, target_is_directory=True)  # dangling: m1 does not exist
    with pytest.raises(ValueError, match=r"symbolic link to .*m1.*does not exist.*create the folder"):
        seeds_fitted.save(link)
    assert link.is_symlink() and not target.exists()
    target.mkdir()
    seeds_fitted.save(link)
    assert link.is_symlink() and TopicMap.load(link).summary() == seeds_fitted.summary()
    seeds_fitted.save(link)  # replaced through the link again
    assert sorted(os.listdir(tmp_path)) == ["model", "models"] and os.listdir(tmp_path / "models") == ["m1"]
