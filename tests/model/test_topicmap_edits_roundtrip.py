"""TopicMap on the bundled 38 abstracts (no shared data): edits, set_taxonomy, save / load and transform
give one consistent set of tables, all derived from ``state_``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

from icml_topics import TopicMap
from icml_topics.cli.demo import sample_path
from icml_topics.state import FittedState, derive
from icml_topics.themes.assign import ThemeSettings

THEME_COLUMNS = ["theme", "theme_score", "theme_2", "theme_2_score", "theme_reason"]
TAXONOMY = {
    "Learning theory": ["generalization bound", "sample complexity", "regret"],
    "Language models": ["large language model", "LLM", "transformer"],
    "Other methods": ["benchmark", "dataset"],
}


@pytest.fixture(scope="module")
def fitted(demo_fitted) -> TopicMap:
    return demo_fitted  # TopicMap(random_state=42) on the bundled abstracts, fitted once per session


@pytest.fixture()
def tm(fitted, tmp_path) -> TopicMap:
    """A private copy of the fitted model (edits change it)."""
    return TopicMap.load(fitted.save(tmp_path / "copy"))


def _same_tables(a: TopicMap, b: TopicMap) -> None:
    pd.testing.assert_frame_equal(a.documents_, b.documents_)
    pd.testing.assert_frame_equal(a.topics_, b.topics_)
    pd.testing.assert_frame_equal(a.themes_, b.themes_)
    assert a.theme_names_ == b.theme_names_
    np.testing.assert_array_equal(a.theme_embeddings_, b.theme_embeddings_)
    np.testing.assert_array_equal(a.topic_embeddings_, b.topic_embeddings_)


def _transform_agrees(model: TopicMap) -> pd.DataFrame:
    """Placing the fitted abstracts again gives each its fitted theme, score, runner-up and reason."""
    placed = model.transform(sample_path())
    pd.testing.assert_frame_equal(placed[THEME_COLUMNS], model.documents_[THEME_COLUMNS], check_exact=False, atol=2e-4)
    assert set(placed["topic"].dropna().astype(int)) <= set(model.topics_["topic"])
    return placed


def test_the_public_tables_are_derived_from_the_state(fitted):
    assert isinstance(fitted.state_, FittedState) and fitted.state_.themes is not None
    derived = derive(fitted.state_)
    pd.testing.assert_frame_equal(derived.documents, fitted.documents_)
    pd.testing.assert_frame_equal(derived.topics, fitted.topics_)
    assert len(fitted.documents_) == 38 and fitted.topics_["size"].sum() == 38


def test_save_and_load_round_trip(fitted, tmp_path):
    loaded = TopicMap.load(fitted.save(tmp_path / "m"))
    _same_tables(loaded, fitted)
    np.testing.assert_array_equal(loaded.embeddings_, fitted.embeddings_)
    np.testing.assert_array_equal(loaded.theme_proba_, fitted.theme_proba_)
    assert loaded.keywords_ == fitted.keywords_ and loaded.topic_names_ == fitted.topic_names_
    assert loaded.get_params()["random_state"] == 42 and loaded.taxonomy_ == fitted.taxonomy_


def test_merge_topics_then_save_load_and_transform_agree(tm, tmp_path):
    real = sorted(t for t in tm.topics_["topic"] if t != -1)
    assert len(real) >= 2
    sizes = tm.topics_.set_index("topic")["size"]
    tm.merge_topics(real[:2], label="Merged topic")
    merged = tm.topics_.set_index("topic")
    target = merged.index[merged["label"] == "Merged topic"].tolist()
    assert len(target) == 1 and merged.loc[target[0], "size"] == sizes[real[0]] + sizes[real[1]]
    ok = tm.documents_[tm.documents_["status"] == "ok"]
    members = ok[ok["topic"] == target[0]]
    purity = float((members["theme"] == merged.loc[target[0], "theme"]).mean())  # from the documents themselves
    assert merged.loc[target[0], "theme_purity"] == pytest.approx(purity, abs=1e-4)
    loaded = TopicMap.load(tm.save(tmp_path / "merged"))
    _same_tables(loaded, tm)
    placed = _transform_agrees(loaded)
    assert not set(placed["topic"].dropna().astype(int)) & (set(real[:2]) - set(target))


def test_set_taxonomy_settings_stay_through_save_load_and_later_assignments(tm, fitted, tmp_path):
    settings = ThemeSettings(prototype_weight=6.0, self_train_weight=0.0)
    tm.set_taxonomy(TAXONOMY, theme_settings=settings)
    assert tm.theme_rule_.settings == settings
    assert not np.allclose(tm.theme_proba_[:, :1], fitted.theme_proba_[:, :1])  # the settings matter here
    assert set(tm.themes_["theme"]) - set(TAXONOMY) <= {t for t in tm.themes_["theme"] if t.startswith("Other: ")}
    loaded = TopicMap.load(tm.save(tmp_path / "taxonomy"))
    assert loaded.theme_rule_.settings == settings and list(loaded.taxonomy_.names) == list(TAXONOMY)
    _same_tables(loaded, tm)
    _transform_agrees(loaded)
    loaded.set_taxonomy(TAXONOMY)  # again, without settings: the ones in use are kept
    assert loaded.theme_rule_.settings == settings
    pd.testing.assert_frame_equal(loaded.documents_, tm.documents_)
    assert (
        json.loads((tmp_path / "taxonomy" / "model.json").read_text())["theme_rule"]["settings"]["prototype_weight"]
        == 6.0
    )


def test_merge_topics_after_set_taxonomy_then_round_trip(tm, tmp_path):
    tm.set_taxonomy(TAXONOMY)
    real = sorted(t for t in tm.topics_["topic"] if t != -1)
    tm.merge_topics(real[:2])
    loaded = TopicMap.load(tm.save(tmp_path / "both"))
    _same_tables(loaded, tm)
    _transform_agrees(loaded)


def test_theme_edits_then_round_trip_transform_and_ranking(tm, tmp_path):
    first, second = tm.themes_["theme"].iloc[:2]
    tm.rename_theme(first, "Renamed theme")
    tm.merge_themes(["Renamed theme", second], into="Merged theme")
    assert "Merged theme" in set(tm.themes_["theme"]) and not {first, second} & set(tm.documents_["theme"])
    loaded = TopicMap.load(tm.save(tmp_path / "themes"))
    _same_tables(loaded, tm)
    _transform_agrees(loaded)
    ranking = loaded.theme_ranking(k=1).set_index("id")
    ok = loaded.documents_[(loaded.documents_["status"] == "ok") & (loaded.documents_["theme"] != "")]
    assert ranking.loc[ok["id"].astype(str), "theme"].tolist() == ok["theme"].tolist()


def test_rename_topic_survives_save_and_load(tm, tmp_path):
    topic = int(tm.topics_.loc[tm.topics_["topic"] != -1, "topic"].iloc[0])
    tm.rename_topic(topic, "My topic")
    loaded = TopicMap.load(tm.save(tmp_path / "named"))
    assert loaded.topic_names_[topic] == "My topic"
    assert (loaded.documents_.loc[loaded.documents_["topic"] == topic, "topic_label"] == "My topic").all()
    assert (loaded.transform(sample_path())["topic_label"] == "My topic").any()


def test_edits_need_a_fitted_model():
    with pytest.raises(NotFittedError, match="not fitted"):
        TopicMap().merge_topics([0, 1])
    with pytest.raises(NotFittedError, match="not fitted"):
        TopicMap().rename_theme("a", "b")


def test_documents_and_transform_are_indexed_by_id_and_keep_the_csv_columns(fitted, tmp_path):
    from icml_topics.outputs import write_outputs

    ids = pd.read_json(sample_path(), lines=True)["id"].astype(str).tolist()
    assert fitted.documents_.index.tolist() == ids and fitted.transform(sample_path()).index.tolist() == ids
    assert str(fitted.documents_["topic"].dtype) == str(fitted.topics_["topic"].dtype) == "Int64"
    paths = write_outputs(fitted, tmp_path / "out", report=False, static_map=False, save_model=False)
    csv = pd.read_csv(paths["documents"])
    assert csv.columns[0] == "id" and csv["id"].astype(str).tolist() == ids and "Unnamed: 0" not in csv.columns
