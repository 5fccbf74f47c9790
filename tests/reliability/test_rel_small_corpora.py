"""Identical, near-identical and tiny corpora never crash (t-SNE used to segfault) and one distinct
text gives one topic. Each fit runs in its own interpreter so that a crash fails the test instead of
killing pytest."""

from __future__ import annotations

import json

import pytest
from _reliability_helpers import SEEDS, run_python

ABSTRACT = json.loads(SEEDS.read_text(encoding="utf-8").splitlines()[0])["abstract"]


def fit_in_subprocess(texts_expr: str) -> dict:
    code = (
        "import json\n"
        "from icml_topics import TopicMap\n"
        f"texts = {texts_expr}\n"
        "tm = TopicMap(random_state=0).fit(texts)\n"
        "d = tm.documents_\n"
        "print(json.dumps({'topics': int((tm.topics_['topic'] != -1).sum()), 'outliers': int((d['topic'] == -1).sum()),"
        " 'finite': bool(d[['x', 'y']].astype(float).notna().all().all()), 'n': len(d)}))\n"
    )
    result = run_python(code)
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stderr[-3000:]}"
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_tiny_identical_list_gives_one_topic(tmp_path):
    out = fit_in_subprocess("['a b c'] * 5")
    assert out == {"topics": 1, "outliers": 0, "finite": True, "n": 5}


def test_twenty_identical_abstracts_give_one_topic(tmp_path):
    out = fit_in_subprocess(f"[{ABSTRACT!r}] * 20")
    assert out["topics"] == 1 and out["outliers"] == 0 and out["finite"]


def test_thousands_of_identical_abstracts_give_one_topic(tmp_path):
    out = fit_in_subprocess(f"[{ABSTRACT!r}] * 3000")
    assert out["topics"] == 1 and out["outliers"] == 0 and out["n"] == 3000


def test_near_identical_abstracts_do_not_crash(tmp_path):
    # the same abstract with one different trailing word: near-identical embeddings
    out = fit_in_subprocess(f"[{ABSTRACT!r} + ' variant' + str(i) for i in range(12)] + [{ABSTRACT!r}] * 8")
    assert out["finite"] and out["n"] == 20 and out["topics"] >= 1


@pytest.mark.parametrize("n", [3, 4, 5, 9, 30, 99])
def test_tiny_real_corpora_do_not_crash(tmp_path, n):
    lines = SEEDS.read_text(encoding="utf-8").splitlines()
    texts = [json.loads(line)["abstract"] for line in lines]
    texts = (texts * 3)[:n] if n > len(texts) else texts[:n]
    out = fit_in_subprocess(repr(texts))
    assert out["finite"] and out["n"] == n and out["topics"] >= 1


@pytest.mark.parametrize("n", [1, 2])
def test_one_or_two_abstracts_make_a_one_topic_map(n):
    lines = SEEDS.read_text(encoding="utf-8").splitlines()[:n]
    out = fit_in_subprocess(repr([json.loads(line)["abstract"] for line in lines]))
    assert out == {"topics": 1, "outliers": 0, "finite": True, "n": n}
