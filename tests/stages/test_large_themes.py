"""Themes on the large-corpus path: from ``large_corpus_threshold`` up the theme rule's neighbour vote reads
the approximate graph (``stages.large.theme_neighbours``) instead of comparing every paper with every
other, and its self-trained classifier learns from a bounded sample; below the threshold nothing changes.

Synthetic vectors and a stand-in embedder (a hash-seeded unit vector per text): the theme stage's wiring,
not the embedding model, is under test."""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd
import pytest

from icml_topics.corpus.validation import flag_rows
from icml_topics.fit_config import FitConfig
from icml_topics.fitting import theme_state
from icml_topics.model import TopicMap
from icml_topics.stages import large
from icml_topics.state import FittedState
from icml_topics.themes import evidence as ev
from icml_topics.themes.assign import ThemeSettings
from icml_topics.themes.taxonomy import load_taxonomy

DIM = 64
TAXONOMY = {
    "Graphs": {"description": "learning on graphs", "seeds": ["graph neural network", "message passing"]},
    "Diffusion": {"description": "generative diffusion", "seeds": ["diffusion model", "score matching"]},
    "Bandits": {"description": "sequential decisions", "seeds": ["multi-armed bandit", "regret bound"]},
}


def stand_in(texts: list[str]) -> np.ndarray:
    out = np.stack([np.random.default_rng(zlib.crc32(t.encode())).standard_normal(DIM) for t in texts])
    return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


def fitted_state(threshold: int, n_per_theme: int = 120, seed: int = 0) -> tuple[FittedState, np.ndarray, dict]:
    """A fit's state as ``fit`` leaves it before assigning themes (vectors near each theme's seeds, titles
    naming a seed half of the time), the theme each paper was made from, and the estimator's parameters."""
    rng = np.random.default_rng(seed)
    names = list(TAXONOMY)
    truth = np.repeat(np.arange(len(names)), n_per_theme)
    centres = np.stack([stand_in(TAXONOMY[t]["seeds"]).mean(axis=0) for t in names])
    emb = centres[truth] + 0.08 * rng.standard_normal((len(truth), DIM))
    emb = (emb / np.linalg.norm(emb, axis=1, keepdims=True)).astype(np.float32)
    titles = [
        f"{TAXONOMY[names[t]]['seeds'][i % 2]} study {i}" if i % 2 else f"a study {i}" for i, t in enumerate(truth)
    ]
    rows = pd.DataFrame({"id": [str(i) for i in range(len(truth))], "title": titles, "abstract": "We study it."})
    rows = rows.assign(venue="ICML", year=2024, authors="A. Author")
    state = FittedState(
        flag_rows(rows, prepend_title=True),
        emb,
        truth.astype(np.int64),
        rng.standard_normal((len(truth), 2)).astype(np.float32),
        {t: [names[t].lower()] for t in range(len(names))},
        {t: names[t] for t in range(len(names))},
    )
    params = TopicMap(random_state=0, cache=False, large_corpus_threshold=threshold, sample_size=100).get_params()
    return state, truth, params


def themes_of(state: FittedState, params: dict):
    """The theme stage of ``fit`` / ``set_taxonomy`` on ``state`` with the test taxonomy."""
    config, taxonomy = FitConfig.from_params(params), load_taxonomy(TAXONOMY)
    settings = ThemeSettings(weak_similarity=0.0)
    return theme_state(state.embeddings, state.modelled, taxonomy, settings, stand_in, config)


class Spy:
    def __init__(self, monkeypatch: pytest.MonkeyPatch, module, name: str) -> None:
        self.calls, plain = [], getattr(module, name)

        def spied(*args, **kwargs):
            self.calls.append(kwargs)
            return plain(*args, **kwargs)

        monkeypatch.setattr(module, name, spied)


def test_above_the_threshold_themes_read_the_approximate_graph_and_every_paper_gets_one(monkeypatch):
    exact = Spy(monkeypatch, ev, "neighbours_among")
    approx = Spy(monkeypatch, large, "approximate_knn_graph")
    trained = Spy(monkeypatch, ev, "self_trained_classifier")
    state, truth, params = fitted_state(threshold=300)
    docs = themes_of(state, params).docs
    assert exact.calls == [] and len(approx.calls) == 1  # no exact all-pairs neighbours
    assert trained.calls[0]["max_docs"] == params["sample_size"]
    assert all(docs.theme) and np.isfinite(docs.score).all()
    assert (np.array(docs.theme) == np.array(list(TAXONOMY))[truth]).mean() > 0.95
    themes_of(state, params)  # a re-assignment (set_taxonomy) reuses the graph of the same embeddings
    assert len(approx.calls) == 1


def test_below_the_threshold_themes_are_those_of_the_exact_rule(monkeypatch):
    from icml_topics.themes.assign import ThemeRule, embed_prototypes

    approx = Spy(monkeypatch, large, "approximate_knn_graph")
    state, _, params = fitted_state(threshold=10_000)
    themes = themes_of(state, params)
    assert approx.calls == []
    tax = load_taxonomy(TAXONOMY)
    modelled = state.modelled
    plain_rule, plain_docs = ThemeRule.fit(  # the call as it was before large corpora had their own path
        state.embeddings,
        modelled["title"].tolist(),
        modelled["abstract"].tolist(),
        embed_prototypes(tax.theme_texts(), stand_in),
        tax.names,
        tax.theme_phrases(),
        ThemeSettings(weak_similarity=0.0),  # random vectors: no prototype is near any of them
    )
    assert themes.docs.theme == plain_docs.theme
    np.testing.assert_array_equal(themes.docs.proba, plain_docs.proba)
    np.testing.assert_array_equal(themes.rule.classifier_coef, plain_rule.classifier_coef)


def test_theme_neighbours_are_the_exact_neighbours_format_without_the_paper_itself():
    state, _, _ = fitted_state(threshold=300, n_per_theme=60)
    emb = state.embeddings
    idx, sim = large.theme_neighbours(emb, 10, random_state=0)
    exact_idx, exact_sim = ev.neighbours_among(emb, emb, 10, skip_self=True)
    assert idx.shape == exact_idx.shape and idx.dtype == exact_idx.dtype and sim.dtype == exact_sim.dtype
    assert not (idx == np.arange(len(emb))[:, None]).any()
    np.testing.assert_allclose(sim, np.einsum("nd,nkd->nk", emb, emb[idx]), atol=1e-5)
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(idx, exact_idx)])
    assert recall > 0.9
    assert large.theme_neighbours(emb, 10, random_state=0)[0] is idx  # remembered for the same array
    assert large.theme_neighbours(emb.copy(), 10, random_state=0)[0] is not idx


def test_theme_neighbours_drop_the_paper_itself_wherever_the_graph_lists_it(monkeypatch):
    """NN-descent's order among ties is not fixed: an exact duplicate (distance 0) may come before the
    paper itself, and a row may miss itself; the vote must never count the paper's own evidence."""
    graph = np.array([[0, 1, 2], [0, 1, 2], [0, 1, 3], [0, 1, 2]])  # row 1: twin 0 first; row 3: no self
    dist = np.array([[0.0, 0.0, 0.2], [0.0, 0.0, 0.2], [0.1, 0.3, 0.0], [0.3, 0.4, 0.5]], dtype=np.float32)
    monkeypatch.setattr(large, "approximate_knn_graph", lambda emb, k, random_state: (graph, dist))
    idx, sim = large.theme_neighbours(np.zeros((4, 2), np.float32), 2, random_state=0)
    np.testing.assert_array_equal(idx, [[1, 2], [0, 2], [0, 1], [0, 1]])
    np.testing.assert_allclose(sim, [[1.0, 0.8], [1.0, 0.8], [0.9, 0.7], [0.7, 0.6]], atol=1e-6)


def test_self_training_sample_is_bounded_only_when_asked():
    rng = np.random.default_rng(0)
    emb = ev.normalize(rng.standard_normal((400, 16)))
    proba = ev.softmax(4 * emb[:, :3])
    agree = np.ones(len(emb), dtype=bool)
    full = ev.self_trained_classifier(emb, proba, agree, confidence=0.5, C=0.3)
    roomy = ev.self_trained_classifier(emb, proba, agree, confidence=0.5, C=0.3, max_docs=10_000)
    np.testing.assert_array_equal(full[0], roomy[0])
    bounded = ev.self_trained_classifier(emb, proba, agree, confidence=0.5, C=0.3, max_docs=60)
    assert not np.array_equal(full[0], bounded[0]) and np.isfinite(bounded[1]).all()  # every theme still learnt
    again = ev.self_trained_classifier(emb, proba, agree, confidence=0.5, C=0.3, max_docs=60)
    np.testing.assert_array_equal(bounded[0], again[0])
