"""Time and peak memory of drawing the static map (``map.png``), in map units as drawn now vs raw units.

    python benchmarks/static_map_speed.py [--rounds 2]

Fits the 38 bundled ICML 2026 seed abstracts (the demo: a t-SNE map, hundreds of units across) and, where
the shared data is present, the 240-abstract ICML 2019 + 2024 sample of the tests (a UMAP map, a few units
across). Then each map is drawn and written as the fit writes it (``write_map_files``: PNG at screen
resolution, no output cache) in a fresh process per run, the two ways side by side, A B A B:

* ``raw units``: the papers' ``x, y`` as they are (what every commit before ``drawn_coordinates`` drew);
* ``drawn units``: ``drawn_coordinates`` (a map wider than ``MAP_EXTENT`` scaled down to that width).

Reports the drawing time (imports excluded: they are the same in both), the process's peak RSS and whether
the two PNGs are the same image. Writes ``benchmarks/results/static_map.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
ICML = REPO.parent / "shared" / "data" / "icml-2013-2024.jsonl.gz"
from _machine import machine_line  # noqa: E402
from _measure import run_measured  # noqa: E402
from _report import write_markdown  # noqa: E402

SEEDS = REPO / "icml_topics" / "data" / "icml-2026-seed-abstracts.jsonl"

CHILD = r"""
import json, sys, time
from pathlib import Path
import numpy as np, pandas as pd
from icml_topics.plotting import static_map
docs, arm, out = pd.read_parquet(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
if arm == "raw units":
    static_map.drawn_coordinates = lambda frame: frame[["x", "y"]].to_numpy(dtype=np.float64)
import matplotlib.pyplot  # imported before the clock starts, as any second map in a process finds it
t = time.perf_counter()
static_map.write_map_files(docs, out, title="Topic map", formats=("png",), dpi=static_map.SCREEN_DPI, cache_dir=None)
seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds}))
"""
ARMS = ("raw units", "drawn units")


def fitted_documents(folder: Path) -> dict[str, Path]:
    import pandas as pd

    from icml_topics import TopicMap

    corpora = {"demo: 38 seed abstracts (t-SNE map)": (SEEDS, 42)}
    if ICML.exists():
        icml = pd.read_json(ICML, lines=True)
        sample = pd.concat([icml[icml.year == y].sample(n=120, random_state=7) for y in (2019, 2024)])
        corpora["ICML 2019 + 2024, 240 abstracts (UMAP map)"] = (sample, 0)
    paths = {}
    for i, (name, (data, seed)) in enumerate(corpora.items()):
        tm = TopicMap(random_state=seed).fit(data)
        paths[name] = folder / f"docs-{i}.parquet"
        tm.documents_.to_parquet(paths[name])
        x, y = tm.documents_["x"], tm.documents_["y"]
        print(f"{name}: map {x.max() - x.min():.1f} x {y.max() - y.min():.1f} units, {len(tm.themes_)} themes")
    return paths


def draw(docs: Path, arm: str, out: Path) -> dict:
    """One draw in a fresh process: its drawing seconds (its own clock) and its own peak RSS (the harness's
    ``own_peak_bytes``: this process holds two fitted models, whose memory the kernel's count of the child would add)."""
    out.mkdir(parents=True, exist_ok=True)
    log = out / "draw.log"
    cmd = [sys.executable, "-c", CHILD, str(docs), arm, str(out)]
    done = run_measured(cmd, env=dict(os.environ), timeout=600, log=log)
    if done.returncode != 0:
        raise SystemExit(f"drawing failed ({arm}):\n{done.log_tail(40)}")
    line = log.read_text(encoding="utf-8").strip().splitlines()[-1]
    return {**json.loads(line), "peak_mib": (done.own_peak_bytes or done.maxrss_bytes) / 2**20}  # not this parent's


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="A B rounds per corpus (default 2)")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "static_map.md")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory(prefix="icml-topics-map-bench-") as tmp:
        folder = Path(tmp)
        rows = []
        for name, docs in fitted_documents(folder).items():
            runs: dict[str, list[dict]] = {arm: [] for arm in ARMS}
            for r in range(args.rounds):
                for arm in ARMS:
                    runs[arm].append(draw(docs, arm, folder / f"{docs.stem}-{arm.split()[0]}-{r}"))
            images = {arm: (folder / f"{docs.stem}-{arm.split()[0]}-0" / "map.png").read_bytes() for arm in ARMS}
            for arm in ARMS:
                seconds = [m["seconds"] for m in runs[arm]]
                rows.append(
                    f"| {name} | {arm} | {statistics.median(seconds):.1f} ({min(seconds):.1f}-{max(seconds):.1f}) "
                    f"| {max(m['peak_mib'] for m in runs[arm]):,.0f} |"
                )
            rows.append(f"| {name} | same PNG both ways | {images[ARMS[0]] == images[ARMS[1]]} | |")
    write_markdown(
        args.out,
        [
            "# Static map: drawing time and peak memory, raw vs drawn map units",
            "",
            "Command: `python benchmarks/static_map_speed.py --rounds "
            f"{args.rounds}` (each draw in a fresh process, A B A B; imports not timed)",
            "",
            f"Machine at the end: {machine_line()}.",
            "",
            "| corpus | map units | seconds, median (range) | peak RSS MiB |",
            "|---|---|---|---|",
            *rows,
        ],
    )


if __name__ == "__main__":
    main()
