"""Themes on the 38 bundled abstracts: every paper placed by its own evidence, transform == fit."""

from __future__ import annotations

import numpy as np
import pytest

from icml_topics import TopicMap
from icml_topics.cli.demo import sample_path
from icml_topics.evaluate import load_theme_labels


@pytest.fixture(scope="module")
def demo(demo_fitted) -> TopicMap:
    return demo_fitted  # TopicMap(random_state=42) on the bundled abstracts, fitted once per session


def test_no_paper_is_placed_by_its_cluster(demo):
    docs = demo.documents_
    assert (docs["theme"] != "").all()
    assert docs["theme_reason"].str.startswith("own evidence").all()
    assert not docs["theme_reason"].str.contains("topic").any()
    assert (docs["theme_2"] != docs["theme"]).all()
    assert (
        (docs["theme_score"] > 0) & (docs["theme_score"] <= 1) & (docs["theme_2_score"] <= docs["theme_score"])
    ).all()


def test_topics_report_their_purity(demo):
    topics = demo.topics_[demo.topics_["topic"] != -1]
    docs = demo.documents_
    for row in topics.itertuples():
        members = docs[docs["topic"] == row.topic]
        assert row.theme_purity == pytest.approx((members["theme"] == row.theme).mean(), abs=1e-4)


def test_transform_of_a_fitted_paper_gives_its_fitted_theme(demo):
    again = demo.transform(sample_path())
    assert again["theme"].tolist() == demo.documents_["theme"].tolist()
    assert again["theme_2"].tolist() == demo.documents_["theme_2"].tolist()
    np.testing.assert_allclose(again["theme_score"], demo.documents_["theme_score"], atol=1e-3)


def test_most_demo_papers_match_their_hand_label(demo):
    docs = demo.documents_.merge(load_theme_labels(), on="id", suffixes=("", "_label"))
    assert len(docs) == 38
    # the paper's theme is one of its two labels, or its labelled primary theme is the runner-up
    either = (docs["theme"] == docs["theme_label"]) | (docs["theme"] == docs["second_theme"].fillna(""))
    either |= docs["theme_2"] == docs["theme_label"]
    assert either.mean() >= 0.8, docs.loc[~either, ["id", "theme", "theme_2", "theme_label", "second_theme"]]
