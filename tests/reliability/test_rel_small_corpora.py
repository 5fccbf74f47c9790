"""Identical, near-identical and tiny corpora never crash (t-SNE used to segfault) and one distinct
text gives one topic. The fits run in this process, one after another in a module fixture: an exception is
recorded for its case (and fails that case's test), and a crash would fail the run (pytest-xdist reports a
crashed worker's test as failed), so a fresh interpreter, with BERTopic's import and a first fit's compiling
paid again, is not needed to see one."""

from __future__ import annotations

import json
import traceback

import pytest
from _reliability_helpers import SEEDS

SEED_ABSTRACTS = [json.loads(line)["abstract"] for line in SEEDS.read_text(encoding="utf-8").splitlines()]
CASES = {  # name -> the texts fitted (the 38 seed abstracts, in file order)
    "tiny identical": ["a b c"] * 5,
    "20 identical": [SEED_ABSTRACTS[0]] * 20,
    "3000 identical": [SEED_ABSTRACTS[0]] * 3000,
    # the same abstract with one different trailing word: near-identical embeddings
    "near identical": [SEED_ABSTRACTS[0] + " variant" + str(i) for i in range(12)] + [SEED_ABSTRACTS[0]] * 8,
    **{f"real {n}": (SEED_ABSTRACTS * 3)[:n] for n in (1, 2, 3, 4, 5, 9, 30, 99)},
}


@pytest.fixture(scope="module")
def fits() -> dict:
    """Every case fitted: case -> what the fit gave, or the traceback of the error it raised."""
    from icml_topics import TopicMap

    found = {}
    for name, texts in CASES.items():
        try:
            tm = TopicMap(random_state=0).fit(texts)
            d = tm.documents_
            found[name] = {
                "topics": int((tm.topics_["topic"] != -1).sum()),
                "outliers": int((d["topic"] == -1).sum()),
                "themes": int(d["theme"].nunique()),
                "finite": bool(d[["x", "y"]].astype(float).notna().all().all()),
                "n": len(d),
            }
        except Exception:
            found[name] = traceback.format_exc()
    return found


def fit_result(fits: dict, case: str) -> dict:
    out = fits[case]
    assert isinstance(out, dict), out
    return out


def test_tiny_identical_list_gives_one_topic(fits):
    out = fit_result(fits, "tiny identical")
    assert out == {"topics": 1, "outliers": 0, "themes": 1, "finite": True, "n": 5}


def test_twenty_identical_abstracts_give_one_topic(fits):
    out = fit_result(fits, "20 identical")
    assert out["topics"] == 1 and out["outliers"] == 0 and out["finite"]


def test_thousands_of_identical_abstracts_give_one_topic(fits):
    out = fit_result(fits, "3000 identical")
    assert out["topics"] == 1 and out["outliers"] == 0 and out["n"] == 3000


def test_near_identical_abstracts_do_not_crash(fits):
    out = fit_result(fits, "near identical")
    assert out["finite"] and out["n"] == 20 and out["topics"] >= 1


@pytest.mark.parametrize("n", [3, 4, 5, 9, 30, 99])
def test_tiny_real_corpora_do_not_crash(fits, n):
    out = fit_result(fits, f"real {n}")
    assert out["finite"] and out["n"] == n and out["topics"] >= 1


@pytest.mark.parametrize("n", [1, 2])
def test_one_or_two_abstracts_make_one_topic_per_theme(fits, n):
    out = fit_result(fits, f"real {n}")
    assert out == {"topics": out["themes"], "outliers": 0, "themes": out["themes"], "finite": True, "n": n}
    assert 1 <= out["themes"] <= n
