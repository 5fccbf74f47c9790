"""The theme rule's evidence at scale: its memory grows with its ``(n_docs, n_themes)`` results, never with a
copy of the embeddings or of the ``(n_docs, neighbours, themes)`` votes (issue 51: the themes stage held
about 8 copies of the vectors at 1M papers), and the chunked computation gives exactly the one-shot values."""

from __future__ import annotations

import tracemalloc

import numpy as np

from icml_topics.themes import evidence as ev
from icml_topics.themes import head as head_module
from icml_topics.themes.assign import two_best
from icml_topics.themes.head import builtin_head

N_THEMES = 31  # the built-in taxonomy's


def _peak(fn, *args, **kwargs):
    """``fn``'s value and the peak of the memory it allocated (numpy's arrays included), in bytes."""
    tracemalloc.start()
    try:
        value = fn(*args, **kwargs)
        return value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _unit(rng, n: int, dim: int) -> np.ndarray:
    x = rng.standard_normal((n, dim), dtype=np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_neighbour_votes_never_build_the_votes_of_every_paper_at_once():
    rng = np.random.default_rng(0)
    n, k = 100_000, 15
    own = rng.dirichlet(np.ones(N_THEMES), n).astype(np.float32)
    idx = rng.integers(0, n, (n, k))
    sims = rng.uniform(0.0, 1.0, (n, k)).astype(np.float32)
    votes, peak = _peak(ev.neighbour_votes, idx, sims, own, floor=0.3, prior=1.0)
    # one shot: own[idx] alone is n * k * themes float32 (186 MB); the result is 12 MB
    assert peak < 4 * votes.nbytes, f"{peak / 2**20:.0f} MiB for a {votes.nbytes / 2**20:.0f} MiB result"
    w = np.clip(sims - 0.3, 0.0, None)
    expected = (np.einsum("nk,nkt->nt", w[:50], own[idx[:50]]) + 1.0 / N_THEMES) / (w[:50].sum(1, keepdims=True) + 1)
    np.testing.assert_allclose(votes[:50], expected, rtol=1e-5)
    assert votes.dtype == np.float32


def test_theme_centroids_add_float64_rows_a_chunk_at_a_time():
    rng = np.random.default_rng(1)
    n, dim = 60_000, 384
    emb = _unit(rng, n, dim)
    proba = rng.dirichlet(np.full(N_THEMES, 0.05), n).astype(np.float32)  # most papers confident
    prior_vectors = _unit(rng, N_THEMES, dim)
    centroids, peak = _peak(ev.theme_centroids, emb, proba, prior_vectors, confidence=0.5, prior=5.0)
    # one shot: the confident rows as float32, then float64, then weighted (about 5 copies of 92 MB)
    assert peak < emb.nbytes, f"{peak / 2**20:.0f} MiB for {emb.nbytes / 2**20:.0f} MiB of embeddings"
    best, p = proba.argmax(1), proba.max(1)
    keep = p >= 0.5
    assert keep.mean() > 0.5
    sums = np.stack(
        [(emb[keep & (best == t)].astype(np.float64) * p[keep & (best == t), None]).sum(0) for t in range(N_THEMES)]
    )
    mass = np.array([p[keep & (best == t)].sum() for t in range(N_THEMES)])
    means = sums / np.where(mass == 0, 1, mass)[:, None]
    means /= np.linalg.norm(means, axis=1, keepdims=True)
    blend = (mass[:, None] * means + 5.0 * prior_vectors) / (mass[:, None] + 5.0)
    np.testing.assert_allclose(centroids, blend / np.linalg.norm(blend, axis=1, keepdims=True), atol=1e-6)
    assert centroids.dtype == np.float32


def test_classifier_log_proba_keeps_to_its_result_and_chunks_give_the_same_values():
    rng = np.random.default_rng(2)
    n, dim = 200_000, 16
    x = rng.standard_normal((n, dim), dtype=np.float32)
    coef = rng.standard_normal((N_THEMES, dim), dtype=np.float32)
    intercept = rng.standard_normal(N_THEMES).astype(np.float32)
    intercept[3] = np.nan  # a theme it never saw
    logp, peak = _peak(ev.classifier_log_proba, x, coef, intercept)
    # one shot: the scores, their float64 copy and the softmax's three steps beside the 47 MB result
    assert peak < 1.5 * logp.nbytes, f"{peak / 2**20:.0f} MiB for a {logp.nbytes / 2**20:.0f} MiB result"
    z = (x[-40:] @ coef[np.isfinite(intercept)].T + intercept[np.isfinite(intercept)]).astype(np.float64)
    e = np.exp(z - z.max(1, keepdims=True))
    expected = np.full((40, N_THEMES), 1e-3)
    expected[:, np.isfinite(intercept)] = e / e.sum(1, keepdims=True)
    expected /= expected.sum(1, keepdims=True)
    np.testing.assert_allclose(logp[-40:], np.log(expected), rtol=1e-6, atol=1e-9)


def test_the_builtin_head_weighs_a_chunk_of_papers_at_a_time_with_the_same_logits(monkeypatch):
    monkeypatch.setattr(head_module, "WORD_CHUNK", 2_000)  # a small chunk: a small test shows the bound
    head = builtin_head()
    assert head is not None and head.words is not None
    rng = np.random.default_rng(3)
    n = 20_000
    emb = _unit(rng, n, head.coef.shape[1])
    evidence = {c: rng.standard_normal((n, N_THEMES)).astype(np.float32) for c in ("prototypes", "title_terms")}
    evidence.update({c: rng.standard_normal((n, N_THEMES)).astype(np.float32) for c in ("abstract_terms", "centroids")})
    evidence.update(neighbours=np.log(rng.dirichlet(np.ones(N_THEMES), n)).astype(np.float32))
    evidence.update(self_trained=np.log(rng.dirichlet(np.ones(N_THEMES), n)))
    words = ["graph neural network", "diffusion model", "reinforcement learning policy", "kernel method"]
    titles = [words[i % 4] for i in range(n)]
    abstracts = [f"We study {words[(i + 1) % 4]} and {words[i % 4]}." for i in range(n)]
    logits, peak = _peak(head.logits, evidence, emb, titles, abstracts)
    # one shot: the 8 evidence columns as float64, their stack (40 MB each) and the normalised embeddings
    assert peak < 6 * logits.nbytes, f"{peak / 2**20:.0f} MiB for a {logits.nbytes / 2**20:.0f} MiB result"
    part = slice(n - 30, n)  # the last chunk's papers, weighed on their own
    alone = head.logits({c: v[part] for c, v in evidence.items()}, emb[part], titles[part], abstracts[part])
    np.testing.assert_allclose(logits[part], alone, rtol=1e-5)  # float32 products: a few ulps by chunk size


def test_the_two_best_themes_are_ranked_like_a_full_stable_sort_a_chunk_at_a_time():
    rng = np.random.default_rng(4)
    proba = rng.dirichlet(np.ones(N_THEMES), 100_000)
    proba[::7, :4] = 0.25  # ties: the first column wins, as in a stable sort
    order, peak = _peak(two_best, proba)
    # a full ranking would hold -proba (float64) and the (n, themes) int64 order: 2 x 24 MB
    assert peak < proba.nbytes / 4
    best = proba.argmax(axis=1)  # the first of the largest
    assert np.array_equal(order[:, 0], best)
    rest = proba.copy()
    rest[np.arange(len(rest)), best] = -1.0
    assert np.array_equal(order[:, 1], rest.argmax(axis=1))
    assert order[0].tolist() == [0, 1]
