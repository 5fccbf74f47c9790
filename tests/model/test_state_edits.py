"""Edits, placement and tables as functions of a fitted state, on a synthetic state (hand-made unit
vectors, no embedding model, no shared data): every edit rebuilds every derived column."""

from __future__ import annotations

from dataclasses import FrozenInstanceError

import numpy as np
import pandas as pd
import pytest

from icml_topics import edits
from icml_topics.corpus.readers import read_corpus
from icml_topics.corpus.validation import flag_rows
from icml_topics.placement import place_documents, placed_table
from icml_topics.state import FittedState, ThemeState, derive
from icml_topics.themes.assign import ThemeRule, ThemeSettings
from icml_topics.themes.taxonomy import Taxonomy

NAMES = ["Graphs", "Diffusion", "Time series"]
PHRASES = [["graph neural network"], ["diffusion model"], ["time series"]]
TAXONOMY = Taxonomy.from_dict({n: {"description": f"{n} papers", "seeds": p} for n, p in zip(NAMES, PHRASES)})
# topic 0: 12 Graphs papers; topic 1: 12 Diffusion papers; topic 2: 6 Time series papers; -1: 6 Time series
LABELS = np.array([0] * 12 + [1] * 12 + [2] * 6 + [-1] * 6, dtype=np.int64)
AXIS = np.array([0] * 12 + [1] * 12 + [2] * 12)


def _state() -> FittedState:
    rng = np.random.default_rng(0)
    emb = np.eye(8, dtype=np.float32)[AXIS] + rng.normal(0, 0.1, (36, 8)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    frame = pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(37)],
            "title": [f"Paper {i}" for i in range(37)],
            "abstract": [f"We study problem {i} with a new method." for i in range(36)] + [""],  # last: dropped
            "year": [2020 + i % 3 for i in range(37)],
        }
    )
    corpus = flag_rows(read_corpus(frame), prepend_title=True)
    protos = np.eye(8, dtype=np.float32)[[0, 0, 1, 1, 2, 2]] + 0.1 * np.eye(8, dtype=np.float32)[[3, 4, 3, 4, 3, 4]]
    protos /= np.linalg.norm(protos, axis=1, keepdims=True)
    modelled = corpus[corpus["status"] == "ok"]
    rule, docs = ThemeRule.fit(
        emb, modelled["title"].tolist(), modelled["abstract"].tolist(), (protos, np.repeat(np.arange(3), 2)),
        NAMES, PHRASES, ThemeSettings(),
    )  # fmt: skip
    keywords = {0: ["graphs", "nodes"], 1: ["diffusion", "noise"], 2: ["series", "forecast"], -1: ["misc"]}
    names = {0: "Graph nets", 1: "Diffusion models", 2: "Forecasting"}
    coords = rng.normal(size=(36, 2)).astype(np.float32)
    state = FittedState(corpus, emb, LABELS.copy(), coords, keywords, names)
    return state.with_themes(ThemeState(TAXONOMY, rule, docs))


@pytest.fixture()
def state() -> FittedState:
    return _state()


def test_the_synthetic_documents_take_the_theme_of_their_axis(state):
    assert state.themes.docs.theme == [NAMES[a] for a in AXIS]


def test_derived_tables_follow_the_state(state):
    t = derive(state)
    docs = t.documents
    assert len(docs) == 37 and docs["id"].tolist() == [f"p{i}" for i in range(37)]
    assert docs["status"].iloc[-1] == "dropped" and pd.isna(docs["topic"].iloc[-1]) and np.isnan(docs["x"].iloc[-1])
    ok = docs[docs["status"] == "ok"]
    assert ok["topic"].astype(int).tolist() == LABELS.tolist()
    assert t.topics["topic"].tolist() == [0, 1, 2, -1]  # outliers last
    assert t.topics["size"].tolist() == [12, 12, 6, 6]
    assert t.topics["theme"].tolist()[:3] == NAMES
    assert dict(zip(t.themes["theme"], t.themes["size"])) == {"Graphs": 12, "Diffusion": 12, "Time series": 12}
    assert t.theme_names == NAMES and t.theme_embeddings.shape == (3, 8)


def test_an_edit_returns_a_new_state_and_leaves_the_old_one_alone(state):
    merged = edits.merge_topics(state, [1, 2])
    assert 2 in state.keywords and 2 not in merged.keywords
    assert (state.labels == 2).sum() == 6
    with pytest.raises(FrozenInstanceError):
        state.labels = merged.labels


def test_merge_topics_rebuilds_the_topic_row_from_its_documents(state):
    before = derive(state)
    merged = edits.merge_topics(state, [2, 1], label="Diffusion and forecasting")
    t = derive(merged)
    assert t.topics["topic"].tolist() == [0, 1, -1]  # the larger topic (1) absorbs 2
    row = t.topics.set_index("topic").loc[1]
    assert row["size"] == 18 and row["label"] == "Diffusion and forecasting" and row["theme"] == "Diffusion"
    members = np.flatnonzero(np.isin(LABELS, [1, 2]))
    # its score and purity now describe all 18 documents (topic 1 alone: 1.0 and a higher mean)
    proba = state.themes.docs.proba[members, NAMES.index("Diffusion")]
    assert row["theme_score"] == pytest.approx(round(float(proba.mean()), 4))
    assert row["theme_purity"] == pytest.approx(12 / 18, abs=1e-4)
    assert row["theme_score"] < before.topics.set_index("topic").loc[1, "theme_score"]
    centroid = state.embeddings[members].mean(axis=0)
    np.testing.assert_allclose(t.topic_embeddings[1], centroid / np.linalg.norm(centroid), atol=1e-6)
    assert set(row["representative_ids"]) <= {f"p{i}" for i in members}
    ok = t.documents[t.documents["status"] == "ok"]
    assert (ok.iloc[members]["topic_label"] == "Diffusion and forecasting").all()
    # documents keep their own themes, scores and reasons: a topic never overrides them
    cols = ["theme", "theme_score", "theme_2", "theme_2_score", "theme_reason"]
    pd.testing.assert_frame_equal(t.documents[cols], before.documents[cols])
    assert dict(zip(t.themes["theme"], t.themes["n_topics"])) == {"Graphs": 1, "Diffusion": 1, "Time series": 0}


def test_merge_topics_rejects_unknown_or_single_topics(state):
    with pytest.raises(KeyError, match="Unknown topic 7"):
        edits.merge_topics(state, [0, 7])
    with pytest.raises(ValueError, match="at least two"):
        edits.merge_topics(state, [1, 1])


def test_rename_topic_renames_it_in_both_tables(state):
    t = derive(edits.rename_topic(state, 2, "Forecasting the future"))
    assert t.topics.set_index("topic").loc[2, "label"] == "Forecasting the future"
    ok = t.documents[t.documents["status"] == "ok"]
    assert (ok.loc[LABELS == 2, "topic_label"] == "Forecasting the future").all()
    assert not (ok.loc[LABELS != 2, "topic_label"] == "Forecasting the future").any()
    with pytest.raises(KeyError, match="Unknown topic -1"):
        edits.rename_topic(state, -1, "x")


def _placed_like_fit(state: FittedState) -> pd.DataFrame:
    """The fitted documents placed again as new ones (``transform``'s path)."""
    return placed_table(state, state.corpus, state.embeddings)


THEME_COLUMNS = ["theme", "theme_score", "theme_2", "theme_2_score", "theme_reason"]


def test_rename_theme_everywhere_and_transform_agrees(state):
    renamed = edits.rename_theme(state, "Graphs", "Graph learning")
    t = derive(renamed)
    for frame, cols in ((t.documents, ["theme", "theme_2"]), (t.topics, ["theme"]), (t.themes, ["theme"])):
        values = set(frame[cols].to_numpy().ravel())
        assert "Graph learning" in values and "Graphs" not in values
    assert "Graph learning" in renamed.themes.taxonomy.names and "Graphs" not in renamed.themes.taxonomy.names
    pd.testing.assert_frame_equal(_placed_like_fit(renamed)[THEME_COLUMNS], t.documents[THEME_COLUMNS])
    with pytest.raises(ValueError, match="exists already"):
        edits.rename_theme(renamed, "Diffusion", "Graph learning")
    with pytest.raises(KeyError, match="Unknown theme 'Graphs'"):
        edits.rename_theme(renamed, "Graphs", "x")


def test_merge_themes_updates_documents_topics_taxonomy_and_transform(state):
    merged = edits.merge_themes(state, ["Diffusion", "Time series"], into="Generative")
    t = derive(merged)
    docs = t.documents[t.documents["status"] == "ok"]
    assert (docs["theme"].to_numpy() == np.where(AXIS == 0, "Graphs", "Generative")).all()
    assert (docs.loc[AXIS > 0, "theme_2"] == "Graphs").all()  # the runner-up is no longer the other merged theme
    assert t.topics["theme"].tolist()[:3] == ["Graphs", "Generative", "Generative"]
    assert dict(zip(t.themes["theme"], t.themes["size"])) == {"Generative": 24, "Graphs": 12}
    assert list(merged.themes.taxonomy.names) == ["Graphs", "Generative"] and t.theme_names == ["Graphs", "Generative"]
    assert t.theme_embeddings.shape == (2, 8)
    pd.testing.assert_frame_equal(_placed_like_fit(merged)[THEME_COLUMNS], t.documents[THEME_COLUMNS])


def test_an_other_theme_of_a_topic_can_be_renamed(state):
    no_theme = state.themes.docs
    blank = [""] * 6
    docs = type(no_theme)(
        no_theme.theme[:24] + blank + no_theme.theme[30:],
        no_theme.score,
        no_theme.theme_2,
        no_theme.score_2,
        no_theme.reason,
        no_theme.proba,
    )  # topic 2's documents have no theme: the topic is "Other: series, forecast"
    state = state.with_themes(ThemeState(TAXONOMY, state.themes.rule, docs))
    assert derive(state).topics.set_index("topic").loc[2, "theme"] == "Other: series, forecast"
    t = derive(edits.rename_theme(state, "Other: series, forecast", "Forecasting"))
    assert t.topics.set_index("topic").loc[2, "theme"] == "Forecasting" and "Forecasting" in t.theme_names


def test_placement_of_the_fitted_documents_with_one_neighbour_is_the_fit(state):
    modelled = state.modelled
    placed = place_documents(
        state, state.embeddings, modelled["title"].tolist(), modelled["abstract"].tolist(), n_neighbors=1
    )
    np.testing.assert_array_equal(placed.labels, state.labels)
    np.testing.assert_allclose(placed.coords, state.coords, atol=1e-6)
    assert placed.themes.theme == state.themes.docs.theme


def test_placement_takes_the_weighted_majority_of_the_neighbours(state):
    v = np.zeros((1, 8), np.float32)
    v[0, 1] = 1.0  # on the Diffusion axis: every nearest neighbour is in topic 1
    placed = place_documents(state, v, ["New paper"], ["A new method."], n_neighbors=5)
    assert placed.labels.tolist() == [1] and placed.themes.theme == ["Diffusion"]
    sims = state.embeddings @ v[0]
    nn = np.argsort(-sims)[:5]
    expected = (state.coords[nn] * sims[nn, None]).sum(axis=0) / sims[nn].sum()
    np.testing.assert_allclose(placed.coords[0], expected, atol=1e-5)
    empty = placed_table(state, state.corpus.iloc[-1:], None)
    assert empty["status"].tolist() == ["dropped"] and pd.isna(empty["topic"].iloc[0])


def test_tables_are_indexed_by_paper_id_with_one_dtype_per_kind_of_column(state):
    from icml_topics.schema import TEXT_COLUMNS

    t = derive(state)
    placed = placed_table(state, state.corpus, state.embeddings)
    for docs in (t.documents, placed):
        assert docs.index.tolist() == [f"p{i}" for i in range(37)] and docs.index.is_unique
        assert docs.loc["p3", "title"] == "Paper 3" and docs["id"].tolist() == docs.index.tolist()
        assert {str(docs[c].dtype) for c in TEXT_COLUMNS} == {"string"}
        assert str(docs["topic"].dtype) == "Int64"
    assert str(t.topics["topic"].dtype) == "Int64"
    assert str(t.topics["label"].dtype) == str(t.themes["theme"].dtype) == "string"
    ok = t.documents[t.documents["status"] == "ok"]
    assert set(ok["topic"]) == set(t.topics["topic"])  # the same values compare equal across tables
