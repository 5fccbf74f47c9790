"""Memory and CPU of the fit's themes and tree stages alone, on the tiled corpus of ``scaling.py``.

Each size runs in its own fresh process: the base of ``scaling.py --work W`` tiled to ``n`` papers
(``scaling.synthetic``), the fit's ``read`` and ``embed`` stages (given vectors), the NN-descent graph the
theme rule reads (``knn``, as ``scaling.py`` builds it first), then the ``themes`` stage and, with ``--tree``,
the ``tree`` stage, through ``fitting.run_stages``; no map (no worker process). Per stage: wall, CPU of this
process, RSS before and its peak (sampled every 0.05 s), the peak of Python-traced allocations above the
stage's start (``tracemalloc``: numpy's arrays included; off with ``--no-trace``: it slows pure-Python code)
and where this process's main thread was when the RSS reached its peak (the innermost frames of the package).
A digest of each paper's theme, score, runner-up and probabilities (and of the tree's labels) says whether
two versions of the code give the same result.

    python benchmarks/stage_memory.py --work W --sizes 100000 200000 --out benchmarks/results/stage_memory.json
    python benchmarks/stage_memory.py --report benchmarks/results/stage_memory.json  # -> stage_memory.md

The report fits ``value ~ a * n^b`` per code version (``--label``) and stage over its sizes (least squares on
the logs) for CPU seconds and for the memory a stage adds above its start, and projects both to 1,000,000.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import scaling  # noqa: E402
from _machine import cpu_model  # noqa: E402


class Sampler:
    """Peak RSS of this process while the ``with`` block runs, and the main thread's package frames then."""

    def __init__(self, every: float = 0.05) -> None:
        import psutil

        self._proc, self._every = psutil.Process(), every
        self._main = threading.main_thread().ident
        self.start = self.peak = self._proc.memory_info().rss
        self.where: list[str] = []
        self.places: dict[str, int] = {}  # innermost package frame -> the highest RSS seen there

    def __enter__(self) -> Sampler:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            rss = self._proc.memory_info().rss
            frames = self._frames()
            if frames:
                self.places[frames[0]] = max(self.places.get(frames[0], 0), rss)
            if rss > self.peak:
                self.peak, self.where = rss, frames

    def _frames(self) -> list[str]:
        frame, out = sys._current_frames().get(self._main), []
        while frame is not None:
            code = frame.f_code
            if "icml_topics" in code.co_filename:
                out.append(f"{Path(code.co_filename).name}:{frame.f_lineno} {code.co_name}")
            frame = frame.f_back
        return out[:6]

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._proc.memory_info().rss)


def digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes() if isinstance(a, np.ndarray) else json.dumps(a).encode())
    return h.hexdigest()[:16]


def one_size(work: Path, n: int, cache_dir: Path, tree: bool, trace: bool) -> dict:
    from icml_topics.fit_config import FitConfig
    from icml_topics.fitting import FIT_STAGES, FitRun, run_stages
    from icml_topics.stages.large import theme_neighbours

    emb, table = scaling.synthetic(work, n)
    config = FitConfig.from_params({"random_state": 42, "cache": False})
    embed = scaling.BenchEmbed(cache_dir, n)
    out: dict = {"n": n, "stages": {}}
    wanted = {"read", "embed", "themes"} | ({"tree"} if tree else set())
    run = FitRun(config, embed, table.drop(columns=["text"]), given_embeddings=emb)
    del table
    run_stages(run, [s for s in FIT_STAGES if s.name in ("read", "embed")])
    timed = [s for s in FIT_STAGES if s.name in wanted - {"read", "embed"}]

    def measured(name: str, fn) -> None:
        embed.stage = name
        if trace:
            tracemalloc.start()
        cpu, t = time.process_time(), time.perf_counter()
        with Sampler() as mem:
            fn()
        row = {
            "seconds": round(time.perf_counter() - t, 2),
            "cpu_s": round(time.process_time() - cpu, 2),
            "rss_before_gb": round(mem.start / 2**30, 3),
            "peak_rss_gb": round(mem.peak / 2**30, 3),
            "added_gb": round((mem.peak - mem.start) / 2**30, 3),
            "peak_at": mem.where,
            "highest_places_gb": {
                k: round(v / 2**30, 3) for k, v in sorted(mem.places.items(), key=lambda kv: -kv[1])[:8]
            },
        }
        if trace:
            row["traced_peak_gb"] = round(tracemalloc.get_traced_memory()[1] / 2**30, 3)
            tracemalloc.stop()
        out["stages"][name] = row
        print(f"[n={n}] {name}: {json.dumps(row)}", flush=True)

    if config.is_large(n):
        measured("knn", lambda: theme_neighbours(run.embeddings, config.theme_settings.n_neighbors, random_state=42))
    for stage in timed:
        measured(stage.name, lambda stage=stage: run_stages(run, [stage]))
    docs = run.themes.docs
    out["themes_digest"] = digest(docs.theme, docs.theme_2, docs.score, docs.score_2, docs.proba, docs.reason)
    if tree:
        out["tree_digest"] = digest(run.tree.labels, [list(map(str, k)) for k in run.tree.names])
    return out


def fit_power(ns: list[int], values: list[float], at: int) -> tuple[float, float]:
    """Exponent ``b`` of ``value ~ a * n^b`` (least squares on the logs) and the value it gives at ``at``."""
    b, log_a = np.polyfit(np.log(ns), np.log(values), 1)
    return float(b), float(np.exp(log_a) * at**b)


def report(path: Path, at: int = 1_000_000) -> str:
    """``path``'s rows as a Markdown table with the exponents and the projection to ``at`` papers."""
    rows = json.loads(path.read_text())
    lines = [
        "# Memory and CPU of the themes stage alone (`benchmarks/stage_memory.py`)",
        "",
        f"Machine: {rows[0]['machine']} (2 cores, shared with other jobs: wall moves with the load, CPU less). "
        "One fresh process a size; `scaling.py`'s tiled corpus; the NN-descent graph built first (as `scaling.py`'s "
        "`knn`); no map worker. RSS: this process, sampled every 0.05 s; added: the stage's peak above its start. "
        "Digest: each paper's theme, runner-up, scores, probabilities and reason (equal digests: the same result).",
        "",
        "| code | n | stage | wall s | CPU s | RSS at start GB | peak RSS GB | added GB | load (start, end) | digest |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        for name, st in r["stages"].items():
            lines.append(
                f"| {r['label']} | {r['n']:,} | {name} | {st['seconds']:.0f} | {st['cpu_s']:.0f} | "
                f"{st['rss_before_gb']:.2f} | {st['peak_rss_gb']:.2f} | {st['added_gb']:.2f} | "
                f"{r['load_start']:.1f}, {r['load_end']:.1f} | {r['themes_digest'] if name == 'themes' else ''} |"
            )
    lines += [
        "",
        f"Fitted `value ~ a * n^b` over the sizes run, and the value it projects at n = {at:,} (not run):",
        "",
    ]
    lines += ["| code | stage | sizes | CPU b | CPU s at 1M | added-memory b | added GB at 1M | peak RSS GB at 1M |"]
    lines += ["|---|---|---|---|---|---|---|---|"]
    for label in dict.fromkeys(r["label"] for r in rows):
        mine = sorted((r for r in rows if r["label"] == label), key=lambda r: r["n"])
        for name in dict.fromkeys(k for r in mine for k in r["stages"]):
            ns = [r["n"] for r in mine if name in r["stages"]]
            if len(ns) < 2:
                continue
            cpu_b, cpu = fit_power(ns, [r["stages"][name]["cpu_s"] for r in mine if name in r["stages"]], at)
            mem_b, mem = fit_power(ns, [r["stages"][name]["added_gb"] for r in mine if name in r["stages"]], at)
            start_b, start = fit_power(
                ns, [r["stages"][name]["rss_before_gb"] for r in mine if name in r["stages"]], at
            )
            lines.append(
                f"| {label} | {name} | {', '.join(f'{n:,}' for n in ns)} | {cpu_b:.2f} | {cpu:,.0f} | {mem_b:.2f} | "
                f"{mem:.2f} | {start + mem:.2f} |"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", type=Path, help="a scaling.py --work folder (its base.npy, base.parquet)")
    p.add_argument("--cache-dir", type=Path, default=Path("/work/.scale-cache/cache"))
    p.add_argument("--sizes", type=int, nargs="+", default=[100_000, 200_000])
    p.add_argument("--tree", action="store_true", help="the tree stage too")
    p.add_argument("--no-trace", action="store_true", help="no tracemalloc")
    p.add_argument("--label", default="", help="what code this is (e.g. a commit)")
    p.add_argument("--out", type=Path, help="a JSON file: this run's rows are appended")
    p.add_argument("--report", type=Path, help="write the Markdown report of this JSON file beside it, and stop")
    p.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.report:
        text = report(args.report)
        args.report.with_suffix(".md").write_text(text)
        print(text)
        return
    if args.child:
        result = one_size(args.work, args.child, args.cache_dir, args.tree, not args.no_trace)
        print("RESULT " + json.dumps(result), flush=True)
        return
    rows = json.loads(args.out.read_text()) if args.out.exists() else []
    for n in args.sizes:
        cmd = [
            sys.executable,
            __file__,
            "--child",
            str(n),
            "--work",
            str(args.work),
            "--cache-dir",
            str(args.cache_dir),
        ]
        cmd += ["--tree"] * args.tree + ["--no-trace"] * args.no_trace + ["--out", str(args.out)]
        load = os.getloadavg()[0]
        proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
        found = [line[7:] for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
        if not found:
            print(proc.stdout[-3000:], proc.stderr[-3000:])
            raise SystemExit(f"n={n} failed (exit {proc.returncode})")
        result = json.loads(found[0])
        result.update(
            label=args.label,
            machine=cpu_model(),
            load_start=round(load, 2),
            load_end=round(os.getloadavg()[0], 2),
            traced=not args.no_trace,
            command="python benchmarks/stage_memory.py " + " ".join(sys.argv[1:]),
        )
        rows.append(result)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(rows, indent=1) + "\n")
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
