"""Where one ``compare`` (or ``fit``) spends its wall time, and whether it uses the second core (issue 50).

    python benchmarks/core_use.py --cache DIR --corpus FILE [--checkout PATH] [--env K=V ...] [--out FILE.md]
        [--keep DIR]

Runs one fresh ``python -m icml_topics compare FILE --by year --out DIR`` (its progress lines on) on a copy of
``--cache`` without any stage result (``process_tree.fresh_cache``), with ``PYTHONPATH`` = ``--checkout``
(default: this checkout). Every ``SAMPLE_S`` seconds it reads the CPU seconds of the main process and of all
its descendants (psutil); each progress line is stamped as it arrives. Between two progress lines (a stage,
or a step of one that the heartbeat names) it reports the wall seconds, the CPU seconds of the main process
and of the other processes, and the share of that time in which both cores were busy with this run
(main + others >= 1.5 CPU-seconds a second, sampled). Every number in the results file is computed here.
``--keep DIR``: the compare's outputs are written there and kept (to compare them with another run's).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

SAMPLE_S = 0.25


def _cpu(p: psutil.Process) -> float:
    t = p.cpu_times()
    return t.user + t.system + getattr(t, "children_user", 0.0) + getattr(t, "children_system", 0.0)


def profile(command: list[str], env: dict[str, str], cwd: Path) -> tuple[list, list, float]:
    """(lines: (seconds, text)), (samples: (seconds, main cpu, others cpu)), wall seconds."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    main = psutil.Process(proc.pid)
    lines: list[tuple[float, str]] = []

    def read() -> None:
        for line in proc.stderr:
            lines.append((time.perf_counter() - start, line.rstrip()))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    samples, others = [], {}
    while proc.poll() is None:
        try:
            m = main.cpu_times()
            main_cpu = m.user + m.system
            for c in main.children(recursive=True):
                try:
                    others[c.pid] = _cpu(c)
                except psutil.Error:
                    pass
        except psutil.Error:
            break
        samples.append((time.perf_counter() - start, main_cpu, sum(others.values())))
        time.sleep(SAMPLE_S)
    proc.wait()
    reader.join(timeout=5)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{command} failed ({proc.returncode}):\n" + "\n".join(t for _, t in lines[-40:]))
    return lines, samples, wall


def segments(lines: list, samples: list, wall: float) -> list[dict]:
    """Per interval between progress lines: wall, main CPU, others' CPU, share of samples with both cores busy."""
    marks = [(0.0, "(start: imports, reading)"), *lines, (wall, "(end)")]
    out = []
    for (t0, text), (t1, _) in zip(marks, marks[1:]):
        inside = [s for s in samples if t0 <= s[0] <= t1]
        if len(inside) < 2:
            out.append({"start": t0, "wall": t1 - t0, "main": 0.0, "others": 0.0, "both": 0.0, "line": text})
            continue
        busy = [((b[1] - a[1]) + (b[2] - a[2])) / max(b[0] - a[0], 1e-9) >= 1.5 for a, b in zip(inside, inside[1:])]
        out.append({
            "start": t0, "wall": t1 - t0, "main": inside[-1][1] - inside[0][1],
            "others": inside[-1][2] - inside[0][2], "both": sum(busy) / len(busy), "line": text,
        })  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True, help="cache folder holding the corpus' embeddings")
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--checkout", type=Path, default=REPO, help="the code to run (PYTHONPATH)")
    parser.add_argument(
        "--env", action="append", default=[], help="K=V set for the run (e.g. ICML_TOPICS_BACKGROUND=0)"
    )
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "core_use.md")
    parser.add_argument("--keep", type=Path, default=None, help="write the compare's outputs there, kept")
    args = parser.parse_args()
    from _machine import cpu_model
    from process_tree import fresh_cache

    extra = dict(kv.split("=", 1) for kv in args.env)
    work = Path(tempfile.mkdtemp(prefix="core-use-"))
    cache = fresh_cache(args.cache)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(args.checkout),
           "ICML_TOPICS_CACHE_DIR": str(cache), **extra}  # fmt: skip
    command = [sys.executable, "-m", "icml_topics", "compare", str(args.corpus), "--by", "year",
               "--out", str(args.keep or work / "out")]  # fmt: skip
    load = os.getloadavg()[0]
    try:
        lines, samples, wall = profile(command, env, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
    rows = segments(lines, samples, wall)
    main_total = samples[-1][1] if samples else 0.0
    others_total = samples[-1][2] if samples else 0.0
    head = [
        "# Where one `compare` spends its wall time, and whether it uses the second core (issue 50)",
        "",
        f"Command: `python benchmarks/core_use.py --cache DIR --corpus {args.corpus.name}"
        + "".join(f" --env {kv}" for kv in args.env)
        + f"` (checkout: `{args.checkout.name}`); machine: {cpu_model()}, {os.cpu_count()} CPUs, shared with other "
        f"work (load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end). Embeddings cached, no "
        "stage result cached.",
        "",
        f"Wall {wall:.1f} s; CPU {main_total:.1f} s in the main process, {others_total:.1f} s in the others.",
        "",
        "Each row: from one progress line to the next. `both cores`: share of the samples in which this run used "
        "1.5 CPU-seconds a second or more.",
        "",
        "| from s | wall s | CPU s, main | CPU s, others | both cores | progress line |",
        "|--:|--:|--:|--:|--:|---|",
    ]
    body, stage = [], ""
    for r in rows:
        text = r["line"].split("] ", 1)[-1]
        if " s so far" not in text:
            stage = text
        elif stage and text.startswith(stage):
            text = "... " + text[len(stage) :].lstrip(", ")  # a heartbeat: the step the stage is at
        body.append(
            f"| {r['start']:.1f} | {r['wall']:.1f} | {r['main']:.1f} | {r['others']:.1f} | {r['both']:.0%} | "
            f"{text[:120].replace('|', '/')} |"
        )
    text = "\n".join(head + body) + "\n"
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
