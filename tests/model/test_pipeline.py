"""The whole pipeline on real ICML abstracts: tables, themes, determinism, save/load, transform, edits."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from icml_topics import TopicMap
from icml_topics.corpus import CorpusError
from icml_topics.tables import DOCUMENT_COLUMNS


def test_every_input_row_is_in_documents_once(fitted, real_sample):
    docs = fitted.documents_
    assert docs["id"].tolist() == real_sample["id"].tolist()
    assert list(docs.columns[: len(DOCUMENT_COLUMNS)]) == DOCUMENT_COLUMNS
    assert (docs["status"] == "ok").all()
    assert docs[["x", "y"]].notna().all().all()


def test_topics_have_readable_labels_and_consistent_sizes(fitted):
    topics = fitted.topics_
    real = topics[topics["topic"] != -1]
    assert len(real) >= 3
    assert not real["label"].str.match(r"^-?\d+_").any()  # never BERTopic's "3_graph_node_gnn"
    assert real["label"].is_unique
    assert all(len(k) >= 1 for k in real["keywords"])  # a node of two or three papers may have few phrases
    assert (real["keywords"].map(len) >= 3).mean() >= 0.9
    sizes = fitted.documents_["topic"].value_counts()
    assert {int(t): int(n) for t, n in sizes.items()} == dict(zip(topics["topic"], topics["size"]))


def test_themes_cover_the_corpus(fitted):
    docs = fitted.documents_
    assert (docs["theme"] == "").mean() <= 0.05
    themes = fitted.themes_
    assert themes["size"].sum() == (docs["theme"] != "").sum()
    assert set(themes["theme"]) == set(docs.loc[docs["theme"] != "", "theme"])
    taxonomy = set(fitted.taxonomy_.names)
    assert {"Reinforcement learning", "Large language models & reasoning"} <= set(themes["theme"]) | set()
    assert set(themes["theme"]) <= taxonomy | {t for t in themes["theme"] if t.startswith("Other: ")}
    reasons = docs["theme_reason"].str.split(" ").str[0].unique()
    assert set(reasons) <= {"topic", "own", "nearest", "no"}


def test_second_fit_reuses_the_cache_and_is_identical(fitted, real_sample):
    again = TopicMap(random_state=0).fit(real_sample)
    # nothing new was embedded: every document, keyphrase and theme text came from the cache
    assert again.embedding_counts_["embedded"] == 0
    assert again.embedding_counts_["from_cache"] >= len(real_sample)
    pd.testing.assert_frame_equal(again.documents_, fitted.documents_)
    pd.testing.assert_frame_equal(again.topics_, fitted.topics_)


def test_determinism_without_any_cache(fitted, real_sample):
    """Same input and random_state, reductions recomputed: identical topics, themes and map. The session's
    ``fitted`` is the other run (computed by an earlier fit in this or another process, or read from what one
    wrote), so one uncached fit is enough. (cache=False: no stage result is read or written, and no test deletes
    a cache it did not make.)"""
    first = TopicMap(random_state=0, cache=False).fit(real_sample, embeddings=fitted.embeddings_).documents_
    second = fitted.documents_
    assert first["topic"].tolist() == second["topic"].tolist()
    assert first["theme"].tolist() == second["theme"].tolist()
    np.testing.assert_array_equal(first[["x", "y"]].to_numpy(float), second[["x", "y"]].to_numpy(float))


def test_a_saved_model_records_what_made_it(fitted, tmp_path):
    """Issue 38 item 7: the embedding path, the CPU and the package version in the saved folder's manifest."""
    import json

    import icml_topics

    manifest = json.loads((fitted.save(tmp_path / "model") / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["embedding_path"] == fitted.embedding_path_ and fitted.embedding_path_
    assert manifest["package_version"] == icml_topics.__version__ and manifest["cpu"]


def test_save_load_round_trip(fitted, tmp_path):
    path = fitted.save(tmp_path / "model")
    assert sorted(p.name for p in path.iterdir()) == sorted(
        [
            "model.json",
            "manifest.json",
            "documents.parquet",
            "topics.parquet",
            "embeddings.npy",
            "theme_embeddings.npy",
            "labels.npy",
            "coords.npy",
            "theme_rule.npz",
            "theme_proba.npy",
            "tree_labels.npy",
            "tree_similarity.npy",
        ]
    )
    loaded = TopicMap.load(path)
    pd.testing.assert_frame_equal(loaded.documents_, fitted.documents_, check_dtype=False)
    pd.testing.assert_frame_equal(loaded.topics_, fitted.topics_, check_dtype=False)
    pd.testing.assert_frame_equal(loaded.themes_, fitted.themes_, check_dtype=False)
    np.testing.assert_array_equal(loaded.embeddings_, fitted.embeddings_)
    new = ["We propose a policy gradient method for offline reinforcement learning with pessimistic value estimates."]
    pd.testing.assert_frame_equal(loaded.transform(new), fitted.transform(new))


def test_load_rejects_what_is_not_a_model(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a saved TopicMap"):
        TopicMap.load(tmp_path)


def test_transform_places_new_abstracts(fitted):
    rl = "Offline reinforcement learning: we learn a policy from logged trajectories with conservative Q-learning and reward models."
    out = fitted.transform([rl, "   "])
    assert out["status"].tolist() == ["ok", "dropped"]
    first, second = out.index  # indexed by the ids read_corpus generated for a list of texts
    assert out.loc[first, "theme"] == "Reinforcement learning"
    assert out.loc[second, "drop_reason"] == "empty abstract" and pd.isna(out.loc[second, "topic"])
    assert np.isfinite(out.loc[first, ["x", "y"]].to_numpy(float)).all()


def test_input_text_columns_are_pandas_strings_like_ours(fitted, real_sample):
    """The docs promise pandas ``string`` for text columns: the input's decision and source too, not object."""
    assert {"decision", "source"} <= set(fitted.documents_.columns)
    for column in ("decision", "source", "title", "theme"):
        assert fitted.documents_[column].dtype == "string", (column, fitted.documents_[column].dtype)
    assert fitted.transform(real_sample.head(3))["decision"].dtype == "string"


def test_custom_taxonomy_changes_themes_without_re_embedding_documents(fitted, real_sample, tmp_path, monkeypatch):
    from icml_topics.fit_inputs import Embedder

    tm = TopicMap.load(fitted.save(tmp_path / "model"))
    asked: list[str] = []
    real_call = Embedder.__call__

    def recording(self, texts, **kwargs):
        asked.extend(texts)
        return real_call(self, texts, **kwargs)

    monkeypatch.setattr(Embedder, "__call__", recording)
    taxonomy = {
        "Agents and control": {
            "description": "reinforcement learning, control, planning and decision making",
            "seeds": ["policy", "reward"],
        },
        "Everything else": {
            "description": "machine learning methods, models, data and theory",
            "seeds": ["neural networks", "optimization"],
        },
    }
    tm.set_taxonomy(taxonomy)
    assert set(tm.themes_["theme"]) <= {"Agents and control", "Everything else"} | {
        t for t in tm.themes_["theme"] if t.startswith("Other: ")
    }
    assert "Agents and control" in set(tm.themes_["theme"])
    # no abstract was asked for again: only the taxonomy's texts and the keyphrase candidates of the new tree's
    # nodes (how many of those are new to the cache depends on the tests run before, so no count is asserted)
    assert asked and not set(asked) & set(tm.state_.texts)
    np.testing.assert_array_equal(tm.embeddings_, fitted.embeddings_)
    top = f"topic_{tm.topic_tree_['level'].max()}"  # the coarsest level (how many follows the corpus)
    for node, rows in tm.documents_[tm.documents_[top] >= 0].groupby(top):
        assert rows["theme"].nunique() == 1, node  # the tree was built again under the new themes


def test_rename_and_merge_themes_and_topics(fitted, tmp_path):
    tm = TopicMap.load(fitted.save(tmp_path / "m"))
    top = tm.themes_["theme"].iloc[0]
    tm.rename_theme(top, "My theme")
    assert "My theme" in set(tm.documents_["theme"]) and top not in set(tm.documents_["theme"])
    first, second = tm.themes_["theme"].iloc[:2]
    expected = int(tm.themes_.set_index("theme").loc[[first, second], "size"].sum())
    moved = tm.documents_["theme"].isin([first, second]).to_numpy()
    tm.merge_themes([first, second], into="Merged")
    # their documents all move; a document whose two merged probabilities add up above its own theme joins them
    assert (tm.documents_.loc[moved, "theme"] == "Merged").all()
    assert int(tm.themes_.set_index("theme").loc["Merged", "size"]) >= expected
    with pytest.raises(KeyError, match="Unknown theme 'nope'"):
        tm.rename_theme("nope", "x")
    t0, t1 = tm.topics_["topic"].iloc[:2]
    n = int(tm.topics_.set_index("topic").loc[[t0, t1], "size"].sum())
    tm.merge_topics([t0, t1], label="merged topic")
    row = tm.topics_[tm.topics_["label"] == "merged topic"]
    assert len(row) == 1 and int(row["size"].iloc[0]) == n
    assert (tm.documents_["topic_label"] == "merged topic").sum() == n


def test_theme_ranking_top_k(fitted):
    ranking = fitted.theme_ranking(k=3)
    assert len(ranking) == 3 * len(fitted.documents_)
    scores = ranking.pivot(index="id", columns="rank", values="score")
    assert (scores[1] >= scores[2]).all() and (scores[2] >= scores[3]).all()


def test_plots_are_figures(fitted):
    import plotly.graph_objects as go

    fig = fitted.plot_map()
    assert isinstance(fig, go.Figure)
    hover = " ".join(str(t) for trace in fig.data for t in (trace.hovertext or trace.text or []))
    assert fitted.documents_["title"].iloc[0][:40] in hover
    assert isinstance(fitted.plot_hierarchy(), go.Figure)
    shares = fitted.plot_theme_shares(by="year")
    assert isinstance(shares, go.Figure) and len(shares.data) > 0


def test_too_small_corpus_has_a_clear_message():
    with pytest.raises(CorpusError, match="Only 0 of 2 rows have an abstract"):
        TopicMap().fit(["two words", "  "])


def test_evaluate_reports_quality_numbers(fitted):
    scores = fitted.evaluate()
    assert -1.0 <= scores["coherence_npmi"] <= 1.0
    assert 0.0 < scores["topic_diversity"] <= 1.0
    assert scores["unassigned_share"] == pytest.approx((fitted.documents_["theme"] == "").mean())
