"""The tree's shape at corpus sizes (issue 51), without the cost of a full scaling run: the fit's own
read/embed/themes stages on ``benchmarks/scaling.py``'s base (real abstracts' stored vectors, tiled with
jittered copies; the theme texts embedded by the model), then the default hierarchy (``fit_levels`` with
``FitConfig.hierarchy_settings(n)``), optionally once more on a Dask LocalCluster (``--workers``: the same
levels, and the workers' memory before/after ``release_model``).

Per level (coarsest first): nodes, median and max papers a node, median branching (children a node of the
level above; the top level's: nodes a theme) and the share of nodes holding exactly their parent's papers. Per
size and design: the hierarchy's wall and CPU seconds (this process; ``fit_levels`` runs in it), its peak RSS
(sampled), and the CPU exponent ``b`` of ``cpu ~ n^b`` between consecutive sizes. ``--max-theme-size`` runs the
default with other consensus sample sizes too (e.g. ``6000``: the design before issue 51's bound), on the same
papers and themes. ``--themes-cache DIR`` keeps each size's themes there (the theme stage is minutes at 200k).
Run ``benchmarks/scaling.py`` once first (it writes ``--work``'s base).

    python benchmarks/tree_shape.py --work /work/.scale-cache/work --cache-dir /work/.scale-cache/cache \\
        --sizes 10000 50000 --workers 2
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))


def themed(work: Path, cache_dir: Path, n: int, themes_cache: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``n`` tiled vectors and each one's theme from the fit's own stages ("(no theme)": none); with
    ``themes_cache``, the themes (and the modelled rows) are kept there and read back on the next run."""
    import scaling

    from icml_topics.fit_config import FitConfig
    from icml_topics.fitting import FIT_STAGES, FitRun, run_stages

    emb, table = scaling.synthetic(work, n)
    kept = themes_cache / f"themes-{n}.npz" if themes_cache is not None else None
    if kept is not None and kept.is_file():
        saved = np.load(kept, allow_pickle=True)
        return emb[saved["rows"]], saved["themes"]
    run = FitRun(
        FitConfig.from_params({"random_state": 42, "cache": False}),
        scaling.BenchEmbed(cache_dir, n),
        table.drop(columns=["text"]),
        given_embeddings=emb,
    )
    run_stages(run, [s for s in FIT_STAGES if s.name in ("read", "embed", "themes")])
    themes = np.array([t if t else "(no theme)" for t in run.themes.docs.theme], dtype=object)
    if kept is not None:
        kept.parent.mkdir(parents=True, exist_ok=True)
        np.savez(kept, rows=np.flatnonzero(run.ok), themes=themes)
    return run.embeddings, themes


def theme_line(n: int, themes: np.ndarray) -> str:
    """The themes' sizes at ``n`` papers: count, the median paper's theme, the largest."""
    sizes = np.sort(np.unique(themes.astype(str), return_counts=True)[1])
    median = int(sizes[np.searchsorted(np.cumsum(sizes), sizes.sum() / 2.0)])
    return f"- {n:,} papers: {len(sizes)} themes, the median paper's theme {median:,} papers, the largest {sizes[-1]:,}"


def timed_levels(emb: np.ndarray, themes: np.ndarray, settings) -> tuple[np.ndarray, float, float, float]:
    """``fit_levels``' labels, its wall and CPU seconds and the peak RSS (GB) of this process while it ran."""
    import scaling

    from icml_topics.stages.hierarchy import fit_levels

    with scaling.PeakRSS() as peak:
        t, c = time.perf_counter(), time.process_time()
        labels = fit_levels(emb, themes, settings)[0]
        wall, cpu_s = time.perf_counter() - t, time.process_time() - c
    return labels, wall, cpu_s, peak.peak / 2**30


def on_workers(emb: np.ndarray, themes: np.ndarray, settings, workers: int, reference: np.ndarray) -> list[str]:
    """``fit_levels`` on a LocalCluster of ``workers`` processes (started as the CLI's ``--workers`` starts it) after
    an embedding: lines for the report."""
    import psutil

    from icml_topics.embedding.distributed import cluster_client, embed_distributed, release_model
    from icml_topics.stages.hierarchy import fit_levels

    def rss(client) -> str:
        return ", ".join(f"{v / 2**20:.0f}" for v in client.run(lambda: psutil.Process().memory_info().rss).values())

    texts = [f"Topic {i}: graph neural networks, diffusion models and bandits, paper {i}." for i in range(256)]
    with cluster_client(workers=workers) as client:  # the CLI's --workers: a cluster the library started
        idle = rss(client)
        embed_distributed(texts, client=client, cache=False)
        held = rss(client)
        release_model(client)
        released = rss(client)
        t = time.perf_counter()
        labels = fit_levels(emb, themes, settings, client=client)[0]
        wall = time.perf_counter() - t
    return [
        f"- on {workers} Dask workers: {wall:.1f} s wall, levels identical to one process: "
        f"{np.array_equal(labels, reference)}",
        f"- each worker's RSS (MiB): idle {idle}; after embedding 256 texts (model held) {held}; "
        f"after `release_model` {released}",
    ]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", type=Path, default=Path("/tmp/icml-topics-scaling"))
    p.add_argument("--cache-dir", type=Path, required=True)
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000])
    p.add_argument("--workers", type=int, default=0, help="also run the hierarchy on this many Dask workers")
    p.add_argument("--max-theme-size", type=int, nargs="*", default=[], help="also run these consensus sample sizes")
    p.add_argument("--themes-cache", type=Path, default=None, help="keep each size's themes in this folder")
    p.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "tree_shape.md")
    args = p.parse_args()
    from icml_topics.fit_config import FitConfig

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO)
    import scaling
    from _machine import machine_line

    default = FitConfig.from_params({}).hierarchy_settings(args.sizes[0]).max_theme_size
    designs = [default, *[m for m in args.max_theme_size if m != default]]
    lines = [
        "# The tree's shape at corpus sizes (default settings)",
        "",
        f"Produced by `python benchmarks/tree_shape.py {' '.join(sys.argv[1:])}` at {commit.stdout.strip()}. "
        f"Machine: {machine_line()} at start.",
        "Base: `benchmarks/scaling.py`'s (real abstracts' stored vectors, tiled with jittered copies); themes from "
        "the fit's own stages. Branching: median children a node of the level above (the top level's: nodes a "
        "theme); identical: share of nodes holding exactly their parent's papers. Targets (issue 51): finest "
        "median 10-60 papers, every level's median branching 3-20, identical <= 60%. Sample: the consensus sample "
        f"size (`max_theme_size`; the default {default:,}). Hierarchy: `fit_levels` in this process: wall and CPU "
        "seconds, peak RSS of the process while it ran (GB; the vectors and themes included); b: the CPU exponent "
        "from the size before (cpu ~ n^b).",
        "",
        "| n | sample | level | nodes | median size | max size | median branching | identical | hierarchy wall s, "
        "CPU s, peak GB | b |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    extra: list[str] = []
    themes_lines: list[str] = []
    cpu_before: dict[int, tuple[int, float]] = {}
    for n in args.sizes:
        emb, themes = themed(args.work, args.cache_dir, n, args.themes_cache)
        themes_lines.append(theme_line(n, themes))
        for size in designs:
            settings = dataclasses.replace(FitConfig.from_params({}).hierarchy_settings(n), max_theme_size=size)
            labels, wall, cpu_s, peak = timed_levels(emb, themes, settings)
            before = cpu_before.get(size)
            b = f"{math.log(cpu_s / before[1]) / math.log(n / before[0]):.2f}" if before else ""
            cpu_before[size] = (n, cpu_s)
            levels = scaling.level_shape(labels, themes)
            for i, lv in enumerate(levels):
                timing = f"{wall:.0f}, {cpu_s:.0f}, {peak:.2f}" if i == 0 else ""
                lines.append(
                    f"| {n:,} | {size:,} | {i + 1} of {len(levels)} | {lv['nodes']:,} | {lv['median_size']:g} | "
                    f"{lv['max_size']:,} | {lv['median_branching']:g} | {lv['identical_to_parent']:.1%} | {timing} | "
                    f"{b if i == 0 else ''} |"
                )
            print("\n".join(lines[-len(levels) :]), flush=True)
            if args.workers and n == args.sizes[0] and size == default:
                extra += [f"At {n:,} papers:", *on_workers(emb, themes, settings, args.workers, labels)]
    text = [*lines, "", "Themes (from the fit's own theme stage):", *themes_lines, "", *extra, ""]
    args.out.write_text("\n".join(text))
    print(args.out.read_text())


if __name__ == "__main__":
    main()
