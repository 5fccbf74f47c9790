"""Renaming and merging themes after a fit (``state.regroup``) decides each document as the renamed rule
does for a new document (``ThemeRule.assign``): on synthetic vectors, no shared data, no embedding model."""

from __future__ import annotations

import numpy as np
import pytest

from icml_topics.state import regroup
from icml_topics.themes.assign import ThemeRule, ThemeSettings

NAMES = ["Graphs", "Diffusion", "Time series"]
PHRASES = [["graph neural network", "message passing"], ["diffusion model", "score matching"], ["time series"]]


def _prototypes() -> tuple[np.ndarray, np.ndarray]:
    protos = np.zeros((6, 8), dtype=np.float32)
    for t in range(3):  # two prototypes per theme, each theme on its own axis
        protos[2 * t, t], protos[2 * t, 3 + t] = 1.0, 0.2
        protos[2 * t + 1, t], protos[2 * t + 1, 6] = 1.0, 0.2
    return protos / np.linalg.norm(protos, axis=1, keepdims=True), np.repeat(np.arange(3), 2)


def _corpus(seed: int = 3):
    """12 papers near each theme's axis, 4 between Diffusion and Time series, 3 far from every theme."""
    rng = np.random.default_rng(seed)
    rows = [np.eye(8, dtype=np.float32)[t] for t in range(3) for _ in range(12)]
    rows += [np.array([0, 0.8, 0.75, 0, 0, 0, 0, 0], np.float32) for _ in range(4)]
    rows += [np.eye(8, dtype=np.float32)[7] for _ in range(3)]
    emb = np.vstack(rows) + rng.normal(0, 0.08, (len(rows), 8)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    titles = [f"Paper {i}" for i in range(len(emb))]
    abstracts = ["We propose a method and evaluate it."] * len(emb)
    return emb, titles, abstracts


@pytest.fixture(scope="module")
def fitted():
    emb, titles, abstracts = _corpus()
    rule, docs = ThemeRule.fit(emb, titles, abstracts, _prototypes(), NAMES, PHRASES, ThemeSettings(doc_threshold=0.3))
    return emb, titles, abstracts, rule, docs


def _same(a, b) -> None:
    assert a.theme == b.theme and a.theme_2 == b.theme_2 and a.reason == b.reason
    np.testing.assert_allclose(a.score, b.score, atol=1e-5)
    np.testing.assert_allclose(a.score_2, b.score_2, atol=1e-5)


def test_the_corpus_has_papers_without_a_theme_and_papers_between_two(fitted):
    *_, docs = fitted
    assert docs.theme[-3:] == ["", "", ""] and all(r.startswith("no theme: ") for r in docs.reason[-3:])
    assert set(docs.theme[36:40]) <= {"Diffusion", "Time series"}


@pytest.mark.parametrize(
    "mapping",
    [
        {"Diffusion": "Generative", "Time series": "Generative"},
        {"Graphs": "Graph learning"},
        {"Graphs": "Time series"},  # merge into an existing theme
    ],
)
def test_regrouped_documents_are_what_the_renamed_rule_assigns(fitted, mapping):
    emb, titles, abstracts, rule, docs = fitted
    renamed = rule.renamed(mapping)
    out = regroup(docs, renamed, mapping)
    _same(out, renamed.assign(emb, titles, abstracts, reference=emb))
    gone = set(mapping) - set(mapping.values())
    assert not gone & (set(out.theme) | set(out.theme_2))


def test_merging_adds_the_probabilities_of_the_merged_themes(fitted):
    *_, rule, docs = fitted
    mapping = {"Diffusion": "Generative", "Time series": "Generative"}
    out = regroup(docs, rule.renamed(mapping), mapping)
    between = slice(36, 40)  # papers split between the two merged themes: now sure of the merged one
    assert out.theme[between] == ["Generative"] * 4
    expected = docs.proba[between, 1] + docs.proba[between, 2]  # columns of the fitted rule, added by hand
    np.testing.assert_allclose(out.score[between], expected, atol=1e-5)
    assert (out.score[between] > docs.score[between]).all()


def test_a_no_theme_reason_names_the_closest_theme_by_its_new_name(fitted):
    *_, rule, docs = fitted
    closest = {r.split("(")[1].split(")")[0] for r in docs.reason[-3:]}
    mapping = {name: name.upper() for name in closest}
    out = regroup(docs, rule.renamed(mapping), mapping)
    for before, after in zip(docs.reason[-3:], out.reason[-3:]):
        old = before.split("(")[1].split(")")[0]
        assert after == before.replace(f"({old})", f"({old.upper()})") and after != before
    assert np.isnan(out.score[-3:]).all() and out.theme[-3:] == ["", "", ""]
