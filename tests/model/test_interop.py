"""TopicMap.to_bertopic(): BERTopic's own API on our fitted topics, after a fit, a warm fit and load.

Real embedding model, real BERTopic, on the 38 bundled ICML 2026 seed abstracts (split into two
pseudo-years so that topics_over_time has two time stamps).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from icml_topics import TopicMap
from icml_topics.cli.demo import sample_path
from icml_topics.interop import ASPECT, bertopic_documents

PARAMS = {"random_state": 0, "min_topic_size": 3}


@pytest.fixture(scope="module")
def corpus() -> pd.DataFrame:
    df = pd.read_json(sample_path(), lines=True)
    df["year"] = [2025, 2026] * (len(df) // 2) + [2025] * (len(df) % 2)
    return df


@pytest.fixture(scope="module")
def tm(corpus):
    return TopicMap(**PARAMS).fit(corpus)


@pytest.fixture(scope="module")
def bt(tm):
    return tm.to_bertopic()


def _ours(model) -> list[int]:
    docs = model.documents_
    return docs.loc[docs["status"] == "ok", "topic"].astype(int).tolist()


def test_every_document_keeps_its_topic(tm, bt):
    assert len(set(_ours(tm)) - {-1}) >= 2, "the seed fit should find at least two topics"
    assert [int(t) for t in bt.topics_] == _ours(tm)  # a fresh fit numbers topics like BERTopic
    assert bt.icml_topics_ids_ == {t: t for t in set(_ours(tm))}


def test_topic_info_carries_our_names_sizes_and_keyphrases(tm, bt):
    info = bt.get_topic_info().set_index("Topic")
    sizes = tm.topics_.set_index("topic")["size"]
    for topic in sizes.index:
        assert info.loc[topic, "Count"] == sizes[topic]
        if topic != -1:
            assert info.loc[topic, "CustomName"] == tm.topic_names_[topic]
            # BERTopic's own Name column shows our cleaned name, not the raw keyphrases
            assert info.loc[topic, "Name"] == f"{topic}_{tm.topic_names_[topic]}"
            assert list(info.loc[topic, ASPECT])[: len(tm.keywords_[topic])] == tm.keywords_[topic]


def test_bertopic_api_runs_on_the_fitted_documents(tm, bt, corpus):
    docs, years = bertopic_documents(tm, "year")
    assert len(docs) == len(bt.topics_) and not any(d.startswith("<NA>") for d in docs)
    over_time = bt.topics_over_time(docs, years)
    counts = pd.crosstab(pd.Series(_ours(tm), name="Topic"), pd.Series(years, name="Timestamp")).stack()
    got = over_time.set_index(["Topic", "Timestamp"])["Frequency"]
    assert got.sort_index().to_dict() == counts[counts > 0].sort_index().to_dict()
    n_topics = len(set(_ours(tm)) - {-1})
    hierarchy = bt.hierarchical_topics(docs)
    assert len(hierarchy) == n_topics - 1
    found, scores = bt.find_topics("reinforcement learning policies and rewards", top_n=2)
    assert set(found) <= set(bt.topics_) and len(found) == 2 and scores[0] >= scores[1]
    assert len(bt.visualize_barchart().data) >= 1


def test_warm_fit_and_load_give_the_same_bertopic_model(tm, bt, corpus, tmp_path):
    warm = TopicMap(**PARAMS).fit(corpus)  # keyphrases from the cache: BERTopic is not refitted here
    assert warm.embedding_counts_["embedded"] == 0
    loaded = TopicMap.load(tm.save(tmp_path / "model"))
    for model in (warm, loaded):
        again = model.to_bertopic()
        assert [int(t) for t in again.topics_] == [int(t) for t in bt.topics_]
        assert again.custom_labels_ == bt.custom_labels_
        np.testing.assert_allclose(again.topic_embeddings_, bt.topic_embeddings_, atol=1e-6)


def test_merged_topics_map_back_to_our_ids(corpus):
    model = TopicMap(**PARAMS).fit(corpus)
    real = sorted(set(_ours(model)) - {-1})
    model.merge_topics(real[:2])
    bt = model.to_bertopic()
    ours = _ours(model)
    assert [bt.icml_topics_ids_[int(t)] for t in bt.topics_] == ours
    assert len(set(bt.topics_) - {-1}) == len(real) - 1


def test_bertopic_attribute_is_deprecated_but_works(tm):
    with pytest.warns(FutureWarning, match="to_bertopic"):
        legacy = tm.bertopic_
    assert [int(t) for t in legacy.topics_] == _ours(tm)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not hasattr(TopicMap(), "bertopic_")  # unfitted: a plain AttributeError, no warning


def test_every_paper_has_a_topic_and_get_topic_gives_our_keyphrases(tm, bt):
    info = bt.get_topic_info().set_index("Topic")
    assert -1 not in info.index  # every paper is placed in the tree (papers without a theme too)
    for topic, words in tm.keywords_.items():
        if topic == -1 or not words:
            continue
        assert [w for w, _ in bt.get_topic(topic)][: len(words)] == list(words)
        assert list(info.loc[topic, "Representation"])[: len(words)] == list(words)


def test_bertopic_transform_agrees_with_ours_on_training_papers(fitted, real_sample):
    """100 papers of the fitted corpus: BERTopic's transform gives the topic TopicMap.transform gives."""
    bt = fitted.to_bertopic()
    rows = real_sample.iloc[::2].head(100).reset_index(drop=True)
    ours = fitted.transform(rows)
    ours = ours.loc[ours["status"] == "ok", "topic"].astype(int).tolist()
    assert len(ours) == 100 and len(set(ours)) >= 3
    texts = bertopic_documents(fitted)[::2][:100]  # the same papers' texts, as the fit embedded them
    predicted, _ = bt.transform(texts)
    assert [bt.icml_topics_ids_[int(t)] for t in predicted] == ours


def test_find_topics_ranks_topic_centroids_by_similarity(fitted):
    found = fitted.find_topics("reinforcement learning: policies, rewards and exploration", k=4)
    assert list(found.columns) == ["topic", "label", "theme", "size", "similarity"]
    assert len(found) == 4 and -1 not in found["topic"].tolist()
    assert found["similarity"].is_monotonic_decreasing
    assert found["theme"].iloc[0] == "Reinforcement learning", found  # a child of RL does not repeat its words
    # the similarity is the cosine to the mean embedding of the topic's papers, computed here from embeddings_
    from icml_topics.embedding import embed

    query = embed(  # on the fit's path (fp32 for a corpus this small), as find_topics embeds it
        ["reinforcement learning: policies, rewards and exploration"], cache=False, precision=fitted.embedding_path_
    )[0]
    labels = fitted.documents_.query("status == 'ok'")["topic"].astype(int).to_numpy()
    for topic, sim in zip(found["topic"], found["similarity"]):
        centroid = fitted.embeddings_[labels == topic].mean(axis=0)
        assert abs(float(query @ centroid / np.linalg.norm(centroid)) - sim) < 5e-3
    with pytest.raises(ValueError, match="non-empty text query"):
        fitted.find_topics("  ")
    with pytest.raises(ValueError, match="positive integer"):
        fitted.find_topics("graphs", k=0)


def test_document_info_has_one_row_per_paper_with_its_topic_theme_and_representatives(fitted):
    info = fitted.document_info()
    docs = fitted.documents_.query("status == 'ok'").reset_index(drop=True)
    assert len(info) == len(docs) and info["id"].tolist() == docs["id"].tolist()
    assert info["topic"].tolist() == docs["topic"].tolist() and info["theme"].tolist() == docs["theme"].tolist()
    assert info["topic_label"].tolist() == docs["topic_label"].tolist()
    expected = {i for ids in fitted.topics_["representative_ids"] for i in ids}
    assert set(info.loc[info["representative"], "id"]) == expected and len(expected) >= 3
    first = fitted.topics_.query("topic != -1").iloc[0]
    assert info.loc[info["topic"] == first["topic"], "keywords"].iloc[0] == list(first["keywords"])
