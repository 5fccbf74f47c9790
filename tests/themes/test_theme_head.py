"""The supervised theme head: what it learns, that it travels with the rule, and where it applies."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conftest import THEME_NAMES as NAMES
from conftest import THEME_PHRASES as PHRASES
from conftest import theme_corpus, theme_prototypes

from icml_topics.embedding.models import DEFAULT_MODEL_NAME
from icml_topics.fitting import supervised_head
from icml_topics.themes import Taxonomy
from icml_topics.themes.assign import ThemeRule, ThemeSettings
from icml_topics.themes.head import COMPONENTS, ThemeHead, builtin_head, train_head

SYNTHETIC = Taxonomy.from_dict({n: {"description": f"{n} papers", "seeds": p} for n, p in zip(NAMES, PHRASES)})


def _synthetic(n: int, seed: int):
    """Evidence where only the title terms tell the theme; the rest is noise."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    evidence = {c: rng.normal(0, 1, (n, 3)) for c in COMPONENTS}
    evidence["title_terms"] = np.eye(3)[y] * 2.0 + rng.normal(0, 0.3, (n, 3))
    emb = rng.normal(0, 1, (n, 8)).astype(np.float32)
    return evidence, emb, y


def test_the_head_learns_which_evidence_tells_the_theme_and_is_deterministic():
    evidence, emb, y = _synthetic(300, seed=0)
    head = train_head(evidence, emb, y, SYNTHETIC, "m", per_theme=False)
    title = COMPONENTS.index("title_terms")
    noise = [k for k, c in enumerate(COMPONENTS) if c != "title_terms"]
    assert head.weights[:, title].min() > 5 * np.abs(head.weights[:, noise]).max()
    test_evidence, test_emb, test_y = _synthetic(150, seed=1)
    assert (head.logits(test_evidence, test_emb).argmax(axis=1) == test_y).mean() > 0.95
    again = train_head(evidence, emb, y, SYNTHETIC, "m", per_theme=False)
    np.testing.assert_array_equal(head.weights, again.weights)
    np.testing.assert_array_equal(head.coef, again.coef)


def test_a_head_round_trips_and_refuses_evidence_it_was_not_trained_for(tmp_path):
    evidence, emb, y = _synthetic(90, seed=2)
    head = train_head(evidence, emb, y, SYNTHETIC, "m")
    head.save(tmp_path / "head.npz")
    with np.load(tmp_path / "head.npz", allow_pickle=False) as arrays:
        back = ThemeHead.from_arrays(dict(arrays))
    assert (
        back.names == tuple(NAMES) and back.n_labels == 90 and back.fits(SYNTHETIC, 8) and not back.fits(SYNTHETIC, 384)
    )
    np.testing.assert_allclose(back.logits(evidence, emb), head.logits(evidence, emb), rtol=1e-4, atol=1e-4)
    arrays = head.to_arrays()
    arrays["meta"] = np.array(str(arrays["meta"]).replace("self_trained", "something_else"))
    with pytest.raises(ValueError, match="retrain it"):
        ThemeHead.from_arrays(arrays)


def test_a_rule_with_a_head_places_fitted_papers_again_the_same_after_saving():
    emb, titles, abstracts, truth = theme_corpus(seed=3)
    plain, _ = ThemeRule.fit(emb, titles, abstracts, theme_prototypes(), NAMES, PHRASES)
    evidence = plain.evidence(emb, titles, abstracts, reference=emb)
    head = train_head(evidence, emb, np.array([NAMES.index(t) for t in truth]), SYNTHETIC, "m")
    rule, docs = ThemeRule.fit(emb, titles, abstracts, theme_prototypes(), NAMES, PHRASES, head=head)
    assert rule.head is head and np.mean([a == b for a, b in zip(docs.theme, truth)]) > 0.9
    restored = ThemeRule.from_state(*rule.to_state())
    assert restored.head is not None and restored.head.n_labels == len(truth)
    np.testing.assert_allclose(restored.assign(emb, titles, abstracts, reference=emb).proba, docs.proba, atol=1e-6)


def test_the_builtin_head_is_trained_for_the_builtin_taxonomy_and_default_model():
    head = builtin_head()
    assert head is not None and head.model == DEFAULT_MODEL_NAME
    assert head.fits(Taxonomy.default(), 384) and head.n_labels >= 10_000  # else: retrain (train_theme_head.py)
    assert np.isfinite(head.intercept).all() and np.isfinite(head.word_intercept).all()  # every theme was labelled
    assert len(head.words.vocabulary) == head.word_coef.shape[1] > 5_000 and "graph neural" in head.words.vocabulary
    # its terms are keys of icml_topics.text.term_keys: "noise" and "supervised" are not spelt -iz-
    assert {"noise", "denoising", "unsupervised", "pairwise"} <= set(head.words.vocabulary)
    assert not [t for t in head.words.vocabulary if "noiz" in t or "superviz" in t]


def test_the_head_applies_only_where_it_was_trained_and_when_wanted():
    default, settings = Taxonomy.default(), ThemeSettings()
    assert supervised_head(default, settings, {}, 384) is not None
    assert supervised_head(default, settings, {"embedding_model": "all-MiniLM-L6-v2"}, 384) is not None
    assert supervised_head(default, dataclasses.replace(settings, supervised_head=False), {}, 384) is None
    assert supervised_head(default, settings, {"embedding_model": "/elsewhere/other-model"}, 384) is None
    assert supervised_head(default, settings, {}, 768) is None
    custom = Taxonomy.from_dict({"Graphs": ["graph neural network"], "Vision": ["image classification"]})
    assert supervised_head(custom, settings, {}, 384) is None
    data = default.to_dict()
    next(iter(data["themes"]))["seeds"].append("quantum circuits")  # an edited built-in taxonomy
    assert supervised_head(Taxonomy.from_dict(data), settings, {}, 384) is None
    assert supervised_head(default.rename("Fairness", "Fairness & society"), settings, {}, 384) is None


def _worded(n: int, seed: int):
    """Evidence and embeddings that are pure noise; only a word of the abstract tells the theme."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    evidence = {c: rng.normal(0, 1, (n, 3)) for c in COMPONENTS}
    emb = rng.normal(0, 1, (n, 8)).astype(np.float32)
    cue = ["wavelet", "genome", "auction"]
    filler = ["study", "method", "result", "experiment", "benchmark", "approach"]
    abstracts = [f"We {cue[t]} the {' '.join(rng.choice(filler, 4))}." for t in y]
    titles = [f"On {' '.join(rng.choice(filler, 2))}" for _ in y]
    return evidence, emb, y, titles, abstracts


def test_a_head_with_words_learns_a_theme_only_the_words_tell_and_round_trips(tmp_path):
    evidence, emb, y, titles, abstracts = _worded(240, seed=4)
    plain = train_head(evidence, emb, y, SYNTHETIC, "m", per_theme=False)
    head = train_head(evidence, emb, y, SYNTHETIC, "m", titles=titles, abstracts=abstracts, word_C=4.0, per_theme=False)
    assert (
        head.words is not None and "wavelet" in head.words.vocabulary and head.weights.shape[1] == len(COMPONENTS) + 2
    )
    e2, m2, y2, t2, a2 = _worded(120, seed=5)
    assert (head.logits(e2, m2, t2, a2).argmax(axis=1) == y2).mean() > 0.95
    assert (plain.logits(e2, m2).argmax(axis=1) == y2).mean() < 0.6  # embeddings and evidence alone cannot
    with pytest.raises(ValueError, match="titles and abstracts"):
        head.logits(e2, m2)
    head.save(tmp_path / "head.npz")
    with np.load(tmp_path / "head.npz", allow_pickle=False) as arrays:
        back = ThemeHead.from_arrays(dict(arrays))
    assert back.words.vocabulary == head.words.vocabulary
    np.testing.assert_allclose(back.logits(e2, m2, t2, a2), head.logits(e2, m2, t2, a2), rtol=1e-2, atol=1e-2)
    again = train_head(
        evidence, emb, y, SYNTHETIC, "m", titles=titles, abstracts=abstracts, word_C=4.0, per_theme=False
    )
    np.testing.assert_array_equal(head.word_coef, again.word_coef)
    with pytest.raises(ValueError, match="titles and abstracts"):
        train_head(evidence, emb, y, SYNTHETIC, "m", word_C=4.0)
