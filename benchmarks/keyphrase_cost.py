"""The keyphrase stage's time and peak memory, and what each remaining private BERTopic/scikit-learn hook buys.

One level of BERTopic's representation (``stages/represent.py:represent_topics``, as the tree stage runs it per
level) on real ICML 2013-2024 abstracts and their real embeddings (``_embedded.prepared("icml")``), tiled to each
size; nodes from k-means of the vectors, one node per ``--node-size`` papers (the finest level's 24). Each
measurement runs in a fresh process (``_measure.run_measured``): the stage's wall and CPU time, the process's
peak RSS and its RSS just before the stage (so the stage's own growth shows).

Keyphrase candidates are embedded by a stand-in (a seeded random vector a phrase, 384 dimensions): every
variant embeds the same distinct candidates once, so the model's time (the same in each) stays out of the
comparison; their count is in the table (times the model's phrase throughput, it is what the model adds).

Variants (``--variants``; each removes one hook, so its gain is that row against ``package``):

    package        the package as it is
    bertopic-keybert  BERTopic's own ``KeyBERTInspired`` instead of ``keybert_bounded.BoundedKeyBERT``
    keep-repr-docs    BERTopic's ``_save_representative_docs`` left in place (private hook 1)
    unjoined          topics' joined documents not announced to the n-gram counter (hook 2)
    sklearn-counts    scikit-learn's ``CountVectorizer`` code instead of ``NgramCountVectorizer`` (hook 3)

    python benchmarks/keyphrase_cost.py --sizes 5000 20000 --out benchmarks/results/keyphrase_cost.md
    # an older checkout, same script: PYTHONPATH=/path/to/old python benchmarks/keyphrase_cost.py --variants package
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

VARIANTS = ("package", "bertopic-keybert", "keep-repr-docs", "unjoined", "sklearn-counts")


def _stand_in(texts: list[str]):
    import numpy as np

    return (
        np.stack([np.random.default_rng(zlib.crc32(t.encode())).standard_normal(384).astype(np.float32) for t in texts])
        if texts
        else np.zeros((0, 384), np.float32)
    )


def _inputs(size: int, node_size: int):
    import numpy as np
    import pandas as pd
    from _embedded import prepared
    from sklearn.cluster import MiniBatchKMeans

    base = prepared("icml")
    vectors, rows = np.load(base.with_suffix(".npy")), pd.read_parquet(base.with_suffix(".parquet"))
    take = np.resize(np.arange(len(rows)), size)  # tiled: row i is paper i % 5,630
    texts, emb = rows["text"].to_numpy()[take].tolist(), vectors[take]
    labels = MiniBatchKMeans(n_clusters=max(2, size // node_size), random_state=0, n_init=1).fit_predict(emb)
    return texts, emb, labels.astype(np.int64)


def _apply(variant: str) -> None:
    """Switch one hook off in this process (the package is unchanged on disk)."""
    from icml_topics.stages import represent

    if variant == "bertopic-keybert":
        from bertopic.representation import KeyBERTInspired

        represent.bounded_keybert = lambda **kw: KeyBERTInspired(**kw)
    elif variant == "keep-repr-docs":
        from icml_topics.stages import private_names

        private_names.SWITCHED_OFF.add("BERTopic._save_representative_docs")
    elif variant == "unjoined":
        from icml_topics.stages import private_names

        private_names.SWITCHED_OFF.add(private_names.JOINED_DOCUMENTS)
    elif variant == "sklearn-counts":
        from icml_topics.stages import ngram_counts

        ngram_counts.SAFE_PATTERNS = frozenset()  # no settings take the numpy path: scikit-learn's code counts


def one(size: int, node_size: int, variant: str) -> dict:
    """Measure one variant at one size in this process."""
    import numpy as np
    from _measure import measure_call

    from icml_topics.stages.bertopic_import import import_bertopic
    from icml_topics.stages.represent import represent_topics

    import_bertopic()
    import bertopic.representation  # noqa: F401  # imports outside the timed stage

    texts, emb, labels = _inputs(size, node_size)
    _apply(variant)
    phrases: set[str] = set()

    def embed(batch: list[str]):
        phrases.update(batch)
        return _stand_in(batch)

    rep, cost = measure_call(represent_topics, texts, emb, labels, embed, min_df=2)
    return {
        "size": size,
        "variant": variant,
        "nodes": int(len(np.unique(labels))),
        "phrases_embedded": len(phrases),
        "wall_s": round(cost.wall_s, 2),
        "cpu_s": round(cost.cpu_s, 2),
        "rss_before_mib": round(cost.rss_before_mib),
        "peak_rss_mib": round(cost.peak_rss_mib),
        "keywords": {str(k): v for k, v in sorted(rep.keywords.items())},
    }


def _table(rows: list[dict]) -> str:
    lines = [
        "| size | nodes | variant | wall s | CPU s | peak RSS MiB | growth in the stage MiB | phrases embedded |"
        " same keywords as package |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        base = next(b for b in rows if b["size"] == r["size"] and b["variant"] == "package")
        same = sum(r["keywords"][k] == base["keywords"].get(k) for k in r["keywords"])
        lines.append(
            f"| {r['size']:,} | {r['nodes']:,} | {r['variant']} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} |"
            f" {r['peak_rss_mib']:,} | {r['peak_rss_mib'] - r['rss_before_mib']:,} | {r['phrases_embedded']:,} |"
            f" {same}/{len(r['keywords'])} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 20000])
    parser.add_argument("--node-size", type=int, default=24)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--out", type=Path, help="results .md (a .json beside it)")
    parser.add_argument("--one", nargs=3, metavar=("SIZE", "NODE_SIZE", "VARIANT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print("RESULT " + json.dumps(one(int(args.one[0]), int(args.one[1]), args.one[2])))
        return 0
    from _machine import git_state, machine_line
    from _measure import run_measured
    from _report import write_markdown

    rows = []
    log = Path(tempfile.mkdtemp()) / "one.log"
    for size in args.sizes:
        for variant in args.variants:
            cmd = [sys.executable, __file__, "--one", str(size), str(args.node_size), variant]
            run_measured(cmd, env=dict(os.environ), timeout=3600, log=log)
            text = log.read_text(encoding="utf-8", errors="replace")
            line = next(x for x in text.splitlines() if x.startswith("RESULT "))
            rows.append(json.loads(line[len("RESULT ") :]))
            print({k: v for k, v in rows[-1].items() if k != "keywords"}, flush=True)
    text = (
        f"# Keyphrase stage cost\n\n`python benchmarks/keyphrase_cost.py {' '.join(sys.argv[1:])}` on"
        f" {machine_line()}, code {git_state(HERE.parent)}. One level, nodes of {args.node_size} papers"
        " (k-means of the real vectors), ICML 2013-2024 tiled; candidates embedded by a stand-in (see the script)."
        "\n\n" + _table(rows) + "\n"
    )
    if args.out:
        write_markdown(args.out, [text], rows)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
