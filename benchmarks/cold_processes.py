"""Peak memory of each process of a first CLI fit on a new machine, and when each stage started.

Runs ``icml-topics fit CORPUS --out DIR`` with an empty embedding cache, machine folder and numba cache
(a new user's first run), samples ``VmHWM`` of the fit and of every child it starts (the embedding
setup, the ONNX graph passes, the background worker) from ``/proc`` twice a second, and the summed ``VmRSS``
of all of them (the whole process tree: its peak during the one-time embedding setup and after it), and
writes a Markdown table.

    python benchmarks/cold_processes.py --out benchmarks/results/cold_processes.md
"""

from __future__ import annotations

import argparse
import os
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "cold_processes.md")
    args = parser.parse_args(argv)
    if not args.data.exists():
        sys.exit(f"corpus not found at {args.data}; pass --data PATH")
    work = Path(tempfile.mkdtemp(prefix="icml-topics-cold-"))
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "ICML_TOPICS_CACHE_DIR": str(work / "cache"),
        "ICML_TOPICS_MACHINE_DIR": str(work / "machine"),
        "NUMBA_CACHE_DIR": str(work / "numba"),
    }
    cli = Path(sys.executable).with_name("icml-topics")
    command = [str(cli), "fit", str(args.data), "--out", str(work / "out")]
    start = time.monotonic()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: list[tuple[float, str]] = []
    reader = threading.Thread(
        target=lambda: lines.extend((time.monotonic() - start, line.strip()) for line in proc.stderr), daemon=True
    )
    reader.start()
    peaks: dict[int, tuple[int, str, float]] = {}
    tree: list[tuple[float, int, bool]] = []  # (seconds, summed RSS MiB, the embedding setup alive)
    while proc.poll() is None:
        total, setup = 0, False
        for pid in _descendants(proc.pid):
            seen = _peak_mib(pid)
            if seen and seen[0] > peaks.get(pid, (0, "", 0.0))[0]:
                peaks[pid] = (seen[0], seen[1], time.monotonic() - start)
            total += _rss_mib(pid)
            setup |= bool(seen) and _role(seen[1]).startswith(("embedding setup", "ONNX graph passes"))
        tree.append((time.monotonic() - start, total, setup))
        time.sleep(0.5)
    wall = time.monotonic() - start
    reader.join(timeout=5)
    if proc.returncode != 0:
        sys.exit(f"the fit failed (exit {proc.returncode}): {lines[-5:]}")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    cpu = f"{cpu_model()} ({cpu_flags()})"
    rows = [f"| {_role(cmd)} | {mib:,} | {at:.0f} |" for mib, cmd, at in sorted(peaks.values(), key=lambda p: -p[0])]
    stages = [f"| {at:.1f} | {text.split('] ', 1)[-1]} |" for at, text in lines if text.startswith("[")]
    during = max((t for t in tree if t[2]), key=lambda t: t[1], default=(0.0, 0, True))
    after = max((t for t in tree if not t[2] and t[0] > during[0]), key=lambda t: t[1], default=(0.0, 0, False))
    report = "\n".join(
        [
            "# A first fit on a new machine: memory of each process",
            "",
            f"Command: `python benchmarks/cold_processes.py` (`icml-topics fit {args.data.name} --out DIR` with an empty "
            f"embedding cache, machine folder and numba cache), commit {commit}, {cpu}, {os.cpu_count()} CPUs. "
            f"Whole process: {wall:.1f} s; load average at the end {load}.",
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
    args.out.write_text(report, encoding="utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
