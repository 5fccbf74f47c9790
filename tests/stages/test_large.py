"""The large-corpus path on synthetic vectors: approximate kNN in the exact graph's format, stratified
sampling, the map's UMAP fitted on a sample with every other document placed, and TopicMap's switch."""

from __future__ import annotations

import zlib

import numpy as np

from icml_topics.fit_config import FitConfig
from icml_topics.fitting import neighbour_graph
from icml_topics.stages.large import (
    approximate_knn_graph,
    project_large,
    stratified_sample,
)
from icml_topics.stages.reduce import knn_graph


def clustered(n_clusters: int = 4, per: int = 150, dim: int = 32, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((n_clusters, dim))
    truth = np.repeat(np.arange(n_clusters), per)
    x = centres[truth] + 0.35 * rng.standard_normal((len(truth), dim))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32), truth


def test_approximate_knn_has_the_exact_graphs_format_and_finds_the_neighbours():
    x, _ = clustered()
    x = np.vstack([x, x[:5]])  # exact duplicates: the row itself must still come first
    exact_idx, exact_d = knn_graph(x, 10, approximate=False)
    idx, d = approximate_knn_graph(x, 10, random_state=0)
    assert idx.shape == exact_idx.shape and d.shape == exact_d.shape
    assert idx.dtype == exact_idx.dtype and d.dtype == exact_d.dtype
    assert (idx[:, 0] == np.arange(len(x))).all() and (d[:, 0] == 0).all()
    assert (np.diff(d[:, 1:], axis=1) >= 0).all()
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(idx, exact_idx)])
    assert recall > 0.9
    again = approximate_knn_graph(x, 10, random_state=0)
    assert np.array_equal(again[0], idx) and np.array_equal(again[1], d)
    np.testing.assert_allclose(d[:, 1:4], exact_d[:, 1:4], atol=2e-2)


def test_large_corpus_threshold_alone_decides_the_approximate_graph(monkeypatch):
    """The one rule (``FitConfig.is_large``) on 60,000 rows of random vectors: the fit asks for the
    approximate graph at ``large_corpus_threshold=100`` and for the exact one at 10**9."""
    import icml_topics.fitting as fitting

    rows = np.random.default_rng(0).standard_normal((60_000, 8)).astype(np.float32)
    low, high = (
        FitConfig.from_params({"large_corpus_threshold": 100}),
        FitConfig.from_params({"large_corpus_threshold": 10**9}),
    )
    assert low.is_large(len(rows)) and not high.is_large(len(rows))
    assert FitConfig.from_params({}).is_large(60_000)  # the default threshold (50,000) says large too
    # which graph the fit asks for on all 60,000 rows (building either takes minutes on 2 cores: the
    # exact one is quadratic), then both graphs built for real on 600 of the rows below
    asked: list[tuple[int, bool]] = []
    monkeypatch.setattr(fitting, "knn_graph", lambda x, k, approximate: asked.append((len(x), approximate)))
    neighbour_graph(rows, 10, low), neighbour_graph(rows, 10, high)
    assert asked == [(60_000, True), (60_000, False)]
    monkeypatch.undo()
    x = rows[:600] / np.linalg.norm(rows[:600], axis=1, keepdims=True)
    approx, exact = neighbour_graph(x, 10, low), neighbour_graph(x, 10, high)
    assert np.array_equal(exact[0], knn_graph(x, 10)[0]) and np.array_equal(exact[1], knn_graph(x, 10)[1])
    assert np.array_equal(approx[0], approximate_knn_graph(x, 10)[0])
    assert not np.array_equal(approx[0], exact[0])  # NN-descent misses some neighbours in 8 random dimensions


def test_stratified_sample_keeps_each_strata_share_and_small_strata():
    strata = np.array(["icml|2019"] * 700 + ["neurips|2018"] * 290 + ["icml|2026"] * 10)
    idx = stratified_sample(1000, 100, strata, random_state=1)
    assert len(idx) == 100 and len(set(idx.tolist())) == 100 and (np.diff(idx) > 0).all()
    values, counts = np.unique(strata[idx], return_counts=True)
    assert dict(zip(values, counts)) == {"icml|2019": 70, "neurips|2018": 29, "icml|2026": 1}
    assert np.array_equal(idx, stratified_sample(1000, 100, strata, random_state=1))
    assert len(stratified_sample(10, 50)) == 10


def test_project_large_fits_the_map_on_a_sample_and_places_every_document():
    x, truth = clustered(per=150)
    coords = project_large(x, n_neighbors=10, sample_size=200, random_state=0)
    assert coords.shape == (600, 2) and np.isfinite(coords).all()
    centres = np.stack([coords[truth == g].mean(axis=0) for g in range(4)])
    nearest = np.argmin(((coords[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
    assert (nearest == truth).mean() > 0.95  # placed papers land among their group's sampled ones
    np.testing.assert_array_equal(coords, project_large(x, n_neighbors=10, sample_size=200, random_state=0))


def test_topicmap_takes_the_large_map_path_from_its_threshold(monkeypatch):
    from icml_topics import TopicMap
    from icml_topics.fitting import map_coordinates
    from icml_topics.stages import large

    calls = []
    real = large.project_large
    monkeypatch.setattr(large, "project_large", lambda *a, **k: calls.append(k) or real(*a, **k))
    x, _ = clustered(per=100, dim=384)
    tm = TopicMap(large_corpus_threshold=300, sample_size=150, random_state=0, cache=False)
    coords = map_coordinates(x, FitConfig.from_params(tm.get_params()))
    assert coords.shape == (400, 2) and calls and calls[0]["sample_size"] == 150
    small = TopicMap(large_corpus_threshold=10**6, random_state=0, cache=False)
    assert map_coordinates(x, FitConfig.from_params(small.get_params())).shape == (400, 2) and len(calls) == 1


def test_represent_counts_all_papers_over_a_vocabulary_from_the_sample():
    from icml_topics.stages.represent import represent_topics

    a = [f"graph neural networks message passing node {i} oversmoothing graph neural networks" for i in range(30)]
    b = [f"diffusion models score matching denoising {i} sampler diffusion models" for i in range(30)]
    texts = a + b
    labels = np.array([0] * 30 + [1] * 30)
    rng = np.random.default_rng(0)
    emb = rng.standard_normal((60, 16)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)

    def embed_fn(items):  # synthetic vectors: the vocabulary, not the embedding model, is under test
        out = np.stack([np.random.default_rng(zlib.crc32(t.encode())).standard_normal(16) for t in items]).astype(
            np.float32
        )
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    sample = a[::3] + b[:2]  # the sample holds "diffusion" phrases only twice, no "denoising sampler" trigram variety
    rep = represent_topics(texts, emb, labels, embed_fn, n_keywords=5, min_df=2, vocabulary_from=sample)
    vocabulary = {w for t in sample for w in t.split()}
    assert rep.keywords and all(set(k.split()) <= vocabulary for ks in rep.keywords.values() for k in ks)
    assert sorted(set(rep.labels.tolist())) == [0, 1]


def test_every_level_reads_the_sample_vocabulary_of_one_count():
    """Issue 51: each level of a large corpus's tree counted the same sample's vocabulary again (3-4 levels at
    1M, tens of seconds each on 50,000 abstracts). The second level's vectorizer is not fitted; a changed
    sample or setting is counted afresh."""
    from icml_topics.stages.represent import make_vectorizer, sample_vocabulary

    sample = [f"graph neural networks message passing {i} diffusion models score matching" for i in range(12)]
    first = sample_vocabulary(make_vectorizer(500, 5), sample)
    again = make_vectorizer(500, 40)  # another level: another node count, the same settings
    second = sample_vocabulary(again, list(sample))
    assert second == first and "graph neural networks" in first
    assert not hasattr(again, "vocabulary_")  # answered from the first count
    other = make_vectorizer(500, 5)
    third = sample_vocabulary(other, [*sample[:-2], *["spiking neural networks for event cameras"] * 2])
    assert hasattr(other, "vocabulary_") and "spiking neural networks" in third
