"""Arguments are checked before any work, with a message naming the parameter, the value and the fix."""

from __future__ import annotations

import signal

import numpy as np
import pytest
from _reliability_helpers import interrupt_fit

from icml_topics import TopicMap


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        (np.ones((40, 768), np.float32), r"embeddings= has 768 columns.*makes 384-dimensional"),
        (np.zeros((40, 384), np.float32), r"embeddings= has 40 all-zero row"),
        (np.full((40, 384), np.nan, np.float32), r"embeddings= holds NaN"),
        (np.ones(384, np.float32), r"embeddings= must be a 2-D matrix"),
    ],
)
def test_bad_embeddings_fail_before_the_corpus_is_even_read(tmp_path, matrix, message):
    missing = tmp_path / "never-read.jsonl"  # reading it would fail: the embeddings are checked first
    with pytest.raises(ValueError, match=message):
        TopicMap(random_state=0).fit(str(missing), embeddings=matrix)


def test_transform_takes_one_string_as_one_abstract(fitted):
    placed = fitted.transform("We train graph neural networks for molecular property prediction.")
    assert len(placed) == 1 and placed["status"].tolist() == ["ok"]


@pytest.mark.parametrize("k", [0, -1, 1.5, True])
def test_theme_ranking_checks_k(fitted, k):
    with pytest.raises(ValueError, match=r"k=.* integer >= 1"):
        fitted.theme_ranking(k)


def test_theme_ranking_k_1_is_one_row_per_modelled_document(fitted):
    ranking = fitted.theme_ranking(1)
    assert len(ranking) == int((fitted.documents_["status"] == "ok").sum())


def test_sigterm_says_what_ctrl_c_says(tmp_path):
    returncode, err = interrupt_fit(tmp_path, signal.SIGTERM)
    assert returncode == 143, err
    assert "Traceback" not in err
    lines = [x for x in err.splitlines() if x.startswith("interrupted:")]
    assert len(lines) == 1 and "run the same command again" in lines[0], err
    assert not (tmp_path / "o").exists()
