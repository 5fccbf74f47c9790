"""The fit as one sequence: parameters resolved once (FitConfig), checked before any work, every stage run by
``run_fit`` and the state set once; a fit that fails leaves the model as it was."""

from __future__ import annotations

import inspect
import time

import pytest
from sklearn.decomposition import PCA
from sklearn.exceptions import NotFittedError as SklearnNotFittedError

from icml_topics import IcmlTopicsError, NotFittedError, TopicMap
from icml_topics.cli.demo import sample_path
from icml_topics.fit_config import FitConfig
from icml_topics.fitting import FIT_STAGES
from icml_topics.themes.assign import ThemeSettings


def test_fitconfig_holds_the_same_defaults_as_the_estimator():
    signature = inspect.signature(TopicMap.__init__).parameters
    estimator = {name: p.default for name, p in signature.items() if name != "self"}
    assert estimator == FitConfig.defaults()
    assert set(TopicMap().get_params()) == set(FitConfig.parameter_names())


def test_a_missing_taxonomy_file_fails_at_once_before_anything_is_embedded(tmp_path):
    cache = tmp_path / "cache"
    started = time.perf_counter()
    with pytest.raises(FileNotFoundError, match="missing.yaml") as caught:
        TopicMap(taxonomy="missing.yaml", cache=cache).fit(sample_path())
    assert time.perf_counter() - started < 5
    assert isinstance(caught.value, IcmlTopicsError)
    assert not cache.exists()  # the embedding cache was never opened: nothing was read or embedded


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        ({"theme_settings": {"doc_threshold": 0.2}}, TypeError, "ThemeSettings"),
        ({"large_corpus_threshold": 0}, ValueError, "large_corpus_threshold=0"),
        ({"sample_size": "all"}, ValueError, "sample_size='all'"),
        ({"max_tokens": 4}, ValueError, "max_tokens=4"),
        ({"taxonomy": 3}, TypeError, "taxonomy"),
    ],
)
def test_bad_parameters_fail_before_any_work(tmp_path, params, error, message):
    cache = tmp_path / "cache"
    with pytest.raises(error, match=message) as caught:
        TopicMap(cache=cache, **params).fit("no-such-file.jsonl")  # the file is never read
    assert isinstance(caught.value, IcmlTopicsError) and not cache.exists()


def test_transform_before_fit_raises_scikit_learns_not_fitted_error():
    with pytest.raises(NotFittedError, match="not fitted yet") as caught:
        TopicMap().transform(["A graph neural network for molecules."])
    assert isinstance(caught.value, SklearnNotFittedError) and isinstance(caught.value, IcmlTopicsError)


@pytest.fixture(scope="module")
def plugged():
    """The seed abstracts with a PCA map (no numba), the stages seen through ``on_stage``."""
    seen: list[tuple[str, str]] = []
    tm = TopicMap(reducer=PCA(2, random_state=0), random_state=0)
    return tm.fit(sample_path(), on_stage=lambda name, line: seen.append((name, line))), seen


def test_fit_runs_every_stage_in_order_themes_included(plugged):
    tm, seen = plugged
    assert [name for name, _ in seen] == [stage.name for stage in FIT_STAGES]
    assert [name for name, _ in seen][-3:] == ["themes", "tree", "state"] and tm.state_.themes is not None
    assert tm.state_.tree is not None and (tm.state_.labels == tm.state_.tree.labels[:, 0]).all()
    assert seen[1][1].startswith("embedding 38 abstracts (38 rows read, 0 dropped")
    assert tm.theme_rule_ is tm.state_.themes.rule and len(tm.documents_) == 38


class BrokenReducer:
    """A user's map projection that fails (after reading and embedding): the fit must not keep half of its work."""

    def fit_transform(self, embeddings):
        raise ZeroDivisionError("the reducer failed")


def test_a_failed_fit_leaves_the_fitted_state_as_it_was(plugged):
    tm, _ = plugged
    state, documents = tm.state_, tm.documents_
    reducer = tm.reducer
    tm.set_params(reducer=BrokenReducer())
    try:
        with pytest.raises(ZeroDivisionError):
            tm.fit(sample_path())
    finally:
        tm.set_params(reducer=reducer)
    assert tm.state_ is state and tm.documents_ is documents
    fresh = TopicMap(reducer=BrokenReducer())
    with pytest.raises(ZeroDivisionError):
        fresh.fit(sample_path())
    with pytest.raises(NotFittedError):
        fresh.summary()  # no half-fitted model


def test_set_taxonomy_runs_the_fits_theme_stage_with_new_settings(plugged):
    tm, _ = plugged
    strict = ThemeSettings(doc_threshold=0.99, supervised_head=False)
    again = TopicMap(reducer=PCA(2, random_state=0), random_state=0)
    again.fit(sample_path(), embeddings=tm.embeddings_)
    again.set_taxonomy(None, theme_settings=strict)
    assert again.state_.themes.settings == strict
    assert again.documents_["theme"].tolist() != tm.documents_["theme"].tolist()
