"""Tests for icml_topics.evaluate: NPMI, diversity, shares, label agreement, dev labels, evaluate_model.

Expected values are worked out by hand in the comments (natural logarithms throughout).
"""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from icml_topics.evaluate import (
    evaluate_model,
    label_agreement,
    load_dev_labels,
    npmi_coherence,
    outlier_share,
    topic_diversity,
    unassigned_share,
)
from icml_topics.themes import Taxonomy

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
ICML = DATA / "icml-2013-2024.jsonl.gz"

FRUIT = ["apple banana", "apple banana cherry", "cherry date", "apple"]


# --- NPMI ----------------------------------------------------------------------------------------
def test_npmi_hand_computed() -> None:
    # N = 4 documents. P(apple) = 3/4, P(banana) = 2/4, P(cherry) = 2/4.
    # apple, banana: P = 2/4 -> log(0.5 / (0.75 * 0.5)) / -log(0.5) = log(4/3) / log(2) = 0.4150
    # apple, cherry: P = 1/4 -> log(0.25 / (0.75 * 0.5)) / -log(0.25) = log(2/3) / log(4) = -0.2925
    # banana, cherry: P = 1/4 -> log(0.25 / (0.5 * 0.5)) = log(1) = 0
    expected = (math.log(4 / 3) / math.log(2) + math.log(2 / 3) / math.log(4) + 0.0) / 3  # 0.04085
    mean, per_topic = npmi_coherence([["apple", "banana", "cherry"]], FRUIT)
    assert per_topic == [pytest.approx(expected)]
    assert mean == pytest.approx(0.040852, abs=1e-6)


def test_npmi_never_cooccurring_is_minus_one() -> None:
    # banana and date never share a document; "kiwi" occurs nowhere at all
    assert npmi_coherence([["banana", "date"]], FRUIT)[1] == [-1.0]
    assert npmi_coherence([["apple", "kiwi"]], FRUIT)[1] == [-1.0]


def test_npmi_perfect_cooccurrence_is_one() -> None:
    # a and b occur in exactly the same 2 of 3 documents: log(1 / (2/3)) / -log(2/3) = 1
    assert npmi_coherence([["a", "b"]], ["a b", "b a x", "x"])[1] == [pytest.approx(1.0)]
    # both in every document: P(a, b) = 1, defined as 1
    assert npmi_coherence([["a", "b"]], ["a b", "b a"])[1] == [1.0]


def test_npmi_phrases_match_on_token_boundaries() -> None:
    docs = ["Graph neural network for molecules", "neural graph", "graph neural networks"]
    # "graph neural": docs 1 and 3 -> 2/3 ("neural graph" is the wrong order)
    # "neural network": doc 1 only -> 1/3 ("networks" is not "network")
    # "graph": all 3 -> 1
    # (graph neural, neural network): joint 1/3 -> log((1/3) / (2/9)) / log(3) = log(1.5) / log(3)
    # (graph neural, graph): joint 2/3 -> log((2/3) / (2/3)) = 0 ; (neural network, graph) -> 0
    expected = (math.log(1.5) / math.log(3)) / 3
    assert npmi_coherence([["graph neural", "neural network", "graph"]], docs)[0] == pytest.approx(expected)


def test_npmi_sliding_windows() -> None:
    # window = 2 over "a b c d e": windows ab, bc, cd, de (N = 4)
    # P(a) = 1/4, P(b) = 2/4, P(e) = 1/4; (a, b) joint 1/4 -> log(0.25 / 0.125) / log(4) = 0.5
    # (a, e) and (b, e) never share a window -> -1 each; mean = (0.5 - 1 - 1) / 3 = -0.5
    assert npmi_coherence([["a", "b", "e"]], ["a b c d e"], window=2)[0] == pytest.approx(-0.5)
    # whole-document co-occurrence: all three are in the only document -> 1 each
    assert npmi_coherence([["a", "b", "e"]], ["a b c d e"])[0] == 1.0


def test_npmi_window_larger_than_every_document_equals_document_mode() -> None:
    topics = [["apple", "banana", "cherry"], ["cherry", "date", "apple banana"]]
    by_doc = npmi_coherence(topics, FRUIT)[1]
    by_window = npmi_coherence(topics, FRUIT, window=50)[1]
    assert by_window == pytest.approx(by_doc)


def test_npmi_top_n_case_and_duplicates() -> None:
    docs = ["a b", "a b", "c zzz"]
    # top_n=2 keeps a, b (perfectly co-occurring) -> 1
    assert npmi_coherence([["a", "b", "zzz"]], docs, top_n=2)[0] == pytest.approx(1.0)
    # top_n=3 adds zzz, never with a or b: (1 - 1 - 1) / 3
    assert npmi_coherence([["a", "b", "zzz"]], docs, top_n=3)[0] == pytest.approx(-1 / 3)
    # "A" and "a" are one keyword, so the topic is still {a, b}
    assert npmi_coherence([["A", "a", "B"]], docs)[0] == pytest.approx(1.0)


def test_npmi_single_keyword_topic_is_nan_and_left_out() -> None:
    mean, per_topic = npmi_coherence([["apple"], ["banana", "date"]], FRUIT)
    assert math.isnan(per_topic[0])
    assert mean == per_topic[1] == -1.0
    mean, _ = npmi_coherence([["apple"]], FRUIT)
    assert math.isnan(mean)


def test_npmi_accepts_tokenised_documents() -> None:
    tokenised = [doc.split() for doc in FRUIT]
    topics = [["apple", "banana", "cherry"]]
    assert npmi_coherence(topics, tokenised) == npmi_coherence(topics, FRUIT)


def test_npmi_errors() -> None:
    with pytest.raises(ValueError, match="top_n must be a positive integer"):
        npmi_coherence([["a", "b"]], FRUIT, top_n=0)
    with pytest.raises(ValueError, match="window must be None"):
        npmi_coherence([["a", "b"]], FRUIT, window=0)
    with pytest.raises(ValueError, match="documents is empty"):
        npmi_coherence([["a", "b"]], [])
    with pytest.raises(TypeError, match="topic #0 is the string 'apple'"):
        npmi_coherence(["apple", "banana"], FRUIT)  # type: ignore[list-item]


# --- diversity -----------------------------------------------------------------------------------
def test_topic_diversity_hand_examples() -> None:
    assert topic_diversity([["a", "b"], ["b", "c"]]) == 0.75  # {a, b, c} / 4
    assert topic_diversity([["a", "b"], ["c", "d"]]) == 1.0
    assert topic_diversity([["a", "b"], ["a", "b"]]) == 0.5  # 2 distinct / 4
    # top_n=2: {a, b} and {a, x} -> 3 / 4 (c and y are not counted)
    assert topic_diversity([["a", "b", "c"], ["a", "x", "y"]], top_n=2) == 0.75


def test_topic_diversity_splits_phrases_into_words() -> None:
    # {graph, neural, network} and {graph, neural}: 3 distinct of 5
    assert topic_diversity([["graph neural network"], ["graph neural"]]) == pytest.approx(0.6)
    assert math.isnan(topic_diversity([[], []]))


# --- shares --------------------------------------------------------------------------------------
def test_outlier_share() -> None:
    assert outlier_share([0, -1, 1, -1]) == 0.5
    assert outlier_share(pd.Series([3, -1, pd.NA, 2], dtype="Int64")) == pytest.approx(1 / 3)
    assert outlier_share(["x", "noise", "noise", "y"], outlier="noise") == 0.5
    assert math.isnan(outlier_share([]))


def test_unassigned_share() -> None:
    assert unassigned_share(["Graph learning", "", None, float("nan")]) == 0.75
    assert unassigned_share(["A", "  ", "B", "C"]) == 0.25
    assert math.isnan(unassigned_share([]))


# --- label agreement -----------------------------------------------------------------------------
def test_identical_partitions() -> None:
    result = label_agreement(["a", "a", "b", "c"], ["a", "a", "b", "c"])
    assert result == {"ari": 1.0, "nmi": pytest.approx(1.0), "accuracy": 1.0, "n": 4}


def test_permuted_labels_agree_fully_but_do_not_match_by_name() -> None:
    result = label_agreement(["a", "a", "b", "b"], ["b", "b", "a", "a"])
    assert result["ari"] == 1.0 and result["nmi"] == pytest.approx(1.0)
    assert result["accuracy"] == 0.0
    ints = label_agreement([7, 7, 3, 3], ["x", "x", "y", "y"])
    assert ints["ari"] == 1.0 and math.isnan(ints["accuracy"])  # no shared names: accuracy undefined


def test_known_partition_values() -> None:
    # reference {0,0,1,1} vs predicted {0,0,0,1}. Contingency [[2,0],[1,1]].
    # ARI: sum C(n_ij,2) = 1; rows C(2,2)+C(2,2) = 2; cols C(3,2) = 3; expected = 2*3/C(4,2) = 1;
    #      max = (2+3)/2 = 2.5 -> ARI = (1 - 1) / (2.5 - 1) = 0
    # NMI: MI = 0.5 log(4/3) + 0.25 log(2/3) + 0.25 log(2); H(ref) = log 2;
    #      H(pred) = -(0.75 log 0.75 + 0.25 log 0.25); NMI = MI / ((H(ref) + H(pred)) / 2)
    mi = 0.5 * math.log(4 / 3) + 0.25 * math.log(2 / 3) + 0.25 * math.log(2)
    h_pred = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    result = label_agreement([0, 0, 0, 1], [0, 0, 1, 1])
    assert result["ari"] == pytest.approx(0.0, abs=1e-12)
    assert result["nmi"] == pytest.approx(mi / ((math.log(2) + h_pred) / 2))  # 0.3437


def test_missing_references_are_ignored_missing_predictions_are_not() -> None:
    result = label_agreement(["a", "a", "b", "zzz"], ["x", "x", "y", None])
    assert result["n"] == 3 and result["ari"] == 1.0
    assert label_agreement(["a", "b"], ["x", float("nan")])["n"] == 1
    # a missing prediction is its own class: {a, none | b, b} vs {x, x | y, y}
    # contingency [[1,1,0],[0,0,2]]: sum C = 1; rows 2; cols 1; expected 2*1/6 = 1/3; max 1.5
    # ARI = (1 - 1/3) / (1.5 - 1/3) = 4/7
    result = label_agreement(["a", None, "b", "b"], ["x", "x", "y", "y"])
    assert result["n"] == 4 and result["ari"] == pytest.approx(4 / 7)


def test_label_agreement_errors() -> None:
    with pytest.raises(ValueError, match="predicted has 2 labels but reference has 3"):
        label_agreement(["a", "b"], ["a", "b", "c"])
    with pytest.raises(ValueError, match="no row has a reference label"):
        label_agreement(["a", "b"], [None, ""])


# --- the packaged development labels -------------------------------------------------------------
def test_dev_labels_shape_and_theme_names() -> None:
    labels = load_dev_labels()
    assert list(labels.columns) == ["id", "theme", "second_theme", "split", "batch"]
    assert len(labels) >= 500
    assert labels["id"].is_unique
    assert (
        labels["id"]
        .str.fullmatch(r"(icml(2013|2014|2015|2016|2017|2018|2019|2024|2026)|neurips(19[89]\d|20[01]\d))-\d{4}")
        .all()
    )
    names = set(Taxonomy.default().names)
    assert set(labels["theme"]) <= names
    seconds = labels["second_theme"].dropna()
    assert set(seconds) <= names
    assert (labels.loc[seconds.index, "theme"] != seconds).all()
    assert labels["theme"].nunique() >= 28  # a spread of areas, not one dominant label


def test_dev_labels_include_the_documented_icml_2024_sample() -> None:
    if not ICML.exists():
        pytest.skip(f"shared ICML corpus not found at {ICML}")
    corpus = pd.read_json(ICML, lines=True)
    labels = load_dev_labels()
    icml = labels[labels["id"].str.startswith("icml20") & ~labels["id"].str.startswith("icml2026")]
    assert corpus.set_index("id").reindex(icml["id"])["year"].notna().all(), (
        "every labelled ICML id must exist in the corpus"
    )
    # the README says: df[df.year == 2024].sample(n=150, random_state=0)
    sample = corpus[corpus["year"] == 2024].sample(n=150, random_state=0)
    assert set(sample["id"]) <= set(labels["id"])


# --- evaluate_model against the documented tables ------------------------------------------------
def _fake_model() -> SimpleNamespace:
    documents = pd.DataFrame(
        {
            "id": ["d1", "d2", "d3", "d4", "d5"],
            "title": [pd.NA] * 5,
            "abstract": FRUIT + [""],
            "status": ["ok", "ok", "ok", "ok", "dropped"],
            "topic": pd.array([0, 0, 1, -1, pd.NA], dtype="Int64"),
            "theme": ["A", "A", "B", "", ""],
        }
    )
    topics = pd.DataFrame(
        {
            "topic": [-1, 0, 1],
            "label": ["Outliers", "apple banana", "cherry date"],
            "keywords": [["apple"], ["apple", "banana"], ["cherry", "date"]],
        }
    )
    return SimpleNamespace(documents_=documents, topics_=topics)


def test_evaluate_model_without_reference() -> None:
    scores = evaluate_model(_fake_model())
    # topic 0: apple 3/4, banana 2/4, joint 2/4 -> log(4/3)/log(2)
    # topic 1: cherry 2/4, date 1/4, joint 1/4 -> log(0.25/0.125)/log(4) = 0.5
    expected = (math.log(4 / 3) / math.log(2) + 0.5) / 2
    assert scores["coherence_npmi"] == pytest.approx(expected)
    assert scores["topic_diversity"] == 1.0
    assert scores["n_documents"] == 4 and scores["n_topics"] == 2 and scores["n_themes"] == 2
    assert scores["outlier_share"] == 0.25
    assert scores["unassigned_share"] == 0.25
    assert "theme_ari" not in scores


def test_evaluate_model_with_reference_forms() -> None:
    model = _fake_model()
    reference = pd.DataFrame(
        {
            "id": ["d1", "d2", "d3", "d4", "elsewhere"],
            "theme": ["A", "A", "B", "B", "A"],
        }
    )
    scores = evaluate_model(model, reference=reference)
    # rows d1..d4: predicted A, A, B, (none) vs A, A, B, B -> accuracy 3/4; ARI 4/7 (see above)
    assert scores["n_labelled"] == 4
    assert scores["theme_accuracy"] == 0.75
    assert scores["theme_ari"] == pytest.approx(4 / 7)
    by_mapping = evaluate_model(model, reference={"d1": "A", "d2": "A", "d3": "B", "d4": "B"})
    by_position = evaluate_model(model, reference=["A", "A", "B", "B", None])
    assert by_mapping == by_position == scores


def test_evaluate_model_errors() -> None:
    with pytest.raises(ValueError, match="call fit\\(\\) first"):
        evaluate_model(object())
    with pytest.raises(ValueError, match="none of the 1 reference ids match"):
        evaluate_model(_fake_model(), reference={"other-1": "A"})
    with pytest.raises(ValueError, match="reference has 2 labels but documents_ has 5 rows"):
        evaluate_model(_fake_model(), reference=["A", "B"])


def test_evaluate_model_reads_keywords_joined_as_in_csv() -> None:
    model = _fake_model()
    model.topics_["keywords"] = ["apple", "apple; banana", "cherry; date"]
    expected = (math.log(4 / 3) / math.log(2) + 0.5) / 2
    assert evaluate_model(model)["coherence_npmi"] == pytest.approx(expected)
    assert np.isfinite(evaluate_model(model)["topic_diversity"])


def test_evaluate_model_warns_when_reference_papers_trained_the_shipped_head() -> None:
    """Two papers of the 'tune' split (training labels of the shipped head) and two held-out ones."""
    import csv
    import warnings
    from importlib import resources

    with resources.as_file(resources.files("icml_topics").joinpath("data", "theme_labels.csv")) as path:
        rows = list(csv.DictReader(path.open(encoding="utf-8")))
    tune = [r["id"] for r in rows if r["split"] == "tune"][:2]
    heldout = [r["id"] for r in rows if r["split"] == "heldout"][:2]
    model = _fake_model()
    model.documents_["id"] = [*tune, *heldout, "d5"]
    model.theme_rule_ = SimpleNamespace(head=object())  # a rule weighed by the supervised head
    reference = {i: "A" for i in tune + heldout}
    with pytest.warns(UserWarning, match=r"2 of the 4 labelled papers are training labels of the shipped theme head"):
        scores = evaluate_model(model, reference=reference)
    assert scores["n_training_labels"] == 2 and scores["n_labelled"] == 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert evaluate_model(model, reference={i: "A" for i in heldout})["n_training_labels"] == 0
        model.theme_rule_ = SimpleNamespace(head=None)  # settings' weights: nothing was trained on the labels
        assert evaluate_model(model, reference=reference)["n_training_labels"] == 0
