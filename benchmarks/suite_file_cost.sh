#!/usr/bin/env bash
# The CPU cost of some test files as `make test` pays it on a fresh CI machine: one pytest run (no xdist) with an
# empty test cache (as CI starts), the machine's embedding export and decision already made (CI makes them once
# per session: a copy of a folder decided once by `icml-topics info --decide`), one thread per pool (as each
# `make test` worker has on 2 cores). Appends one row to benchmarks/results/suite_file_cost.md: the label, the
# commit, the CPU seconds (user + system of pytest and every process it started), the wall time, the load
# average and pytest's summary line (processes that outlive pytest, such as multiprocessing's forkserver, are
# waited for and counted). Run it for the same tests before and after a change, on a quiet machine.
#   bash benchmarks/suite_file_cost.sh [--at REV] LABEL TEST [TEST ...]
#     --at REV: the tests and the package as they are at REV (a `git archive` of it), not the checkout
#   SUITE_COST_MACHINE=DIR: the decided machine folder to copy (default: decided once, into $TMPDIR)
#   SUITE_COST_LOG=FILE: keep pytest's output there (its 30 slowest steps: which fixture or test costs the time)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$SRC/.venv/bin/python}
at=""
if [ "${1:-}" = "--at" ]; then at=$2; shift 2; fi
label=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree=$SRC
if [ -n "$at" ]; then
  tree=$work/tree
  mkdir -p "$tree"
  git -C "$SRC" archive "$at" | tar -x -C "$tree"
fi
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export ICML_TOPICS_SHARED_DATA=${ICML_TOPICS_SHARED_DATA:-$SRC/../shared/data}
machine=${SUITE_COST_MACHINE:-${TMPDIR:-/tmp}/suite-file-cost-machine}
if [ ! -f "$machine/precision.json" ]; then  # the session's one-time setup, not measured
  ICML_TOPICS_MACHINE_DIR=$machine ICML_TOPICS_CACHE_DIR=$machine PYTHONPATH=$SRC "$PY" -m icml_topics info --decide >/dev/null
fi
cp -r "$machine" "$work/machine"
mkdir -p "$work/cache"
export ICML_TOPICS_TEST_CACHE=$work/cache ICML_TOPICS_MACHINE_DIR=$work/machine PYTHONPATH=$tree
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 NUMBA_NUM_THREADS=1
load=$(cut -d' ' -f1 /proc/loadavg)
start=$(date +%s)
set +e
# pytest runs under a subreaper that waits for every orphan before it exits: a process its parent never waits
# for (multiprocessing's forkserver, which reaps the children forked from it) is counted too
REAP='import ctypes, os, subprocess, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans below become children of this process
rc = subprocess.call(sys.argv[1:])
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
sys.exit(rc)'
(cd "$tree" && /usr/bin/time -f "%U %S" -o "$work/cpu" "$PY" -c "$REAP" "$PY" -m pytest -q -p no:cacheprovider \
  --durations=30 "$@" >"$work/log" 2>&1)
rc=$?
set -e
[ -n "${SUITE_COST_LOG:-}" ] && cp "$work/log" "$SUITE_COST_LOG"
wall=$(($(date +%s) - start))
read -r user sys < <(tail -n 1 "$work/cpu")
cpu=$(python3 -c "print(f'{$user + $sys:.0f}')")
out=$SRC/benchmarks/results/suite_file_cost.md
if [ ! -f "$out" ]; then
  {
    echo "# CPU cost of test files (\`benchmarks/suite_file_cost.sh\`)"
    echo
    echo "Each row: one pytest run, no xdist, an empty test cache, the machine's export and decision made ahead, one"
    echo "thread per pool. Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(getconf _NPROCESSORS_ONLN) CPUs."
    echo "CPU s are user + system of pytest and every process it started; wall and load depend on what else ran."
    echo
    echo "| label | at | tests | CPU s | wall s | load at start | pytest |"
    echo "|---|---|---|--:|--:|--:|---|"
  } >"$out"
fi
rev=$(git -C "$SRC" rev-parse --short "${at:-HEAD}")
[ -z "$at" ] && [ -n "$(git -C "$SRC" status --porcelain -- tests icml_topics)" ] && rev="$rev+changes"
echo "| $label | $rev | ${*//|/\\|} | $cpu | $wall | $load | $(tail -n 1 "$work/log" | tr -d '=' | xargs) (exit $rc) |" >>"$out"
tail -n 1 "$out"
