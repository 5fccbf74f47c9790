"""What every new process pays before it works: BERTopic's import and a small CLI fit.

    python benchmarks/process_start.py --base bc8cfb6 [--rounds 3]

Each measurement is a fresh process, the two arms in turn (A B A B ...), one uncounted warm-up each
(the numba cache and the machine folder are warm: the embedding path is decided, the export made):

* ``import_bertopic()`` (BERTopic's import as a fit makes it): this tree vs ``--base``;
* ``icml-topics fit`` of 12 seed abstracts with a **new** embedding cache on a decided machine (a notebook
  or script pointed at another cache folder, every CLI test): this tree vs ``--base`` (a git worktree of
  that commit, imported through ``PYTHONPATH``).

(An ``--evoc-rounds`` option timed EVoC's first compilation; EVoC's tree was replaced by the one hierarchy
under the themes (issue 39) and the option removed.)

Writes ``benchmarks/results/process_start.md``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from _machine import cpu_flags, cpu_model  # noqa: E402

SEEDS = REPO / "icml_topics" / "data" / "icml-2026-seed-abstracts.jsonl"
IMPORT = "from icml_topics.stages.bertopic_import import import_bertopic; import_bertopic()"


def timed(cmd: list[str], env: dict[str, str], cwd: Path = REPO) -> float:
    """Wall seconds of ``cmd`` run in ``cwd`` (``python -m`` imports the package of its working folder first)."""
    t = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=1800)
    seconds = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-3000:]}")
    return seconds


def side_by_side(arms: dict[str, callable], rounds: int, warmup: bool = True) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in arms}
    for r in range(rounds + (1 if warmup else 0)):
        for name, run in arms.items():
            seconds = run()
            print(f"  {name}: {seconds:.1f} s{' (warm-up)' if warmup and r == 0 else ''}", flush=True)
            if not (warmup and r == 0):
                times[name].append(seconds)
    return times


def row(label: str, times: dict[str, list[float]]) -> str:
    (a, ta), (b, tb) = times.items()
    ma, mb = statistics.median(ta), statistics.median(tb)
    spread = lambda t: f"{min(t):.1f}-{max(t):.1f}"  # noqa: E731
    return f"| {label} | {a}: **{ma:.1f}** ({spread(ta)}) | {b}: {mb:.1f} ({spread(tb)}) | {ma / mb:.2f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the commit to compare the CLI fit with (e.g. main~1)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "process_start.md")
    args = parser.parse_args()
    base = subprocess.run(["git", "rev-parse", "--short", args.base], cwd=REPO, capture_output=True, text=True)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    load0 = os.getloadavg()[0]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    py = sys.executable
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="process-start-") as tmp:
        tmp_path = Path(tmp)
        env["ICML_TOPICS_MACHINE_DIR"] = str(tmp_path / "machine")  # decided once
        worktree = tmp_path / "base"
        subprocess.run(["git", "worktree", "add", "--detach", str(worktree), args.base], cwd=REPO, check=True)
        try:
            print("import_bertopic()", flush=True)
            imports = side_by_side(
                {
                    f"this tree ({head.stdout.strip()})": lambda: timed(
                        [py, "-c", IMPORT], {**env, "PYTHONPATH": str(REPO)}
                    ),
                    f"{base.stdout.strip()}": lambda: timed(
                        [py, "-c", IMPORT], {**env, "PYTHONPATH": str(worktree)}, cwd=worktree
                    ),
                },
                args.rounds,
            )
            small = tmp_path / "seeds-12.jsonl"
            small.write_text("".join(SEEDS.read_text(encoding="utf-8").splitlines(keepends=True)[:12]))
            counter = iter(range(10**6))

            def fit(tree: Path, name: str) -> float:
                run = tmp_path / f"{name}-{next(counter)}"
                cli_env = {**env, "PYTHONPATH": str(tree), "ICML_TOPICS_CACHE_DIR": str(run / "cache")}
                cmd = [py, "-c", f"import icml_topics; assert icml_topics.__file__.startswith({str(tree)!r})"]
                timed(cmd, cli_env, cwd=tree)  # the arm imports its own tree's package
                cmd = [py, "-m", "icml_topics", "fit", str(small), "--out", str(run / "out"), "-q"]
                return timed([*cmd, "--min-topic-size", "3"], cli_env, cwd=tree)

            print("icml-topics fit, 12 abstracts, new cache", flush=True)
            fits = side_by_side(
                {
                    f"this tree ({head.stdout.strip()})": lambda: fit(REPO, "a"),
                    f"{base.stdout.strip()}": lambda: fit(worktree, "b"),
                },
                args.rounds,
            )
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=REPO, check=False)
    load1 = os.getloadavg()[0]
    lines += [
        "# What a new process pays before it works",
        "",
        f"Command: `python benchmarks/process_start.py --base {args.base} --rounds {args.rounds}` "
        f"at {head.stdout.strip()}.",
        "",
        f"Machine: {cpu_model()}, {os.cpu_count()} cores, flags {cpu_flags()}; load average {load0:.1f} at the "
        f"start, {load1:.1f} at the end. Wall seconds of whole fresh processes, the two arms in turn (A B A B), "
        "median (min-max); numba cache and machine folder warm.",
        "",
        "| what | A | B | A/B |",
        "| --- | --- | --- | ---: |",
        row("`import_bertopic()` in a fresh process", imports),
        row("`icml-topics fit` of 12 abstracts, new cache, decided machine", fits),
    ]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
