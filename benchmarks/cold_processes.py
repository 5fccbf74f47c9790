"""Peak memory of each process of a first CLI fit on a new machine, and when each stage started.

Runs ``icml-topics fit CORPUS --out DIR`` with an empty embedding cache, machine folder and numba cache
(a new user's first run), samples ``VmHWM`` of the fit and of every child it starts (the embedding
setup, the ONNX graph passes, the background worker) from ``/proc`` twice a second, and the summed ``VmRSS``
of all of them (the whole process tree: its peak during the one-time embedding setup and after it), and
writes a Markdown table.

    python benchmarks/cold_processes.py --out benchmarks/results/cold_processes.md

``--setup-only`` runs only the one-time embedding setup the fit starts with (``setup_child.prepare``, as a
fit of 1,000 papers or more calls it), in a process of its own with the same empty folders. ``--checkout``
(repeatable) names the repository checkouts to run (default: this one; each run imports the package from its
checkout through ``PYTHONPATH``); with ``--pairs N`` they run in turn, N rounds, and the report is one row per
run: wall and CPU seconds of the whole process tree, its summed-RSS peak, the largest process, and how many
processes loaded torch.

    python benchmarks/cold_processes.py --setup-only --checkout ../main --checkout . --pairs 2 \\
        --out benchmarks/results/cold_setup_torch_once.md
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "icml-2013-2024.jsonl.gz"
sys.path.insert(0, str(ROOT / "benchmarks"))
from _machine import cpu_flags, cpu_model  # noqa: E402


def _descendants(root: int) -> list[int]:
    """``root`` and every living process below it."""
    try:
        return [root, *(child.pid for child in psutil.Process(root).children(recursive=True))]
    except psutil.NoSuchProcess:
        return []


def _peak_mib(pid: int) -> tuple[int, str] | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        command = Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ").strip()
    except OSError:
        return None
    if "VmHWM:" not in status:
        return None
    return int(status.split("VmHWM:")[1].split()[0]) // 1024, command


def _rss_mib(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return int(status.split("VmRSS:")[1].split()[0]) // 1024 if "VmRSS:" in status else 0


def _loads_torch(pid: int) -> bool:
    """Whether process ``pid`` has torch's library mapped (it imported torch)."""
    try:
        return any("libtorch" in m.path for m in psutil.Process(pid).memory_maps())
    except (psutil.Error, OSError):
        return False


def _role(command: str) -> str:
    for module, role in (
        ('"staged"', "embedding setup after the graph passes (guard)"),
        ("embedding.setup_child", "embedding setup (export, guard)"),
        ("embedding.onnx_export", "ONNX graph passes"),
        ("stages.jit_warmup", "numba warm-up"),
        ("multiprocessing.spawn", "the fit's background worker"),
        ("multiprocessing.resource_tracker", "Python's resource tracker"),
    ):
        if module in command:
            return role
    return "the fit (icml-topics)"


SETUP_ONLY = "from icml_topics.embedding.setup_child import prepare; print(prepare(None, device=None, cache=True))"
"""What a fit of 1,000 papers or more runs first on a new machine (``corpus_rule`` -> ``setup_child.prepare``)."""


def _measure(command: list[str], env: dict[str, str], cwd: Path) -> dict:
    """Run ``command`` to its end, sampling every process of its tree twice a second."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()[0]
    start = time.monotonic()
    proc = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: list[tuple[float, str]] = []
    reader = threading.Thread(
        target=lambda: lines.extend((time.monotonic() - start, line.strip()) for line in proc.stderr), daemon=True
    )
    reader.start()
    peaks: dict[int, tuple[int, str, float]] = {}
    tree: list[tuple[float, int, bool]] = []  # (seconds, summed RSS MiB, the embedding setup alive)
    torch_loaded: dict[int, str] = {}
    while proc.poll() is None:
        total, setup = 0, False
        for pid in _descendants(proc.pid):
            seen = _peak_mib(pid)
            if seen and seen[0] > peaks.get(pid, (0, "", 0.0))[0]:
                peaks[pid] = (seen[0], seen[1], time.monotonic() - start)
            if seen and pid not in torch_loaded and _loads_torch(pid):
                torch_loaded[pid] = seen[1]
            total += _rss_mib(pid)
            setup |= bool(seen) and _role(seen[1]).startswith(("embedding setup", "ONNX graph passes"))
        tree.append((time.monotonic() - start, total, setup))
        time.sleep(0.5)
    wall = time.monotonic() - start
    reader.join(timeout=5)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"the run failed (exit {proc.returncode}): {lines[-5:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "peaks": peaks, "tree": tree, "lines": lines, "torch": torch_loaded, "load": load}


def _fresh_env(work: Path, checkout: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(checkout),
        "ICML_TOPICS_CACHE_DIR": str(work / "cache"),
        "ICML_TOPICS_MACHINE_DIR": str(work / "machine"),
        "NUMBA_CACHE_DIR": str(work / "numba"),
    }


def _commit(checkout: Path) -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=checkout, capture_output=True, text=True)
    return done.stdout.strip() or checkout.name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "cold_processes.md")
    parser.add_argument("--setup-only", action="store_true", help="run only the one-time embedding setup")
    parser.add_argument("--checkout", type=Path, action="append", help="a checkout to run (repeatable)")
    parser.add_argument("--pairs", type=int, default=1, help="rounds of the checkouts, run in turn")
    args = parser.parse_args(argv)
    checkouts = [c.resolve() for c in (args.checkout or [ROOT])]
    if not args.setup_only and not args.data.exists():
        sys.exit(f"corpus not found at {args.data}; pass --data PATH")
    if args.setup_only or len(checkouts) > 1 or args.pairs > 1:
        return _compare(args, checkouts)
    work = Path(tempfile.mkdtemp(prefix="icml-topics-cold-"))
    command = [sys.executable, "-m", "icml_topics", "fit", str(args.data), "--out", str(work / "out")]
    run = _measure(command, _fresh_env(work, checkouts[0]), checkouts[0])
    args.out.write_text(_fit_report(args, run, _commit(checkouts[0])), encoding="utf-8")
    print(args.out.read_text(encoding="utf-8"))
    return 0


def _compare(args: argparse.Namespace, checkouts: list[Path]) -> int:
    """The checkouts in turn, ``args.pairs`` rounds: one row per run."""
    rows = []
    for round_ in range(1, args.pairs + 1):
        for checkout in checkouts:
            work = Path(tempfile.mkdtemp(prefix="icml-topics-cold-"))
            if args.setup_only:
                command = [sys.executable, "-c", SETUP_ONLY]
            else:
                command = [sys.executable, "-m", "icml_topics", "fit", str(args.data), "--out", str(work / "out")]
            run = _measure(command, _fresh_env(work, checkout), checkout)
            largest = max(run["peaks"].values(), default=(0, "", 0.0))
            torch_roles = sorted({_role(c) for c in run["torch"].values()})
            rows.append(
                f"| {round_} | {_commit(checkout)} | {run['load']:.2f} | {run['wall']:.1f} | {run['cpu']:.1f} | "
                f"{max((t[1] for t in run['tree']), default=0):,} | {largest[0]:,} ({_role(largest[1])}) | "
                f"{len(run['torch'])} ({'; '.join(torch_roles) or 'none'}) |"
            )
            print(rows[-1], flush=True)
    what = "the one-time embedding setup only (`setup_child.prepare`)" if args.setup_only else "a first CLI fit"
    report = "\n".join(
        [
            "# A new machine's " + ("embedding setup" if args.setup_only else "first fit") + ": checkouts in turn",
            "",
            f"Command: `python benchmarks/cold_processes.py {' '.join(sys.argv[1:])}`: {what}, with an empty embedding "
            f"cache, machine folder and numba cache each run; {cpu_model()} ({cpu_flags()}), {os.cpu_count()} CPUs; "
            f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}.",
            "",
            "wall: process start to end; CPU: user + system seconds of the whole process tree (`RUSAGE_CHILDREN`); "
            "tree peak: summed VmRSS of every process alive, sampled twice a second; torch: processes seen with "
            "libtorch mapped.",
            "",
            "| round | commit | load at start | wall s | CPU s | tree peak MiB | largest process MiB | torch loaded by |",
            "|--:|---|--:|--:|--:|--:|--:|---|",
            *rows,
            "",
        ]
    )
    args.out.write_text(report, encoding="utf-8")
    print(report)
    return 0


def _fit_report(args: argparse.Namespace, run: dict, commit: str) -> str:
    """The report of one first fit: each process's peak, the tree's peak during and after the setup, the stages."""
    peaks, tree, lines, wall = run["peaks"], run["tree"], run["lines"], run["wall"]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    cpu = f"{cpu_model()} ({cpu_flags()})"
    rows = [f"| {_role(cmd)} | {mib:,} | {at:.0f} |" for mib, cmd, at in sorted(peaks.values(), key=lambda p: -p[0])]
    stages = [f"| {at:.1f} | {text.split('] ', 1)[-1]} |" for at, text in lines if text.startswith("[")]
    during = max((t for t in tree if t[2]), key=lambda t: t[1], default=(0.0, 0, True))
    after = max((t for t in tree if not t[2] and t[0] > during[0]), key=lambda t: t[1], default=(0.0, 0, False))
    return "\n".join(
        [
            "# A first fit on a new machine: memory of each process",
            "",
            f"Command: `python benchmarks/cold_processes.py` (`icml-topics fit {args.data.name} --out DIR` with an empty "
            f"embedding cache, machine folder and numba cache), commit {commit}, {cpu}, {os.cpu_count()} CPUs. "
            f"Whole process: {wall:.1f} s, {run['cpu']:.1f} CPU s (the whole tree); load average at the end {load}.",
            "",
            "| process | peak RSS (VmHWM, MiB) | seconds from start when it peaked |",
            "|---|--:|--:|",
            *rows,
            "",
            "The whole process tree (summed VmRSS of every process alive, sampled):",
            "",
            f"- while the one-time embedding setup runs: peak {during[1]:,} MiB at {during[0]:.0f} s",
            f"- after it (the fit, its background worker while it works, Python's resource tracker): peak "
            f"{after[1]:,} MiB at {after[0]:.0f} s",
            "",
            "| seconds from start | stage |",
            "|--:|---|",
            *stages,
            "",
        ]
    )


if __name__ == "__main__":
    raise SystemExit(main())
