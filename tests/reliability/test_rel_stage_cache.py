"""Cached stage results are checked (checksum, finite values, expected shape and keys) before they are
trusted; a bad entry is recomputed with a warning and the run gives the same result as a clean one."""

from __future__ import annotations

import json
import logging

import numpy as np
import pandas as pd
import pytest

from icml_topics.store.cache import cached_json, cached_reduction


def compute_grid():
    return np.arange(20, dtype=np.float32).reshape(10, 2)


EMB = np.eye(10, dtype=np.float32)


def only_file(folder, pattern):
    files = [p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")]
    assert len(files) == 1, files
    return files[0]


def overwrite_payload(path, value):
    """Overwrite the numbers of a stored array in place, keeping its header intact."""
    data = bytearray(path.read_bytes())
    marker = np.arange(20, dtype=np.float32).tobytes()
    start = bytes(data).find(marker)
    assert start > 0
    data[start : start + len(marker)] = np.full(20, value, np.float32).tobytes()
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("value", [2e38, np.nan])
def test_a_reduction_overwritten_in_place_is_recomputed(tmp_path, caplog, value):
    cached_reduction(EMB, "settings", compute_grid, tmp_path)
    overwrite_payload(only_file(tmp_path, "*"), value)
    calls = []

    def compute():
        calls.append(1)
        return compute_grid()

    with caplog.at_level(logging.WARNING, logger="icml_topics"):
        out = cached_reduction(EMB, "settings", compute, tmp_path)
    assert calls == [1] and np.array_equal(out, compute_grid())
    assert "recomput" in caplog.text
    # and it was repaired: the next call reads it without computing
    assert np.array_equal(
        cached_reduction(EMB, "settings", lambda: pytest.fail("recomputed"), tmp_path), compute_grid()
    )


def test_a_non_finite_result_is_not_cached(tmp_path):
    bad = np.full((10, 2), np.nan, np.float32)
    cached_reduction(EMB, "s", lambda: bad, tmp_path)
    assert np.array_equal(cached_reduction(EMB, "s", compute_grid, tmp_path), compute_grid())


@pytest.mark.parametrize("content", ["{}", '{"labels": [0], "keywords": {}}', "[1, 2]", "not json"])
def test_a_replaced_representation_is_recomputed(tmp_path, caplog, content):
    value = {"labels": [0, 1], "keywords": {"0": ["a"], "1": ["b"]}}

    def check(v):
        return isinstance(v, dict) and isinstance(v.get("labels"), list) and len(v["labels"]) == 2

    cached_json("k", lambda: value, tmp_path, check=check)
    only_file(tmp_path, "*").write_text(content, encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="icml_topics"):
        assert cached_json("k", lambda: value, tmp_path, check=check) == value
    assert "recomput" in caplog.text


def test_a_fit_with_corrupted_caches_equals_a_clean_fit(tmp_path):
    from _reliability_helpers import SEEDS

    from icml_topics import TopicMap

    seeds = pd.read_json(SEEDS, lines=True)
    clean = TopicMap(random_state=0, cache=tmp_path).fit(seeds).documents_
    for path in (tmp_path / "reductions").iterdir():
        if path.suffix in {".npy", ".npz"}:
            data = bytearray(path.read_bytes())
            data[-40:] = b"\x7f" * 40  # huge or NaN numbers where the map was
            path.write_bytes(bytes(data))
    for path in (tmp_path / "representations").iterdir():
        path.write_text("{}", encoding="utf-8")
    again = TopicMap(random_state=0, cache=tmp_path).fit(seeds).documents_
    pd.testing.assert_frame_equal(again, clean)
    assert json.dumps(again[["x", "y"]].abs().max().tolist()) == json.dumps(clean[["x", "y"]].abs().max().tolist())


def test_a_damaged_output_bundle_is_redrawn(tmp_path, caplog):
    from icml_topics.store.cache import cached_files

    calls = []

    def draw():
        calls.append(1)
        return {"map.png": b"\x89PNG" + bytes(range(256)) * 4, "map.svg": b"<svg/>"}

    first = cached_files("map-k", draw, tmp_path)
    assert cached_files("map-k", lambda: pytest.fail("drawn again"), tmp_path) == first
    bundle = only_file(tmp_path, "*.zip")
    data = bytearray(bundle.read_bytes())
    start = bytes(data).find(bytes(range(256)))
    data[start : start + 8] = b"\0" * 8  # the PNG's bytes change, its stored checksum does not
    bundle.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING, logger="icml_topics"):
        again = cached_files("map-k", draw, tmp_path)
    assert again == first and len(calls) == 2 and "damaged" in caplog.text
    assert cached_files("map-k", lambda: pytest.fail("drawn again"), tmp_path) == first


def test_an_output_bundle_whose_checksum_table_is_not_a_table_is_redrawn(tmp_path, caplog):
    import zipfile

    from icml_topics.store.cache import cached_files

    first = cached_files("map-t", lambda: {"map.svg": b"<svg/>"}, tmp_path)
    bundle = only_file(tmp_path, "*.zip")
    with zipfile.ZipFile(bundle, "w") as damaged:  # valid JSON, but a list where the checksums belong
        damaged.writestr("sha256.json", json.dumps(["map.svg"]))
        damaged.writestr("files/map.svg", b"<svg/>")
    with caplog.at_level(logging.WARNING, logger="icml_topics"):
        again = cached_files("map-t", lambda: {"map.svg": b"<svg/>"}, tmp_path)
    assert again == first and "damaged" in caplog.text


def test_the_output_cache_keeps_only_the_newest_entries(tmp_path):
    from icml_topics.store.cache import cached_files

    for i in range(5):
        cached_files(f"report-{i}", lambda i=i: {"report.html": f"page {i}".encode()}, tmp_path, keep=3)
    assert sorted(p.name.split(".")[0] for p in tmp_path.glob("*.zip")) == ["report-2", "report-3", "report-4"]
