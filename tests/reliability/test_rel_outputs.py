"""The output folder of a run is swapped into place as a whole, with a checksummed manifest that
``TopicMap.load`` trusts; CSV cells cannot break records or smuggle spreadsheet formulas."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from icml_topics import TopicMap
from icml_topics.outputs import write_csv, write_outputs


@pytest.fixture(scope="module")
def small_fit(seeds_fitted):
    return seeds_fitted  # TopicMap(random_state=0) on the 38 seed abstracts, fitted once per session


def test_bare_carriage_return_in_a_title_keeps_one_record_per_paper(tmp_path):
    titles = [f"Title\r{i} part" if i % 2 else f"Title\r{i} part\r\ntwo" for i in range(100)]  # bare CR, and CRLF
    frame = pd.DataFrame({"id": [f"p{i}" for i in range(100)], "title": titles})
    path = write_csv(frame, tmp_path / "documents.csv")
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert len(rows) == 101  # header + 100 papers
    back = pd.read_csv(path)
    assert len(back) == 100 and list(back["id"]) == list(frame["id"])
    assert back["title"].iloc[3].split() == ["Title", "3", "part"]
    assert back["title"].iloc[4].split() == ["Title", "4", "part", "two"]


def test_formula_cells_are_neutralised_only_when_asked(tmp_path):
    frame = pd.DataFrame(
        {"title": ['=HYPERLINK("http://x")', "+1 trick", "-minus", "@at", "plain"], "topic": [-1, 0, 1, 2, 3]}
    )
    raw = pd.read_csv(write_csv(frame, tmp_path / "raw.csv"))
    assert list(raw["title"]) == list(frame["title"])  # default: values as they are (documented)
    safe = pd.read_csv(write_csv(frame, tmp_path / "safe.csv", csv_safe=True))
    assert list(safe["title"]) == ['\'=HYPERLINK("http://x")', "'+1 trick", "'-minus", "'@at", "plain"]
    assert list(safe["topic"]) == [-1, 0, 1, 2, 3]  # numbers are not text cells: unchanged


def manifest_files(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["files"]


def test_outputs_have_a_manifest_with_checksums(tmp_path, small_fit):
    import hashlib

    out = tmp_path / "out"
    write_outputs(small_fit, out)
    files = manifest_files(out)
    assert {"documents.csv", "topics.csv", "themes.csv", "report.html", "model/model.json"} <= set(files)
    for name, digest in files.items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no staging folder left behind


def test_a_failed_write_leaves_the_earlier_folder_untouched(tmp_path, small_fit, monkeypatch):
    out = tmp_path / "out"
    write_outputs(small_fit, out)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    changed = small_fit.documents_.copy()

    def boom(*args, **kwargs):
        raise OSError("disk full while writing the report")

    monkeypatch.setattr(type(small_fit), "report", boom)
    monkeypatch.setattr(small_fit, "documents_", changed.assign(title="changed"))
    with pytest.raises(OSError, match="disk full"):
        write_outputs(small_fit, out)
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_failed_write_into_a_new_folder_leaves_no_folder(tmp_path, small_fit, monkeypatch):
    monkeypatch.setattr(type(small_fit), "report", lambda *a, **k: (_ for _ in ()).throw(OSError("no space")))
    with pytest.raises(OSError):
        write_outputs(small_fit, tmp_path / "new")
    assert list(tmp_path.iterdir()) == []


def test_stale_staging_folders_and_write_probes_of_dead_runs_are_removed(tmp_path, small_fit):
    stale = tmp_path / "out.tmp-999999999"
    stale.mkdir()
    (stale / "documents.csv").write_text("half", encoding="utf-8")
    (tmp_path / ".out.probe-999999998").mkdir()  # a run killed while checking that --out is writable
    (tmp_path / ".other.probe-999999997").mkdir()  # another output folder's: not ours to remove
    write_outputs(small_fit, tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.probe-999999997", "out"]


def test_load_refuses_a_model_folder_without_a_valid_manifest(tmp_path, small_fit):
    path = small_fit.save(tmp_path / "model")
    assert TopicMap.load(path).topics_.equals(small_fit.topics_)
    np.save(path / "coords.npy", np.zeros((3, 2), np.float32))  # replaced by another run's file
    with pytest.raises(ValueError, match="checksum|changed"):
        TopicMap.load(path)
    (path / "manifest.json").unlink()
    with pytest.raises(ValueError, match="incomplete|manifest"):
        TopicMap.load(path)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m.update(params="oops"), "params"),
        (lambda m: m.update(topic_names=["a"]), "topic_names"),
        (lambda m: m.update(keywords={"0": "not a list"}), "keywords"),
        (lambda m: m.update(theme_names=None), "theme_names"),
        (lambda m: m["params"].update(min_topic_size="big"), "min_topic_size"),
    ],
)
def test_load_rejects_model_json_with_wrong_types(tmp_path, small_fit, edit, message):
    import hashlib

    path = small_fit.save(tmp_path / "model")
    meta = json.loads((path / "model.json").read_text(encoding="utf-8"))
    edit(meta)
    (path / "model.json").write_text(json.dumps(meta), encoding="utf-8")
    manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))  # a consistent manifest
    manifest["files"]["model.json"] = hashlib.sha256((path / "model.json").read_bytes()).hexdigest()
    (path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        TopicMap.load(path)


def test_copy_of_a_complete_folder_loads(tmp_path, small_fit):
    write_outputs(small_fit, tmp_path / "out")
    shutil.copytree(tmp_path / "out", tmp_path / "copy")
    assert TopicMap.load(tmp_path / "copy" / "model").summary() == small_fit.summary()


def test_a_folder_holding_other_files_is_never_replaced(tmp_path, small_fit):
    out = tmp_path / "papers"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(ValueError, match="new or empty folder"):
        write_outputs(small_fit, out)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
