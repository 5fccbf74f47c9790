"""Inputs and parameters are checked before any embedding, with a message that says what is allowed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from icml_topics import TopicMap, read_corpus
from icml_topics.corpus.readers import CorpusError

TEXT = "Graph neural networks pass messages between nodes to learn representations."


def test_semicolon_separated_csv_is_read(tmp_path):
    path = tmp_path / "papers.csv"
    path.write_text(
        "id;title;abstract\na;T1;first abstract, with a comma\nb;T2;second abstract here\n", encoding="utf-8"
    )
    corpus = read_corpus(path)
    assert list(corpus["id"]) == ["a", "b"] and corpus["abstract"].iloc[0] == "first abstract, with a comma"


def test_an_explicit_separator_can_be_given(tmp_path):
    path = tmp_path / "papers.txt.csv"
    path.write_text("id|abstract\na|one abstract text\nb|two abstract text\n", encoding="utf-8")
    assert list(read_corpus(path, sep="|")["abstract"]) == ["one abstract text", "two abstract text"]


def test_blank_and_missing_years_are_missing_not_errors(tmp_path):
    frame = pd.DataFrame({"abstract": [TEXT] * 4, "year": ["2019", "", None, float("nan")]})
    assert read_corpus(frame)["year"].tolist()[0] == 2019
    assert read_corpus(frame)["year"].isna().sum() == 3
    path = tmp_path / "p.jsonl"
    path.write_text('{"abstract": "a b c d", "year": ""}\n{"abstract": "a b c d", "year": 2020}\n', encoding="utf-8")
    assert read_corpus(path)["year"].tolist()[1] == 2020


@pytest.mark.parametrize("bad", [-5, 1e12, True, 2019.5])
def test_impossible_years_are_rejected(bad):
    frame = pd.DataFrame({"abstract": [TEXT] * 2, "year": [2019, bad]}, dtype=object)
    with pytest.raises(CorpusError, match="year"):
        read_corpus(frame)


def test_colliding_ids_are_made_unique():
    frame = pd.DataFrame({"id": ["a", "a", "a#1"], "abstract": [TEXT] * 3})
    ids = read_corpus(frame)["id"].tolist()
    assert len(set(ids)) == 3 and ids[0] == "a" and ids[2] == "a#1"


def test_a_list_of_non_strings_is_a_clear_error():
    with pytest.raises(CorpusError, match="strings"):
        read_corpus([1, 2, 3])


def test_none_in_a_list_is_an_empty_abstract():
    corpus = read_corpus([TEXT, None])
    assert corpus["abstract"].tolist() == [TEXT, ""]


def test_a_dict_of_columns_is_read_like_a_dataframe():
    corpus = read_corpus({"abstract": [TEXT, TEXT + " again"], "year": [2020, 2021]})
    assert len(corpus) == 2 and corpus["year"].tolist() == [2020, 2021]


def test_a_dict_that_is_not_columns_is_a_clear_error():
    with pytest.raises(CorpusError, match="DataFrame"):
        read_corpus({"abstract": TEXT})


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"random_state": "x"}, "random_state"),
        ({"min_topic_size": -3}, "min_topic_size"),
        ({"min_topic_size": 1.5}, "min_topic_size"),
        ({"topic_sizes": (24, 90)}, "topic_sizes"),
        ({"n_neighbors": 1}, "n_neighbors"),
        ({"topic_sizes": (90, 1)}, "topic_sizes"),
        ({"n_keywords": 0}, "n_keywords"),
        ({"reducer": "tsne"}, "reducer"),
        ({"precision": "fp8"}, "precision"),
        ({"cache": 3}, "cache"),
    ],
)
def test_bad_parameters_fail_before_any_work(params, message, monkeypatch):
    def no_embedding(*args, **kwargs):
        raise AssertionError("embedded before checking the parameters")

    tm = TopicMap(**params)
    monkeypatch.setattr("icml_topics.fitting.Embedder.__call__", no_embedding)
    with pytest.raises(ValueError, match=message):
        tm.fit([TEXT] * 5)


def test_nan_embeddings_are_rejected():
    emb = np.ones((5, 384), np.float32)
    emb[2, 3] = np.nan
    with pytest.raises(ValueError, match="embeddings= holds NaN"):  # not a message from deep inside scikit-learn
        TopicMap().fit([f"{TEXT} {i}" for i in range(5)], embeddings=emb)
