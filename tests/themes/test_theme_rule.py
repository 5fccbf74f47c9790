"""The theme rule on synthetic vectors and texts: own evidence, phrases, runner-up, topics, transform == fit.

No shared data and no embedding model: prototypes and documents are hand-made unit vectors.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import THEME_NAMES as NAMES
from conftest import THEME_PHRASES as PHRASES
from conftest import theme_corpus as _corpus
from conftest import theme_prototypes as _prototypes
from conftest import unit_vector as _unit

from icml_topics.text import term_keys
from icml_topics.themes.assign import ThemeRule, ThemeSettings
from icml_topics.themes.lexical import (
    build_lexicon,
    count_terms,
    lexical_evidence,
    term_weights,
)
from icml_topics.themes.topics import topic_themes


def test_spelling_variants_and_acronyms_are_one_phrase():
    assert term_keys("Optimisation of GNNs") == term_keys("optimization of GNN")
    lex = build_lexicon([["self-supervised learning", "non-convex"], ["graph neural network"]])
    counts = count_terms(
        lex,
        [
            "Self supervised learning",
            "A selfsupervised learning view",
            "nonconvex losses",
            "Graph Neural Networks",
            "graphs",
        ],
    ).toarray()
    found = counts.sum(axis=1)
    assert found.tolist() == [1, 1, 1, 1, 0]


def test_a_title_phrase_outweighs_the_same_phrase_in_the_abstract():
    lex = build_lexicon(PHRASES)
    title = count_terms(lex, ["Diffusion models for graphs", "A study"])
    abstract = count_terms(lex, ["", "We use a diffusion model."])
    weights = term_weights(title + abstract)
    ev = lexical_evidence(lex, title, abstract, weights, title_weight=2.0)
    assert ev[0, 1] > ev[1, 1] > 0
    assert ev[0, 2] == 0 and ev[1, 0] == 0


def test_documents_take_their_own_theme_with_a_probability_and_a_runner_up():
    emb, titles, abstracts, truth = _corpus()
    _rule, docs = ThemeRule.fit(emb, titles, abstracts, _prototypes(), NAMES, PHRASES)
    assert docs.theme == truth
    assert np.all((docs.score > 0.5) & (docs.score <= 1.0))
    assert all(a != b for a, b in zip(docs.theme, docs.theme_2))
    assert np.all(docs.score_2 <= docs.score)
    np.testing.assert_allclose(docs.proba.sum(axis=1), 1.0, rtol=1e-5)


def test_a_title_that_names_a_theme_moves_an_ambiguous_paper():
    emb, titles, abstracts, _ = _corpus()
    between = _unit(1, 1)  # as close to Graphs as to Diffusion
    titles_a = titles + ["Score matching with diffusion models"]
    titles_b = titles + ["Message passing in graph neural networks"]
    emb2 = np.vstack([emb, between])
    _, a = ThemeRule.fit(emb2, titles_a, abstracts + [""], _prototypes(), NAMES, PHRASES)
    _, b = ThemeRule.fit(emb2, titles_b, abstracts + [""], _prototypes(), NAMES, PHRASES)
    assert a.theme[-1] == "Diffusion" and b.theme[-1] == "Graphs"
    assert {a.theme_2[-1], b.theme_2[-1]} == {"Graphs", "Diffusion"}


def test_assigning_the_fitted_documents_again_gives_the_fit_exactly():
    emb, titles, abstracts, _ = _corpus(seed=3)
    rule, docs = ThemeRule.fit(emb, titles, abstracts, _prototypes(), NAMES, PHRASES)
    again = rule.assign(emb, titles, abstracts, reference=emb)
    assert again.theme == docs.theme and again.theme_2 == docs.theme_2
    np.testing.assert_allclose(again.score, docs.score, atol=1e-6)
    restored = ThemeRule.from_state(*rule.to_state())
    np.testing.assert_allclose(restored.assign(emb, titles, abstracts, reference=emb).proba, docs.proba, atol=1e-6)


def test_a_mixed_cluster_does_not_drag_its_papers_along():
    emb, titles, abstracts, truth = _corpus()
    labels = np.zeros(len(emb), dtype=np.int64)  # cluster 0: the Graphs papers
    labels[12:] = 1  # cluster 1: a mixed one, Diffusion and Time series papers half and half
    rule, docs = ThemeRule.fit(emb, titles, abstracts, _prototypes(), NAMES, PHRASES)
    topic_theme, _score, purity = topic_themes(labels, docs, rule, {0: ["graph"], 1: ["mixed"]})
    assert docs.theme == truth  # every paper keeps its own theme
    assert topic_theme[0] == "Graphs" and purity[0] == 1.0
    assert topic_theme[1] in {"Diffusion", "Time series"}
    assert purity[1] == pytest.approx(0.5)


def test_a_document_with_no_evidence_gets_no_theme_and_says_why():
    emb, titles, abstracts, _ = _corpus()
    far = np.zeros(8, dtype=np.float32)
    far[7] = 1.0  # orthogonal to every prototype, no phrase
    _rule, docs = ThemeRule.fit(
        np.vstack([emb, far]), titles + ["Something else"], abstracts + ["Nothing here."], _prototypes(), NAMES, PHRASES
    )
    assert docs.theme[-1] == "" and docs.reason[-1].startswith("no theme")
    assert np.isnan(docs.score[-1])


def test_the_rule_is_deterministic_and_merging_adds_probabilities():
    emb, titles, abstracts, _ = _corpus(seed=5)
    r1, d1 = ThemeRule.fit(emb, titles, abstracts, _prototypes(), NAMES, PHRASES, ThemeSettings())
    _, d2 = ThemeRule.fit(emb, titles, abstracts, _prototypes(), NAMES, PHRASES, ThemeSettings())
    np.testing.assert_array_equal(d1.proba, d2.proba)
    merged = r1.renamed({"Diffusion": "Generative", "Time series": "Generative"})
    out = merged.assign(emb, titles, abstracts, reference=emb)
    assert set(out.theme) == {"Graphs", "Generative"}
    theme, _, purity = topic_themes(np.zeros(len(emb), dtype=np.int64), out, merged, {0: ["x"]})
    assert theme[0] == "Generative" and purity[0] == pytest.approx(24 / 36)


def test_the_self_trained_classifier_learns_from_confident_agreeing_papers_only():
    from icml_topics.themes.evidence import (
        classifier_log_proba,
        self_trained_classifier,
    )

    rng = np.random.default_rng(0)
    emb = np.vstack([np.eye(4, dtype=np.float32)[t % 2] + rng.normal(0, 0.1, 4).astype(np.float32) for t in range(60)])
    proba = np.zeros((60, 3), dtype=np.float32)
    proba[np.arange(60), np.arange(60) % 2] = 0.9  # themes 0 and 1 confidently; theme 2 never
    proba[:, 2] = 0.1
    agree = np.ones(60, dtype=bool)
    agree[:10] = False  # disagreeing papers do not train it
    coef, intercept = self_trained_classifier(emb, proba, agree, confidence=0.5, C=1.0)
    assert np.isnan(intercept[2]) and not coef[2].any()  # a theme with no confident paper is not learnt
    logp = classifier_log_proba(np.eye(4, dtype=np.float32)[:2], coef, intercept)
    assert logp.argmax(axis=1).tolist() == [0, 1]
    assert np.exp(logp[:, 2]).max() < 0.01  # the unseen theme is unlikely, not impossible
    np.testing.assert_allclose(np.exp(logp).sum(axis=1), 1.0, rtol=1e-6)
    assert self_trained_classifier(emb[:20], proba[:20], agree[:20], confidence=0.5, C=1.0) is None  # too few papers


def test_the_self_trained_classifier_is_saved_and_reproduced_by_transform():
    emb, titles, abstracts, truth = _corpus(n_per_theme=30, seed=7)
    rule, docs = ThemeRule.fit(emb, titles, abstracts, _prototypes(), NAMES, PHRASES)
    assert rule.classifier_coef is not None and rule.classifier_coef.shape == (3, 8)
    assert docs.theme == truth
    restored = ThemeRule.from_state(*rule.to_state())
    again = restored.assign(emb, titles, abstracts, reference=emb)
    assert again.theme == docs.theme and again.theme_2 == docs.theme_2
    np.testing.assert_allclose(again.proba, docs.proba, atol=1e-6)
    off, _ = ThemeRule.fit(emb, titles, abstracts, _prototypes(), NAMES, PHRASES, ThemeSettings(self_train_weight=0.0))
    assert off.classifier_coef is None and "classifier_coef" not in off.to_state()[1]
