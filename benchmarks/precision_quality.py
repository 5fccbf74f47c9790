"""Does the default embedding path cost quality? The same fit on fp32, the default path and the fast mode.

Fits ``TopicMap(random_state=42)`` on the same sample (the benchmark's fixed order: the 150
hand-labelled ICML 2024 abstracts first) once per embedding path, each with its own empty cache,
and scores every fit against the hand labels (theme accuracy, ARI, NMI) and by NPMI / outlier share.
Writes a Markdown table; the README's "what the fast paths cost" figures come from it.

    python benchmarks/precision_quality.py --n 1000 --seeds 42 0 1 --out benchmarks/results/precision_quality.md

Several seeds show how much a fit moves with the seed alone, the scale against which a path's
difference should be read.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

from _corpus import load_corpus, write_jsonl  # noqa: E402
from _machine import machine_line  # noqa: E402
from _report import write_markdown  # noqa: E402

PATHS = {"fp32": ("fp32", None), "auto": ("auto", None), "auto, max_tokens=128 (--fast)": ("auto", 128)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1000, help="abstracts (the first N of the benchmark's fixed order)")
    parser.add_argument("--data-dir", type=Path, default=HERE.parent.parent / "shared" / "data")
    parser.add_argument("--corpus", choices=["all", "icml"], default="icml")
    parser.add_argument("--seeds", type=int, nargs="+", default=[42], help="random_state of the fits")
    parser.add_argument("--paths", nargs="+", default=list(PATHS), choices=list(PATHS), help="embedding paths")
    parser.add_argument("--work-dir", type=Path, default=None, help="scratch folder (kept; reuses its caches)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "precision_quality.md")
    args = parser.parse_args(argv)

    from icml_topics.embedding import resolve_precision
    from icml_topics.evaluate import load_dev_labels
    from icml_topics.model import TopicMap

    labels = load_dev_labels()
    corpus = load_corpus(args.data_dir, args.corpus, dev_ids=set(labels["id"].astype(str)))
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="icml-topics-precision-quality-"))
    work.mkdir(parents=True, exist_ok=True)
    sample = write_jsonl(corpus.sample(args.n), work / "sample.jsonl")
    default = resolve_precision()
    rows = []
    for seed in args.seeds:
        for name in args.paths:
            precision, max_tokens = PATHS[name]
            started = time.perf_counter()
            tm = TopicMap(
                random_state=seed, cache=work / name.replace(" ", "_"), precision=precision, max_tokens=max_tokens
            ).fit(sample)
            seconds = time.perf_counter() - started
            scores = tm.evaluate(reference=labels)
            used = tm.embedding_path_ or precision  # the fit's own path, not the process's last embed() call
            rows.append({"path": name, "seed": seed, "used": used, "fit_s": seconds, **scores})
            print(f"{name} seed {seed}: {seconds:.0f} s, accuracy {scores.get('theme_accuracy'):.3f}", file=sys.stderr)

    import pandas as pd

    table = pd.DataFrame(rows)
    metrics = ["theme_accuracy", "theme_ari", "theme_nmi", "coherence_npmi", "outlier_share", "n_topics"]
    means = table.groupby("path", sort=False)[metrics].mean()
    spread = table.groupby("path", sort=False)[["theme_accuracy", "theme_ari", "theme_nmi"]].agg(
        lambda x: x.max() - x.min()
    )
    base = means.iloc[0]
    lines = [
        f"# Quality by embedding path ({args.n:,} abstracts, {int(table['n_labelled'].iloc[0])} hand-labelled)",
        "",
        f"`python benchmarks/precision_quality.py --n {args.n} --seeds {' '.join(map(str, args.seeds))}`; default "
        f"path on this machine: **{default}**; machine at the end: {machine_line()}. Same data and "
        "settings; only the embedding path (and the seed) differ. Means over the seeds; Δ = difference to the "
        f"first path's mean; range = max − min over the {len(args.seeds)} seed(s) of one path.",
        "",
        "| path | used | theme accuracy | Δ | range | ARI | Δ | range | NMI | Δ | range | NPMI | outliers | topics |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for name, r in means.iterrows():
        used = table.loc[table["path"] == name, "used"].iloc[0]
        sp = spread.loc[name]
        lines.append(
            f"| {name} | {used} | {r.theme_accuracy:.3f} | {r.theme_accuracy - base.theme_accuracy:+.3f} | "
            f"{sp.theme_accuracy:.3f} | {r.theme_ari:.3f} | {r.theme_ari - base.theme_ari:+.3f} | {sp.theme_ari:.3f} | "
            f"{r.theme_nmi:.3f} | {r.theme_nmi - base.theme_nmi:+.3f} | {sp.theme_nmi:.3f} | {r.coherence_npmi:.3f} | "
            f"{r.outlier_share:.1%} | {r.n_topics:.1f} |"
        )
    lines += [
        "",
        "Every fit:",
        "",
        "| path | seed | accuracy | ARI | NMI | NPMI | outliers | topics | fit s |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['path']} | {r['seed']} | {r['theme_accuracy']:.3f} | {r['theme_ari']:.3f} | "
            f"{r['theme_nmi']:.3f} | {r['coherence_npmi']:.3f} | {r['outlier_share']:.1%} | {r['n_topics']} | "
            f"{r['fit_s']:.0f} |"
        )
    write_markdown(args.out, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
