"""``neighbours_among`` partitions only the columns that can hold a row's nearest (issue 50, speed): its
neighbours are those of the whole-row partition it replaced, ties at the k-th place included."""

import numpy as np
import pytest

from icml_topics.themes.evidence import neighbours_among


def _whole_rows(reference, emb, k, skip_self):
    """The definition before the change: every row partitioned whole (copied from 8fc06f4)."""
    n_ref = len(reference)
    k_eff = min(k + (1 if skip_self else 0), n_ref)
    idx = np.zeros((len(emb), k), dtype=np.int64)
    sim = np.full((len(emb), k), -np.inf, dtype=np.float32)
    for start in range(0, len(emb), 2048):
        s = emb[start : start + 2048] @ reference.T
        part = np.argpartition(-s, k_eff - 1, axis=1)[:, :k_eff]
        ps = np.take_along_axis(s, part, axis=1)
        order = np.lexsort((part, -ps), axis=1)
        part, ps = np.take_along_axis(part, order, axis=1), np.take_along_axis(ps, order, axis=1)
        if skip_self:
            is_self = ps[:, 0] >= 0.99999
            part = np.where(is_self[:, None], np.roll(part, -1, axis=1), part)
            ps = np.where(is_self[:, None], np.roll(ps, -1, axis=1), ps)
            ps[is_self, -1] = -np.inf
        idx[start : start + len(s), :k] = part[:, :k]
        sim[start : start + len(s), :k] = ps[:, :k]
    return idx, sim


def _unit(x):
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize("skip_self", [True, False])
def test_neighbours_equal_the_whole_row_partition(skip_self):
    rng = np.random.default_rng(0)
    ref = _unit(rng.normal(size=(3000, 24)))
    ref[2000:2400] = ref[:400]  # exact duplicates: ties at every place, the k-th included
    ref[2400:2410] = ref[5]  # eleven copies of one row: a tie that straddles the k-th place
    ref[1024:1100] = -ref[1024:1100]
    emb = np.concatenate([ref[:2100], _unit(rng.normal(size=(300, 24)))])
    got = neighbours_among(ref, emb, 15, skip_self=skip_self)
    want = _whole_rows(ref, emb, 15, skip_self)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_rows_whose_probe_is_far_take_the_whole_row():
    """Rows whose first columns are all far from them have thousands of candidates: partitioned whole."""
    rng = np.random.default_rng(1)
    ref = _unit(rng.normal(size=(6000, 8)))
    ref[:1024] = _unit(np.abs(rng.normal(size=(1024, 8))))  # the probe columns all in one orthant
    emb = -ref[:50]  # the opposite orthant: almost every column beats the probe's 16th best
    got = neighbours_among(ref, emb, 15, skip_self=False)
    want = _whole_rows(ref, emb, 15, False)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def _nearest_whole_rows(ref, queries, k, present=None):
    """``novel_papers._nearest`` before the change (copied from 8fc06f4): every row partitioned whole."""
    out = np.empty((len(queries), k), dtype=np.int64)
    for start in range(0, len(queries), 1024):
        chunk = queries[start : start + 1024]
        sims = ref[chunk] @ ref.T
        sims[np.arange(len(chunk)), chunk] = -np.inf
        if present is not None:
            sims[:, ~present] = -np.inf
        part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        order = np.argsort(-np.take_along_axis(sims, part, axis=1), axis=1, kind="stable")
        out[start : start + 1024] = np.take_along_axis(part, order, axis=1)
    return out


def test_novel_papers_neighbours_equal_the_whole_row_partition():
    """The new-subject stage's neighbour lists, whose order among equal values was the partition's: rows
    with ties near the top keep the whole-row partition, the others get the same lists."""
    from icml_topics.stages.novel_papers import MARGIN, Neighbours

    rng = np.random.default_rng(2)
    emb = _unit(rng.normal(size=(3000, 16)))
    emb[2000:] = _unit(rng.integers(0, 3, size=(1000, 16)).astype(np.float32) + 0.01)  # ties near the top
    index = Neighbours.of(emb, np.arange(3000), np.ones(3000), 20)
    width = 20 + MARGIN
    np.testing.assert_array_equal(index.near, _nearest_whole_rows(index.ref, np.arange(3000), width))
