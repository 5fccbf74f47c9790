"""The output folder of a run is swapped into place as a whole, with a checksummed manifest that
``TopicMap.load`` trusts; CSV cells cannot break records or smuggle spreadsheet formulas."""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from icml_topics import TopicMap
from icml_topics.outputs import write_outputs
from icml_topics.store.csv_files import write_csv
from icml_topics.store.folders import verify_folder


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


def test_formula_cells_are_neutralised_unless_raw_is_asked(tmp_path):
    frame = pd.DataFrame(
        {"title": ['=HYPERLINK("http://x")', "+1 trick", "-minus", "@at", "plain"], "topic": [-1, 0, 1, 2, 3]}
    )
    safe = pd.read_csv(write_csv(frame, tmp_path / "safe.csv"))  # default: escaped (OWASP; documented)
    assert list(safe["title"]) == ['\'=HYPERLINK("http://x")', "'+1 trick", "'-minus", "'@at", "plain"]
    assert list(safe["topic"]) == [-1, 0, 1, 2, 3]  # numbers are not text cells: unchanged
    raw = pd.read_csv(write_csv(frame, tmp_path / "raw.csv", csv_safe=False))
    assert list(raw["title"]) == list(frame["title"])


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
    # the outputs read the fit's tables (tables_): changed ones miss the report cache, so the report is built
    monkeypatch.setattr(
        small_fit, "tables_", dataclasses.replace(small_fit.tables_, documents=changed.assign(title="changed"))
    )
    with pytest.raises(OSError, match="disk full"):
        write_outputs(small_fit, out)
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_failed_write_into_a_new_folder_leaves_no_folder(tmp_path, small_fit, monkeypatch):
    from icml_topics import outputs

    # writing report.html fails (built now or copied from the output cache)
    monkeypatch.setattr(outputs, "_write_report", lambda *a, **k: (_ for _ in ()).throw(OSError("no space")))
    with pytest.raises(OSError):
        write_outputs(small_fit, tmp_path / "new")
    assert list(tmp_path.iterdir()) == []


def test_stale_staging_folders_and_write_probes_of_dead_runs_are_removed(tmp_path, small_fit):
    stale = tmp_path / "out.tmp-999999999"
    stale.mkdir()
    (stale / "documents.csv").write_text("half", encoding="utf-8")
    (stale / ".icml_topics-staging").write_text("999999999", encoding="utf-8")  # the mark of our staging folders
    unmarked = tmp_path / "out.tmp-999999996"  # a dead pid's name but not marked as ours: left alone
    unmarked.mkdir()
    (tmp_path / ".out.probe-999999998").mkdir()  # a run killed while checking that --out is writable
    (tmp_path / ".other.probe-999999997").mkdir()  # another output folder's: not ours to remove
    write_outputs(small_fit, tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.probe-999999997", "out", "out.tmp-999999996"]


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
    with pytest.raises(ValueError, match="'notes.txt'.*new or empty folder"):
        write_outputs(small_fit, out)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


# --- only what icml_topics wrote is ever replaced (issue: users' files were deleted) -------------------
def _snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    ("entry", "make"),
    [
        ("papers.csv", lambda d: (d / "papers.csv").write_text("id,abstract\n1,mine\n", encoding="utf-8")),
        (".notes", lambda d: (d / ".notes").write_text("my notes", encoding="utf-8")),
        (".git/", lambda d: ((d / ".git").mkdir(), (d / ".git" / "HEAD").write_text("ref", encoding="utf-8"))),
    ],
)
def test_an_output_folder_holding_a_user_file_is_refused_and_kept(tmp_path, small_fit, entry, make):
    out = tmp_path / "out"
    write_outputs(small_fit, out, report=False, static_map=False)  # an earlier run of ours ...
    make(out)  # ... next to which the user put a file of their own
    before = _snapshot(out)
    with pytest.raises(ValueError, match=re.escape(repr(entry))):
        write_outputs(small_fit, out, report=False, static_map=False)
    assert _snapshot(out) == before


def test_fit_to_folder_refuses_the_inputs_folder_before_reading_it(tmp_path):
    from icml_topics.workflows import fit_to_folder

    data = tmp_path / "data"
    data.mkdir()
    papers = data / "papers.csv"
    papers.write_text("id,abstract\n1,not even read\n", encoding="utf-8")
    for out in (data, tmp_path):  # the input's folder, and a folder above it
        with pytest.raises(ValueError, match="holds the input file"):
            fit_to_folder(str(papers), out)
    assert papers.read_text(encoding="utf-8") == "id,abstract\n1,not even read\n"


def test_save_refuses_a_folder_of_user_files_and_an_existing_file(tmp_path, small_fit):
    folder = tmp_path / "results"
    (folder / "tables").mkdir(parents=True)
    (folder / "report.html").write_text("<p>mine</p>", encoding="utf-8")
    (folder / "tables" / "t.csv").write_text("a\n1\n", encoding="utf-8")
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    before = _snapshot(folder)
    with pytest.raises(ValueError, match="TopicMap.save.*no icml_topics manifest"):
        small_fit.save(folder)
    assert _snapshot(folder) == before
    target = tmp_path / "results.csv"
    target.write_text("keep me", encoding="utf-8")
    with pytest.raises(ValueError, match="existing file"):
        small_fit.save(target)
    assert target.read_text(encoding="utf-8") == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results", "results.csv"]  # no hidden .old


def test_save_replaces_its_own_folder(tmp_path, small_fit):
    path = small_fit.save(tmp_path / "model")
    small_fit.save(path)  # our manifest lists every file: replaced whole
    assert TopicMap.load(path).summary() == small_fit.summary()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_a_model_moved_aside_by_a_killed_save_comes_back_but_a_live_ones_does_not(tmp_path, small_fit):
    path = small_fit.save(tmp_path / "model")
    live = tmp_path / f".model.old-{os.getppid()}"  # a live process (pytest's parent) between its renames
    path.rename(live)
    with pytest.raises(FileNotFoundError):
        TopicMap.load(path)
    assert live.is_dir() and not path.exists()  # untouched: its writer may still rename it back
    dead = live.rename(tmp_path / ".model.old-999999999")  # the writer was killed there
    assert TopicMap.load(path).summary() == small_fit.summary()
    assert not dead.exists()


def test_the_model_folder_is_written_inside_the_output_staging_with_one_swap(tmp_path, small_fit, monkeypatch):
    renames = []
    real = Path.rename

    def recording(self, target):
        renames.append((Path(self).name, Path(target).name))
        return real(self, target)

    monkeypatch.setattr(Path, "rename", recording)
    write_outputs(small_fit, tmp_path / "out", report=False, static_map=False)
    # one swap: the staging folder (made as a marked probe, then named) becomes out; the model folder is not
    # staged and renamed a second time
    assert renames == [(f".out.probe-{os.getpid()}", f"out.tmp-{os.getpid()}"), (f"out.tmp-{os.getpid()}", "out")]
    assert TopicMap.load(tmp_path / "out" / "model").summary() == small_fit.summary()


def test_load_of_a_fit_folder_points_to_its_model_subfolder(tmp_path, small_fit):
    write_outputs(small_fit, tmp_path / "out", report=False, static_map=False)
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path / "out" / "model"))):
        TopicMap.load(tmp_path / "out")


def test_load_names_an_array_file_of_the_wrong_shape(tmp_path, small_fit):
    import hashlib

    path = small_fit.save(tmp_path / "model")
    labels = np.load(path / "labels.npy")
    np.save(path / "labels.npy", labels[:-3])  # truncated, with a consistent manifest
    manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["labels.npy"] = hashlib.sha256((path / "labels.npy").read_bytes()).hexdigest()
    (path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ValueError, match=r"labels\.npy has shape"):
        TopicMap.load(path)


def test_a_full_disk_names_the_path_and_keeps_the_earlier_output(tmp_path, small_fit, monkeypatch):
    import errno

    out = tmp_path / "out"
    write_outputs(small_fit, out, report=False, static_map=False)
    before = _snapshot(out)

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    from icml_topics import outputs

    monkeypatch.setattr(outputs, "_write_report", full)  # report.html: built now or copied from the output cache
    with pytest.raises(
        OSError, match=f"disk is full while writing {re.escape(str(out))}.*earlier output there is intact"
    ):
        write_outputs(small_fit, out, static_map=False)
    assert _snapshot(out) == before


def test_a_rerun_copies_the_map_and_report_drawn_before_and_redraws_for_other_settings(
    small_fit, tmp_path, monkeypatch
):
    from icml_topics import outputs
    from icml_topics.plotting import static_map

    monkeypatch.setattr(outputs, "_output_cache", lambda model: tmp_path / "cache")
    first = write_outputs(small_fit, tmp_path / "one", save_model=False)
    drawn = []
    monkeypatch.setattr(static_map, "plot_map_static", lambda *a, **k: drawn.append(a) or pytest.fail("redrawn"))
    monkeypatch.setattr(type(small_fit), "report", lambda *a, **k: pytest.fail("report rebuilt"))
    again = write_outputs(small_fit, tmp_path / "two", save_model=False)
    for name in ("map_png", "report"):
        assert again[name].read_bytes() == first[name].read_bytes()
    verify_folder(tmp_path / "two")
    monkeypatch.undo()
    monkeypatch.setattr(outputs, "_output_cache", lambda model: tmp_path / "cache")
    titled = write_outputs(small_fit, tmp_path / "three", save_model=False, report=False, title="Another title")
    assert titled["map_png"].read_bytes() != first["map_png"].read_bytes()  # another title: drawn anew
