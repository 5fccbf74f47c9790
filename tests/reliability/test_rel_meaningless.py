"""Text that carries no meaning is not modelled as if it did: invisible characters are no words, words
are counted in any script, bytes are decoded, list cells keep their row, and junk gets no confident theme."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from icml_topics.corpus import read_corpus
from icml_topics.corpus.validation import flag_rows

ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff " * 40
EMOJI = "🙂 🚀 🔥 🎉 😂 👍 " * 20
CHINESE = (
    "我们提出了一种新的图神经网络方法，用于分子性质预测。该方法通过消息传递聚合邻居信息，"
    "并在多个基准数据集上取得了最好的结果。"
)
SALAD = [
    "yesterday carpet whistle orange beneath quietly seven mountain lamp forgotten river spoon "
    "velvet thunder pocket marble candle eleven harbor whisper ladder ",
    "banana although sideways pillow meadow scarlet umbrella tomorrow drum glacier fence puzzle "
    "lantern biscuit volcano shadow feather trumpet ",
    "qzxv blorf snerk wapple drindle fosk quimble trazz plovit skeen mordle gaffle yint brop ",
    "kettle wander bronze seldom parade turnip cobweb saddle frozen ribbon chimney nectar apron ",
]


def test_invisible_characters_and_emoji_are_no_words_but_ideograms_are():
    corpus = read_corpus([ZERO_WIDTH, EMOJI, CHINESE, "zero\u200bwidth split\u200c words\u200d here", "two words"])
    flagged = flag_rows(corpus)
    assert flagged["status"].tolist() == ["dropped", "dropped", "ok", "ok", "dropped"]
    assert flagged["drop_reason"].tolist()[:2] == [
        "empty abstract",
        "no words in the abstract (only symbols, emoji, digits or punctuation)",
    ]
    assert flagged["drop_reason"].iloc[4] == "abstract shorter than 3 words"
    assert "\u200b" not in flagged["text"].iloc[3] and flagged["text"].iloc[3] == "zerowidth split words here"


def test_bytes_are_decoded_and_list_cells_keep_their_row():
    frame = pd.DataFrame(
        {
            "id": ["a", "b", "c", "d"],
            "title": [b"Bytes title", ["Two", "parts"], "Plain", "Bad bytes"],
            "abstract": [
                "In this work we decode bytes.".encode(),
                ["First paragraph here.", "Second one."],
                "A plain abstract with words.",
                b"\xff\xfe not utf-8",
            ],
        }
    )
    table = read_corpus(frame)
    assert table["id"].tolist() == ["a", "b", "c"]  # d: its bytes are not UTF-8, listed as skipped
    assert table["abstract"].tolist()[:2] == ["In this work we decode bytes.", "First paragraph here. Second one."]
    assert table["title"].tolist()[:2] == ["Bytes title", "Two parts"]


@pytest.fixture(scope="module")
def junk_fit(real_sample):
    from icml_topics import TopicMap

    junk = pd.DataFrame(
        {
            "id": [f"junk-{i}" for i in range(len(SALAD) + 3)],
            "title": [None] * (len(SALAD) + 3),
            "abstract": [ZERO_WIDTH, EMOJI, CHINESE, *SALAD],
            "year": [2024] * (len(SALAD) + 3),
        }
    )
    return TopicMap(random_state=0).fit(pd.concat([real_sample, junk], ignore_index=True))


def test_junk_abstracts_get_no_theme_and_count_as_without_one(junk_fit):
    docs = junk_fit.documents_
    junk = docs[docs["id"].str.startswith("junk-")]
    assert junk["status"].tolist()[:2] == ["dropped", "dropped"]  # zero-width only, emoji only
    modelled = junk.iloc[2:]  # the Chinese abstract (modelled: its ideograms are words) and the word salad
    assert (modelled["status"] == "ok").all()
    assert (modelled["theme"] == "").all(), modelled[["theme", "theme_score", "theme_reason"]]
    assert modelled["theme_reason"].str.contains("weak|no theme").all()
    assert modelled["theme_score"].isna().all()
    ok = docs[docs["status"] == "ok"]
    assert junk_fit.summary()["no-theme share"] == pytest.approx(float((ok["theme"] == "").mean()), abs=1e-4)
    assert junk_fit.summary()["no-theme share"] >= len(modelled) / len(ok) - 1e-4  # the share is rounded


def test_real_abstracts_keep_their_themes_next_to_junk(junk_fit):
    docs = junk_fit.documents_
    real = docs[(docs["status"] == "ok") & ~docs["id"].str.startswith("junk-")]
    assert (real["theme"] == "").mean() <= 0.01
    assert np.isfinite(real["theme_score"]).mean() >= 0.99


def test_three_word_nonsense_abstracts_get_no_confident_theme():
    """``fit(["a b c", "d e f", "g h i"])``: the fit runs (one topic), but no paper is given a theme."""
    from icml_topics import TopicMap

    tm = TopicMap(random_state=0).fit(["a b c", "d e f", "g h i"])
    docs = tm.documents_
    assert (docs["status"] == "ok").all() and docs["topic"].nunique() == 1
    assert (docs["theme"] == "").all(), docs[["theme", "theme_score", "theme_reason"]]
    assert docs["theme_reason"].str.contains("weak evidence").all()
    assert tm.summary()["no-theme share"] == 1.0
