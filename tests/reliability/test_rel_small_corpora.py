"""Identical, near-identical and tiny corpora never crash (t-SNE used to segfault) and one distinct
text gives one topic. The fits run in a fresh interpreter (one for all cases) so that a crash fails the
tests instead of killing pytest."""

from __future__ import annotations

import json
import subprocess

import pytest
from _reliability_helpers import SEEDS, run_python

# the child reads the seed abstracts itself (the code is one command-line argument: it must stay short)
READ_SEEDS = f"seeds = [json.loads(line)['abstract'] for line in open({str(SEEDS)!r}, encoding='utf-8')]\n"
CASES = {  # name -> Python expression of the texts fitted (``seeds``: the 38 seed abstracts, in file order)
    "tiny identical": "['a b c'] * 5",
    "20 identical": "[seeds[0]] * 20",
    "3000 identical": "[seeds[0]] * 3000",
    # the same abstract with one different trailing word: near-identical embeddings
    "near identical": "[seeds[0] + ' variant' + str(i) for i in range(12)] + [seeds[0]] * 8",
    **{f"real {n}": f"(seeds * 3)[:{n}]" for n in (1, 2, 3, 4, 5, 9, 30, 99)},
}


@pytest.fixture(scope="module")
def fits() -> dict:
    """Every case fitted in one fresh interpreter (one start-up for all; a crash there fails these tests,
    not pytest): case -> what the fit gave, or the error it raised."""
    code = "import json, traceback\nfrom icml_topics import TopicMap\n" + READ_SEEDS + "out = {}\n"
    for name, texts_expr in CASES.items():
        code += (
            f"try:\n    tm = TopicMap(random_state=0).fit({texts_expr})\n    d = tm.documents_\n"
            f"    out[{name!r}] = {{'topics': int((tm.topics_['topic'] != -1).sum()), "
            "'outliers': int((d['topic'] == -1).sum()), 'themes': int(d['theme'].nunique()), "
            "'finite': bool(d[['x', 'y']].astype(float).notna().all().all()), 'n': len(d)}\n"
            f"except Exception:\n    out[{name!r}] = traceback.format_exc()\n"
            "print(json.dumps(out), flush=True)\n"  # after every case: what finished before a crash stays
        )
    try:
        result = run_python(code, timeout=900)
        stdout, why = result.stdout, f"exit {result.returncode}\n{result.stderr[-3000:]}"
    except subprocess.TimeoutExpired as exc:  # the cases that finished still count
        stdout, why = exc.stdout or "", f"did not finish in {exc.timeout} s"
    stdout = stdout.decode() if isinstance(stdout, bytes) else stdout
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    found = json.loads(lines[-1]) if lines else {}
    return {name: found.get(name, why) for name in CASES}


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
