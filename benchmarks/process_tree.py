"""How many processes a ``compare`` (or a ``fit``) holds and how much memory the whole process tree takes
(issues 50, 51).

    python benchmarks/process_tree.py --cache DIR --corpus FILE [--old /work/main] [--pairs N]
        [--arms new,new-one-process,old] [--command compare|fit] [--out benchmarks/results/process_tree.md]
        [--keep DIR]

Each run is a fresh ``python -m icml_topics compare FILE --by year --out DIR --quiet`` (``--command fit``:
``python -m icml_topics fit FILE --out DIR --quiet``) on a copy of ``--cache``
(a cache folder whose embeddings already hold the corpus) without any stage result (reductions, keyphrases,
trees, drawn outputs), so every stage computes. The arms run in turn (A B C A B C ...), each timed as a whole
process, from start to exit:

- ``new``: this checkout (``PYTHONPATH`` = this repository);
- ``new-one-process``: this checkout with ``ICML_TOPICS_BACKGROUND=0`` (no worker: the map drawn in the fit's
  own process, after the themes): what the one overlap buys;
- ``old``: the checkout given by ``--old`` (the code before this change);
- ``new-workers-2``, ``old-workers-2``: ``new`` and ``old`` with ``--workers 2`` (a local Dask cluster of 2
  worker processes: the documents embedded, and each theme's consensus tree built, on it; issue 51).

CPU seconds: the whole tree's (the command's and its reaped descendants' ``getrusage``), the children's (their
last sample) and the main process's (the difference). On a loaded machine wall time is mostly waiting for a
core; the main process's CPU seconds are what it must run itself, the critical path on a quiet machine
(the embedding setup and the worker run beside it).

Every ``SAMPLE_S`` seconds the process tree (the command and every descendant, psutil) is read: the number of
live processes and their summed RSS, and each child's first and last sample (when it lived, seconds from the
start) and its largest RSS. Reported per run: wall seconds, the largest process count, the peak of
the summed RSS, the peak RSS of the main process alone (its kernel high-water mark, ``VmHWM``, read at each
sample) and their ratio, and the load average (1 minute) at its start and at its end. Every number in the results
file is computed here; its header names the machine and its load (``--rows LOG``: no run, the results file
of the rows a run printed, one a line: a run stopped before its end). ``--keep DIR``: each arm's first run writes its
outputs to ``DIR/<arm>`` (kept, to compare the arms' tables), the others to a folder removed after the run.
"""

from __future__ import annotations

import argparse
import ast
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

SAMPLE_S = 0.1
STAGE_CACHES = ("reductions", "representations", "trees", "outputs", "locks")  # computed by a run: left out
MIB = 1024 * 1024


def fresh_cache(source: Path) -> Path:
    """A new cache folder holding ``source``'s embeddings and machine setup, and no stage result."""
    fresh = Path(tempfile.mkdtemp(prefix="process-tree-cache-"))
    for name in os.listdir(source):
        if name not in STAGE_CACHES:
            src = source / name
            (shutil.copytree if src.is_dir() else shutil.copy2)(src, fresh / name)
    return fresh


def _hwm(proc: psutil.Process) -> int:
    """The process's RSS high-water mark (``VmHWM``, bytes), or its RSS where ``/proc`` has none."""
    try:
        for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        return proc.memory_info().rss
    except (OSError, psutil.Error):
        return 0


def measured(command: list[str], env: dict[str, str], cwd: Path) -> dict:
    """Run ``command`` in ``cwd`` (not this checkout: ``python -m`` would import the package from the working
    folder, whatever ``PYTHONPATH`` says); sample its process tree until it exits."""
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    main = psutil.Process(proc.pid)
    most, peak_sum, main_peak, names, child_cpu, lived = 1, 0, 0, {}, {}, {}
    while proc.poll() is None:
        try:
            tree = [main, *main.children(recursive=True)]
        except psutil.Error:
            break
        total = 0
        live = 0
        for p in tree:
            try:
                rss = p.memory_info().rss
                if p.status() == psutil.STATUS_ZOMBIE:
                    continue
                live += 1
                total += rss
                if p.pid != main.pid:
                    cmd = " ".join(p.cmdline()[1:4])[:80]
                    names[p.pid] = cmd
                    times = p.cpu_times()
                    child_cpu[p.pid] = times.user + times.system
                    now = time.perf_counter() - start
                    first, _, top = lived.get(p.pid, (now, now, 0))
                    lived[p.pid] = (first, now, max(top, rss))
            except psutil.Error:
                continue
        main_peak = max(main_peak, _hwm(main))
        most, peak_sum = max(most, live), max(peak_sum, total)
        time.sleep(SAMPLE_S)
    err = proc.communicate()[1]
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    total_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"{command} failed ({proc.returncode}):\n{err[-3000:]}")
    return {
        "seconds": seconds,
        "processes": most,
        "tree_peak_mib": peak_sum / MIB,
        "main_peak_mib": main_peak / MIB,
        "cpu_s": total_cpu,
        "children_cpu_s": sum(child_cpu.values()),
        "children": sorted(set(names.values())),
        "lived": sorted((first, last, top / MIB, names[pid]) for pid, (first, last, top) in lived.items()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True, help="cache folder holding the corpus' embeddings")
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--old", type=Path, default=REPO.parent / "main", help="the checkout before the change")
    parser.add_argument("--pairs", type=int, default=2, help="rounds of the arms, in turn")
    parser.add_argument("--arms", default="new,new-one-process,old")
    parser.add_argument("--command", choices=("compare", "fit"), default="compare")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "process_tree.md")
    parser.add_argument("--keep", type=Path, default=None, help="each arm's first outputs go to KEEP/<arm>")
    parser.add_argument("--rows", type=Path, default=None, help="no run: the results file of the rows in this log")
    args = parser.parse_args()
    from _machine import cpu_model

    arms = {
        "new": {"PYTHONPATH": str(REPO)},
        "new-one-process": {"PYTHONPATH": str(REPO), "ICML_TOPICS_BACKGROUND": "0"},
        "old": {"PYTHONPATH": str(args.old)},
        "new-workers-2": {"PYTHONPATH": str(REPO)},
        "old-workers-2": {"PYTHONPATH": str(args.old)},
    }
    chosen = [a.strip() for a in args.arms.split(",") if a.strip()]
    base = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    load_start = os.getloadavg()
    rows = []
    if args.rows is not None:  # the rows a run printed (one dict a line), e.g. of a run stopped before its end
        rows = [ast.literal_eval(line) for line in args.rows.read_text().splitlines() if line.startswith("{'arm'")]
        load_start = (rows[0]["load"],) if rows else load_start
    for round_ in range(0 if args.rows is not None else args.pairs):
        for arm in chosen:
            work = Path(tempfile.mkdtemp(prefix="process-tree-"))
            cache = fresh_cache(args.cache)
            env = {**base, **arms[arm], "ICML_TOPICS_CACHE_DIR": str(cache)}
            out = args.keep / arm if args.keep is not None and round_ == 0 else work / "out"
            command = [sys.executable, "-m", "icml_topics", args.command, str(args.corpus),
                       *(("--by", "year") if args.command == "compare" else ()),
                       "--out", str(out), "--quiet",
                       *(("--workers", "2") if arm.endswith("-workers-2") else ())]  # fmt: skip
            row = {"arm": arm, "round": round_ + 1, "load": os.getloadavg()[0], **measured(command, env, work)}
            row["load_end"] = os.getloadavg()[0]
            print(row, flush=True)
            rows.append(row)
            shutil.rmtree(work, ignore_errors=True)
            shutil.rmtree(cache, ignore_errors=True)
    flag = "" if args.command == "compare" else f" --command {args.command}"
    lines = [
        f"# Processes and memory of one `{args.command}` (issue {50 if args.command == 'compare' else 51})",
        "",
        f"Command: `python benchmarks/process_tree.py --cache DIR --corpus {args.corpus.name} --pairs {args.pairs} "
        f"--arms {','.join(chosen)}{flag}`; machine: {cpu_model()}, {os.cpu_count()} CPUs, shared with other work "
        f"(load average {load_start[0]:.1f} at the start, {rows[-1].get('load_end', 0) if rows else 0:.1f} at the "
        "end). Embeddings cached, "
        "no stage result cached; each run a fresh whole process, the arms in turn.",
        "",
        "| arm | round | wall s | load at start | load at end | largest process count | peak summed RSS (MiB) | "
        "main process peak (MiB) | tree / main | CPU s, all | CPU s, children | CPU s, main |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['arm']} | {r['round']} | {r['seconds']:.1f} | {r['load']:.1f} | {r['load_end']:.1f} | {r['processes']} | "
            f"{r['tree_peak_mib']:,.0f} | {r['main_peak_mib']:,.0f} | {r['tree_peak_mib'] / r['main_peak_mib']:.2f} | "
            f"{r['cpu_s']:.1f} | {r['children_cpu_s']:.1f} | {r['cpu_s'] - r['children_cpu_s']:.1f} |"
        )
    lines += ["", "Medians:", ""]
    for arm in chosen:
        mine = [r for r in rows if r["arm"] == arm]
        lines.append(
            f"- {arm}: {statistics.median(r['seconds'] for r in mine):.1f} s, at most "
            f"{max(r['processes'] for r in mine)} processes, CPU "
            f"{statistics.median(r['cpu_s'] for r in mine):.1f} s in all, tree peak "
            f"{statistics.median(r['tree_peak_mib'] for r in mine):,.0f} MiB, main peak "
            f"{statistics.median(r['main_peak_mib'] for r in mine):,.0f} MiB"
        )
    lines += ["", "Child processes seen (command line, first words):", ""]
    for arm in chosen:
        seen = sorted({c for r in rows if r["arm"] == arm for c in r["children"]})
        lines.append(f"- {arm}: " + ("; ".join(f"`{c}`" for c in seen) if seen else "none"))
    lines += ["", "When each child lived (seconds from the start of its run; the run's wall seconds; largest RSS):", ""]
    for r in rows:
        spans = "; ".join(f"{a:.0f}-{b:.0f} s, {m:,.0f} MiB `{c[:40]}`" for a, b, m, c in r["lived"])
        lines.append(f"- {r['arm']}, round {r['round']} ({r['seconds']:.0f} s): {spans or 'no child'}")
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
