"""A fit of 2,000 real abstracts takes the paths a large corpus takes: the approximate kNN graph, the map's
UMAP on a sample with the other papers placed, the theme rule's approximate neighbours, a theme clustered on a
sample above ``max_theme_size`` with the rest placed, and the keyphrase counts from a sampled vocabulary.

The thresholds are lowered (``large_corpus_threshold=1000``, ``sample_size=800``, ``max_theme_size=100``) so
2,000 papers are "large"; every stage is the library's own code, watched by wrappers that call it. The papers
are the 1,500 ICLR 2024 and 2025 submissions that ``notebooks/what_changed.ipynb`` fits (its sample: 750 a year,
``random_state=0``) and 500 ICML 2019 and 2024 papers. Their embeddings come from the session's embedding cache
(``ICML_TOPICS_TEST_CACHE`` keeps it between local runs), which the notebook's kernel reads too
(``tests/model/test_notebooks.py``), so the 1,500 submissions are embedded once for both (both fits have 1,000
papers or more, so both embed on the machine's path: one cache entry per text).
``random_state=None`` keeps the stage caches out, so the stages run each time.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from conftest import SHARED_DATA, require

N = 2000
ICLR = SHARED_DATA / "iclr-2024-2025-areas.jsonl.gz"
COLUMNS = ["id", "venue", "year", "title", "abstract"]
MAX_THEME = 100  # 400 was above every theme of this sample (no theme sampled): seen failing so


def _watched(calls: list, key: str, fn):
    def wrapper(*args, **kwargs):
        calls.append((key, args, kwargs))
        return fn(*args, **kwargs)

    return wrapper


@pytest.fixture(scope="module")
def large_fit(icml_frame: pd.DataFrame):
    from icml_topics import TopicMap, fitting
    from icml_topics.fit_config import FitConfig
    from icml_topics.stages import hierarchy_theme, large
    from icml_topics.stages.piecewise_counts import SampleVocabularyCounts

    iclr = pd.read_json(require(ICLR), lines=True)
    # the notebook's sample, as its cell draws it
    notebook = pd.concat([iclr[iclr.year == y].sample(n=750, random_state=0) for y in (2024, 2025)])
    icml = icml_frame[icml_frame["year"].isin([2019, 2024])].sample(n=N - len(notebook), random_state=3)
    corpus = pd.concat([notebook[COLUMNS], icml[COLUMNS]], ignore_index=True)
    calls: list = []
    settings = FitConfig.hierarchy_settings
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ICML_TOPICS_BACKGROUND", "0")  # every stage in this process, where the wrappers see it
        mp.setattr(large, "approximate_knn_graph", _watched(calls, "knn", large.approximate_knn_graph))
        mp.setattr(large, "project_large", _watched(calls, "map", large.project_large))
        mp.setattr(fitting, "theme_neighbours", _watched(calls, "theme vote", fitting.theme_neighbours))
        mp.setattr(hierarchy_theme, "theme_tree", _watched(calls, "theme tree", hierarchy_theme.theme_tree))
        mp.setattr(
            SampleVocabularyCounts,
            "fit_transform",
            _watched(calls, "sample vocabulary", SampleVocabularyCounts.fit_transform),
        )
        mp.setattr(
            FitConfig,
            "hierarchy_settings",
            lambda self, n: dataclasses.replace(settings(self, n), max_theme_size=MAX_THEME),
        )
        tm = TopicMap(random_state=None, large_corpus_threshold=1000, sample_size=800).fit(corpus)
    return tm, calls


def test_a_large_fit_runs_every_large_corpus_branch(large_fit):
    tm, calls = large_fit
    kinds = {key for key, _, _ in calls}
    assert {"knn", "map", "theme vote", "sample vocabulary"} <= kinds, kinds
    sampled = [args[0] for key, args, _ in calls if key == "theme tree" and len(args[0]) == MAX_THEME]
    assert sampled, "no theme was clustered on a sample of max_theme_size papers"


def test_a_large_fit_places_and_names_every_paper(large_fit):
    tm, _ = large_fit
    docs = tm.documents_
    modelled = docs[docs["status"] == "ok"]
    assert len(modelled) >= 0.95 * N
    assert np.isfinite(modelled[["x", "y"]].to_numpy()).all()  # sampled and placed papers alike
    assert (modelled["topic"] >= 0).mean() > 0.9 and modelled["theme"].notna().all()
    finest = tm.topics_at(0)
    assert 40 <= len(finest) <= 200, len(finest)  # about one node per 24 papers
    assert (finest["label"].str.len() > 0).all() and finest["size"].sum() == (modelled["topic"] >= 0).sum()
    themes = modelled["theme"].value_counts()
    assert themes.iloc[0] > MAX_THEME  # the sampled-theme branch had a theme to sample
