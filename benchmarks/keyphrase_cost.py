"""The keyphrase stage's time and peak memory, and what each remaining private BERTopic/scikit-learn hook buys.

BERTopic's representation (``stages/represent.py:represent_topics``) of each level of a nested tree, as the tree
stage runs it (``fit_tree.represent``: from ``LARGE_CORPUS`` papers the vocabulary from a sample of at most
``SAMPLE_SIZE`` papers, and then at most ``keybert_bounded.MAX_CANDIDATES`` candidates a level), on real abstracts
and their real embeddings, tiled to each size: ICML 2013-2024 (``_embedded.prepared("icml")``), or with
``--base DIR`` the real vectors ``scaling.py`` prepared (``DIR/base.npy``, ``DIR/base.parquet``: 20,842 distinct
ICML, NeurIPS and ICLR abstracts). Levels (``--node-sizes``, coarsest first; default one level of 24 papers a
node): the finest from k-means of the vectors, each coarser one from k-means of its children's centroids, so the
levels nest. Each measurement runs in a fresh process (``_measure.run_measured``): the stage's wall and CPU time
(every level), the process's peak RSS and its RSS just before the stage (so the stage's own growth shows).

Keyphrase candidates are embedded by a stand-in (a seeded random vector a phrase, 384 dimensions) that remembers
what it embedded, as the fit's embedding cache does across levels and runs: *phrases embedded* is the distinct
texts over all levels (what a fit with a cold cache sends to the model), *most a level* the largest level's
count. The model's time stays out of the CPU column; ``--model-rate`` measures the model's throughput on the
candidate phrases (the fit's embedding path) so the table can give what the model would add.

Variants (``--variants``; each removes one hook, so its gain is that row against ``package``):

    package        the package as it is
    unbounded      no ``MAX_CANDIDATES`` (every node's candidates embedded, as before it; the same as ``package``
                   below ``LARGE_CORPUS`` papers)
    bertopic-keybert  BERTopic's own ``KeyBERTInspired`` instead of ``keybert_bounded.BoundedKeyBERT``
    keep-repr-docs    BERTopic's ``_save_representative_docs`` left in place (private hook 1)
    unjoined          topics' joined documents not announced to the n-gram counter (hook 2)
    sklearn-counts    scikit-learn's ``CountVectorizer`` code instead of ``NgramCountVectorizer`` (hook 3)

    python benchmarks/keyphrase_cost.py --sizes 5000 20000 --out benchmarks/results/keyphrase_cost.md
    python benchmarks/keyphrase_cost.py --base /tmp/s6-run --sizes 10000 50000 --node-sizes 400 90 20 \
        --variants package unbounded --model-rate --out benchmarks/results/keyphrase_bound.md
    # an older checkout, same script: PYTHONPATH=/path/to/old python benchmarks/keyphrase_cost.py --variants package
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

VARIANTS = ("package", "unbounded", "bertopic-keybert", "keep-repr-docs", "unjoined", "sklearn-counts")


def _stand_in(texts: list[str]):
    import numpy as np

    return (
        np.stack([np.random.default_rng(zlib.crc32(t.encode())).standard_normal(384).astype(np.float32) for t in texts])
        if texts
        else np.zeros((0, 384), np.float32)
    )


def _rows(base: str | None):
    """The base's texts and their vectors: ICML 2013-2024, or ``scaling.py``'s prepared base."""
    import numpy as np
    import pandas as pd

    if base:
        folder = Path(base)
        return pd.read_parquet(folder / "base.parquet")["text"].to_numpy(), np.load(folder / "base.npy")
    from _embedded import prepared

    path = prepared("icml")
    return pd.read_parquet(path.with_suffix(".parquet"))["text"].to_numpy(), np.load(path.with_suffix(".npy"))


def _inputs(size: int, node_sizes: list[int], base: str | None = None):
    """Texts, vectors and nested labels ``(size, levels)``, finest first, tiled from the base to ``size``."""
    import numpy as np
    from sklearn.cluster import KMeans, MiniBatchKMeans

    all_texts, vectors = _rows(base)
    take = np.resize(np.arange(len(all_texts)), size)  # tiled: row i is paper i % base size
    texts, emb = all_texts[take].tolist(), vectors[take]
    sizes = sorted(node_sizes)  # finest first
    finest = MiniBatchKMeans(n_clusters=max(2, size // sizes[0]), random_state=0, n_init=1).fit_predict(emb)
    levels = [finest.astype(np.int64)]
    for node_size in sizes[1:]:
        below = levels[-1]
        ids, inverse = np.unique(below, return_inverse=True)
        centroids = np.stack([emb[below == i].mean(axis=0) for i in ids])
        k = min(len(ids) - 1, max(2, size // node_size))
        parent = KMeans(n_clusters=k, random_state=0, n_init=1).fit_predict(centroids)
        levels.append(parent[inverse].astype(np.int64))
    return texts, emb, np.stack(levels, axis=1)


def _apply(variant: str) -> None:
    """Switch one hook off in this process (the package is unchanged on disk)."""
    from icml_topics.stages import represent

    if variant == "unbounded":
        represent.MAX_CANDIDATES = None  # read at each call (an older checkout has no such constant)
    elif variant == "bertopic-keybert":
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


def _represent_levels(texts, emb, labels, embed):
    """``represent_topics`` of each level as ``fit_tree.represent`` calls it (without its cache)."""
    from icml_topics.parameters import LARGE_CORPUS, SAMPLE_SIZE
    from icml_topics.stages import size_aware_defaults
    from icml_topics.stages.represent import represent_topics

    large = len(texts) >= LARGE_CORPUS
    sample = texts[:: -(-len(texts) // SAMPLE_SIZE)] if large else None
    min_df = size_aware_defaults(len(texts)).min_df
    return [
        represent_topics(texts, emb, labels[:, lv], embed, vocabulary_from=sample, min_df=min_df)
        for lv in range(labels.shape[1])
    ]


def one(size: int, node_sizes: list[int], variant: str, base: str | None = None) -> dict:
    """Measure one variant at one size in this process."""
    import numpy as np
    from _measure import measure_call

    from icml_topics.stages.bertopic_import import import_bertopic

    import_bertopic()
    import bertopic.representation  # noqa: F401  # imports outside the timed stage

    texts, emb, labels = _inputs(size, node_sizes, base)
    _apply(variant)
    phrases: set[str] = set()
    per_call: list[int] = []

    def embed(batch: list[str]):
        fresh = [t for t in dict.fromkeys(batch) if t not in phrases]  # the cache's answer: only new texts
        phrases.update(fresh)
        per_call.append(len(fresh))
        return _stand_in(batch)

    reps, cost = measure_call(_represent_levels, texts, emb, labels, embed)
    return {
        "size": size,
        "variant": variant,
        "nodes": [int(len(np.unique(labels[:, lv]))) for lv in range(labels.shape[1])],
        "phrases_embedded": len(phrases),
        "most_a_call": max(per_call, default=0),
        "wall_s": round(cost.wall_s, 2),
        "cpu_s": round(cost.cpu_s, 2),
        "rss_before_mib": round(cost.rss_before_mib),
        "peak_rss_mib": round(cost.peak_rss_mib),
        "keywords": {
            f"{lv}:{k}": phrases_digest(v) for lv, rep in enumerate(reps) for k, v in sorted(rep.keywords.items())
        },
    }


def phrases_digest(phrases: list[str]) -> str:
    """A node's keyphrases, in order, as 12 hex digits: enough to tell two runs' apart, and no text of the papers
    in a committed results file."""
    return hashlib.sha256("\n".join(phrases).encode("utf-8")).hexdigest()[:12]


def model_rate(phrases: int = 2000) -> dict:
    """The model's throughput on candidate phrases (the fit's embedding path for 50,000 papers, no cache):
    ``phrases`` n-grams drawn from the ICML vocabulary, embedded after a warm-up call."""
    import random
    import time

    from icml_topics.fit_config import FitConfig
    from icml_topics.fit_inputs import Embedder
    from icml_topics.stages.represent import make_vectorizer

    texts, _ = _rows(None)
    words = make_vectorizer(len(texts), 100).fit(list(texts[:3000])).get_feature_names_out().tolist()
    batch = random.Random(0).sample(words, min(phrases, len(words)))
    embedder = Embedder(FitConfig.from_params({"cache": False}), corpus_size=50_000)
    embedder(batch[:64])  # model load and warm-up, not timed
    wall, cpu = time.perf_counter(), time.process_time()
    embedder(batch)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"path": embedder.path, "phrases": len(batch), "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "phrases_per_s": round(len(batch) / wall, 1)}  # fmt: skip


COUNTS: list[tuple[int, int]] = []  # (distinct candidates, kept) of each level _keyphrase_names represented


def _keyphrase_names(seen: dict, emb, embed, cap: int | None) -> list[dict[int, str]]:
    """The keyphrase names (``name_levels``' ``fallback``) of a fit that ``names_tune.py`` kept, from its tree's
    labels and texts, with every level's candidates bounded to ``cap`` phrases (``tree.build_tree``'s steps)."""
    import numpy as np

    from icml_topics.stages import keybert_bounded, represent, size_aware_defaults
    from icml_topics.stages.naming import name_key, name_topics
    from icml_topics.stages.representatives import representative_order

    labels, parents, texts = seen["args"][0], seen["args"][1], list(seen["args"][4])
    original, restrict = represent.bounded_keybert, keybert_bounded.shared_vocabulary
    represent.bounded_keybert = lambda **kw: keybert_bounded.bounded_keybert(**{**kw, "max_candidates": cap})

    def counted(candidates, limit):  # each level's distinct candidates, before and after the cap
        kept = restrict(candidates, limit)
        COUNTS.append(tuple(len({w for ws in c.values() for w in ws} - {""}) for c in (candidates, kept)))
        return kept

    keybert_bounded.shared_vocabulary = counted
    try:
        fallback = []
        for lv in range(labels.shape[1]):
            level = labels[:, lv]
            rep = represent.represent_topics(
                texts, emb, level, embed, min_df=size_aware_defaults(len(texts)).min_df, random_state=42
            )
            ours: dict[int, int] = {}  # BERTopic's ids back to the level's nodes (fit_tree.topic_tree)
            for new, old in zip(rep.labels.tolist(), level.tolist()):
                ours.setdefault(new, old)
            keywords = {ours[t]: list(kw) for t, kw in rep.keywords.items() if t in ours and ours[t] != -1}
            for node in parents[lv]:
                keywords.setdefault(node, [])
            order = representative_order(np.asarray(emb, dtype=np.float32), level)
            docs = {t: [texts[i] for i in rows] for t, rows in order.items() if t != -1}
            fallback.append(name_topics(keywords, docs, distinct=name_key))
        return fallback
    finally:
        represent.bounded_keybert, keybert_bounded.shared_vocabulary = original, restrict


def names_under_caps(data: str, raw: Path, caps: list[int | None], seeds: list[int]) -> list[dict]:
    """``names_tune.py``'s support and stability of the fits it kept in ``raw`` (``--sizes 90 24``), their
    keyphrase names recomputed with each cap on the candidates (None: unbounded, which must give the kept ones)."""
    import pickle

    import names_tune as nt
    import numpy as np
    from _embedded import prepared

    from icml_topics.fit_config import FitConfig
    from icml_topics.fit_inputs import Embedder

    nt.RAW = raw
    emb = np.load(prepared(data).with_suffix(".npy"))
    rows, first = [], {}
    for cap in caps:
        stab, exact = [], True
        COUNTS.clear()
        for seed in seeds:
            saved = pickle.loads(nt._file(data, (90, 24), seed).read_bytes())
            fits = {}
            for which, part_rows in (("full", np.arange(len(emb))), ("part", saved["keep"])):
                seen = saved[which]
                embed = Embedder(FitConfig.from_params({}), corpus_size=len(part_rows))
                fallback = _keyphrase_names(seen, emb[part_rows], embed, cap)
                exact &= fallback == list(seen["args"][5])
                fits[which] = {**seen, "args": (*seen["args"][:5], fallback, *seen["args"][6:])}
            names_a, names_b = nt._names(fits["full"]), nt._names(fits["part"])
            if seed == seeds[0]:
                full_fallback, full_names = fits["full"]["args"][5], names_a
            one = nt.stability(fits["full"], fits["part"], saved["keep"], names_a, names_b)
            stab = [(a[0] + b[0], a[1] + b[1]) for a, b in zip(stab, one, strict=True)] if stab else one
        sup = nt.support(fits["full"], names_a, saved["carriers"])
        first.setdefault("fallback", full_fallback)
        first.setdefault("names", full_names)
        for lv, ((ok, n, _), st) in enumerate(zip(sup, stab, strict=True)):
            differ = [sum(first[k][lv][t] != now[lv][t] for t in now[lv]) for k, now in
                      (("fallback", full_fallback), ("names", full_names))]  # fmt: skip
            level_counts = COUNTS[lv :: len(sup)]  # this level's, over every fit
            rows.append({"data": data, "cap": cap, "level": lv, "supported": ok, "nodes": n, "keep": st[0],
                         "reappear": st[1], "keyphrase_names_as_kept": exact,
                         "candidates_max": max(c[0] for c in level_counts),
                         "kept_max": max(c[1] for c in level_counts),
                         "keyphrase_names_changed": differ[0], "names_changed": differ[1]})  # fmt: skip
            print(rows[-1], flush=True)
    return rows


def _table(rows: list[dict], rate: dict | None = None) -> str:
    model = " | model s at the measured rate" if rate else ""
    lines = [
        "| size | nodes a level (coarsest first) | variant | wall s | CPU s | peak RSS MiB | growth in the stage MiB |"
        f" phrases embedded | most in one call{model} | same keyphrases as package |",
        "|---:|---|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if rate else "") + "---|",
    ]
    for r in rows:
        base = next((b for b in rows if b["size"] == r["size"] and b["variant"] == "package"), r)
        same = sum(r["keywords"][k] == base["keywords"].get(k) for k in r["keywords"])
        nodes = r["nodes"] if isinstance(r["nodes"], list) else [r["nodes"]]
        extra = f" {r['phrases_embedded'] / rate['phrases_per_s']:,.0f} |" if rate else ""
        lines.append(
            f"| {r['size']:,} | {' / '.join(f'{n:,}' for n in nodes[::-1])} | {r['variant']} | {r['wall_s']:.1f} |"
            f" {r['cpu_s']:.1f} | {r['peak_rss_mib']:,} | {r['peak_rss_mib'] - r['rss_before_mib']:,} |"
            f" {r['phrases_embedded']:,} | {r.get('most_a_call', 0):,} |{extra} {same}/{len(r['keywords'])} |"
        )
    return "\n".join(lines)


def _growth(rows: list[dict]) -> str:
    """Each variant's exponent b of ``y ~ n^b`` between its smallest and largest size."""
    import math

    lines = ["| variant | from | to | phrases embedded | most in one call | CPU s | growth in the stage |",
             "|---|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for variant in dict.fromkeys(r["variant"] for r in rows):
        mine = sorted((r for r in rows if r["variant"] == variant), key=lambda r: r["size"])
        if len(mine) < 2:
            continue
        a, b = mine[0], mine[-1]

        def exp(field, a=a, b=b):
            y1, y2 = (r[field] if field != "growth" else r["peak_rss_mib"] - r["rss_before_mib"] for r in (a, b))
            return f"{math.log(y2 / y1) / math.log(b['size'] / a['size']):.2f}" if y1 > 0 and y2 > 0 else "-"

        lines.append(
            f"| {variant} | {a['size']:,} | {b['size']:,} | {exp('phrases_embedded')} | {exp('most_a_call')} |"
            f" {exp('cpu_s')} | {exp('growth')} |"
        )
    return "Exponent b of each column ~ n^b:\n\n" + "\n".join(lines) if len(lines) > 2 else ""


def _names_report(rows: list[dict], out: Path | None) -> int:
    from _machine import machine_line
    from _report import write_markdown

    lines = [
        "# Names under a bound on the keyphrase candidates",
        "",
        f"`python benchmarks/keyphrase_cost.py {' '.join(sys.argv[1:])}` on {machine_line()}: the fits"
        " `names_tune.py --sizes 90 24 --seeds 0 1 2 --fit` kept, each level's keyphrases recomputed with at most"
        " CAP distinct candidate phrases (`keybert_bounded.shared_vocabulary`), then named and measured as"
        " `names_tune.py` measures (supported: >= 50% of the node's papers carry its name, siblings at most half"
        " as often; keep: reappearing nodes over the drops that keep their name). Level 0 is the finest.",
        "",
        "Candidates: a level's distinct candidate phrases, the most over the fits, before and after the cap;"
        " *changed*: nodes of the full fit whose keyphrase name (BERTopic's keyphrases named) or final name differs"
        " from the first cap's row.",
        "",
        "| data | cap | level | supported | keep their name | candidates (kept) | keyphrase names changed |"
        " names changed | keyphrase names as the fit kept them |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['data']} | {r['cap'] or 'none'} | {r['level']} | {r['supported'] / r['nodes']:.0%}"
            f" ({r['supported']}/{r['nodes']}) | {r['keep'] / max(r['reappear'], 1):.0%} ({r['keep']}/{r['reappear']})"
            f" | {r['candidates_max']:,} ({r['kept_max']:,}) | {r['keyphrase_names_changed']}/{r['nodes']} |"
            f" {r['names_changed']}/{r['nodes']} | {'yes' if r['keyphrase_names_as_kept'] else 'no'} |"
        )
    if out:
        write_markdown(out, lines, rows)
    else:
        print("\n".join(lines))
    return 0


def _run_one(args: list[str], log: Path) -> dict:
    """``--one ARGS`` in a fresh, measured process -> its RESULT line."""
    from _measure import run_measured

    run_measured([sys.executable, __file__, "--one", *args], env=dict(os.environ), timeout=3600, log=log)
    text = log.read_text(encoding="utf-8", errors="replace")
    line = next((x for x in text.splitlines() if x.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"no result from --one {' '.join(args)}:\n{text[-3000:]}")
    return json.loads(line[len("RESULT ") :])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 20000])
    parser.add_argument("--node-size", type=int, default=24, help="one level of this many papers a node")
    parser.add_argument("--node-sizes", type=int, nargs="+", help="nested levels, coarsest first (e.g. 400 90 20)")
    parser.add_argument("--base", help="scaling.py's prepared folder (base.npy, base.parquet) instead of ICML")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--label", help="name the rows' variant (e.g. an older checkout's commit)")
    parser.add_argument("--model-rate", action="store_true", help="measure the model's phrase throughput too")
    parser.add_argument("--out", type=Path, help="results .md (a .json beside it)")
    parser.add_argument("--names", nargs="+", metavar="DATA", help="names_tune.py data sets to name under --caps")
    parser.add_argument("--raw", type=Path, help="names_tune.py's raw folder of those fits (--sizes 90 24)")
    parser.add_argument("--caps", nargs="+", default=["none"], help="candidate caps ('none': unbounded)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="names_tune.py's drops")
    parser.add_argument("--render", type=Path, help="rewrite the tables of a results .md from the .json beside it")
    parser.add_argument("--one", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.render:
        saved = json.loads(args.render.with_suffix(".json").read_text())
        head = args.render.read_text().split("\n| size |")[0].rstrip("\n")
        body = _table(saved["rows"], saved.get("model_rate")) + "\n\n" + _growth(saved["rows"]) + "\n"
        args.render.write_text(head + "\n\n" + body)
        return 0
    if args.names:
        caps = [None if c == "none" else int(c) for c in args.caps]
        found = [r for data in args.names for r in names_under_caps(data, args.raw, caps, args.seeds)]
        return _names_report(found, args.out)
    if args.one:
        if args.one[0] == "rate":
            print("RESULT " + json.dumps(model_rate()))
            return 0
        size, sizes, variant, *base = args.one
        print("RESULT " + json.dumps(one(int(size), [int(x) for x in sizes.split(",")], variant, *base)))
        return 0
    from _machine import git_state, machine_line
    from _report import write_markdown

    node_sizes = args.node_sizes or [args.node_size]
    rows = []
    log = Path(tempfile.mkdtemp()) / "one.log"
    for size in args.sizes:
        for variant in args.variants:
            rows.append(
                _run_one([str(size), ",".join(map(str, node_sizes)), variant, *([args.base] if args.base else [])], log)
            )
            rows[-1]["variant"] = args.label or variant
            print({k: v for k, v in rows[-1].items() if k != "keywords"}, flush=True)
    rate = _run_one(["rate"], log) if args.model_rate else None
    text = (
        f"# Keyphrase stage cost\n\n`python benchmarks/keyphrase_cost.py {' '.join(sys.argv[1:])}` on"
        f" {machine_line()}, code {git_state(HERE.parent)}. Levels of {'/'.join(map(str, node_sizes))} papers a node"
        f" (coarsest first; k-means of the real vectors, nested), {args.base or 'ICML 2013-2024'} tiled; candidates"
        " embedded by a stand-in that remembers them (see the script)."
        + (
            f" The model ({rate['path']}) embeds {rate['phrases_per_s']:,.0f} candidate phrases a second here"
            f" ({rate['phrases']:,} phrases, {rate['wall_s']} s wall, {rate['cpu_s']} s CPU)."
            if rate
            else ""
        )
        + "\n\n"
        + _table(rows, rate)
        + "\n\n"
        + _growth(rows)
        + "\n"
    )
    if args.out:
        write_markdown(args.out, [text], {"rows": rows, "model_rate": rate})
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
