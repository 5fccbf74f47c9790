"""Memory of one tree level's keyphrases (``fit_tree.represent`` as a large fit runs it) on ``scaling.py``'s tiled
vectors, with this code or with the two memory changes of issue 51 undone (``--variant before``).

``before``: the representative documents' samples counted as one matrix (``REPRESENTATIVE_CHUNK`` unbounded) and
the announced joined topics kept as joined strings (``expect_joined`` as it was). ``after``: the code as it is.
Nodes: each paper's nearest of ``n / node_size`` of the corpus's own vectors (one matrix product; the tree's own
nodes are not needed for the memory of the counting). Run each variant in its own process: the peak RSS is the
process's high-water mark (``_measure.measure_call``); the keyphrases' digest shows both give the same.

    python benchmarks/represent_memory.py --work /work/s8-scale --n 50000 --variant before
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from _machine import cpu_model  # noqa: E402


def _undo_changes() -> None:
    """The keyphrase code as before: one count matrix of every node's sample, joined topics kept as strings."""
    import icml_topics.stages.keybert_bounded as kb
    from icml_topics.stages.ngram_counts import NgramCountVectorizer

    inner = kb.representative_docs

    def one_matrix(*args, **kwargs):
        return inner(*args, **{**kwargs, "chunk_docs": 10**12})

    kb.representative_docs = one_matrix

    def expect_joined(self, pieces):
        self._kept = {" ".join(p): tuple(p) for p in pieces}
        self._joins = {"": [()]}  # not empty: the counters look the pieces up
        return self

    def joined_pieces(self, doc):
        return getattr(self, "_kept", {}).get(doc)

    NgramCountVectorizer.expect_joined = expect_joined
    NgramCountVectorizer.joined_pieces = joined_pieces


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", type=Path, required=True, help="scaling.py's --work folder (its base.npy, base.parquet)")
    p.add_argument("--n", type=int, default=50_000)
    p.add_argument("--node-size", type=int, default=20)
    p.add_argument("--variant", choices=("before", "after"), default="after")
    p.add_argument("--out", type=Path, default=None, help="append the result (one json line) to this file")
    args = p.parse_args()

    import scaling
    from _measure import measure_call

    from icml_topics.fit_config import FitConfig
    from icml_topics.fit_tree import represent

    if args.variant == "before":
        _undo_changes()
    emb, table = scaling.synthetic(args.work, args.n)
    texts = table["text"].tolist()
    centres = emb[:: args.node_size]
    labels = np.concatenate(
        [np.argmax(emb[i : i + 20_000] @ centres.T, axis=1) for i in range(0, len(emb), 20_000)]
    ).astype(np.int64)
    config = FitConfig.from_params({"random_state": 42, "cache": False})
    from icml_topics.stages.represent import passthrough_bertopic

    passthrough_bertopic(labels[:2], scaling.stand_in_embed, None, n_docs=2)  # the libraries imported before
    rep, cost = measure_call(represent, texts, emb, labels, scaling.stand_in_embed, config)
    digest = hashlib.sha256(json.dumps(sorted(rep.keywords.items())).encode()).hexdigest()[:16]
    row = {
        "n": args.n,
        "nodes": len(set(labels.tolist())),
        "variant": args.variant,
        "cpu_s": round(cost.cpu_s, 1),
        "wall_s": round(cost.wall_s, 1),
        "rss_before_mib": round(cost.rss_before_mib),
        "peak_rss_mib": round(cost.peak_rss_mib),
        "growth_mib": round(cost.peak_rss_mib - cost.rss_before_mib),
        "keyphrases_digest": digest,
        "machine": cpu_model(),
    }
    print(json.dumps(row), flush=True)
    if args.out is not None:
        with args.out.open("a") as f:
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
