#!/usr/bin/env bash
# CPU and wall time of test files run with the default thread pools and with one thread per pool (what
# tests/conftest.py gives each pytest-xdist worker of `make test` on 2 cores: OMP_NUM_THREADS, OPENBLAS_NUM_THREADS,
# MKL_NUM_THREADS, NUMBA_NUM_THREADS = 1), alternating, each run with a fresh embedding cache and this machine's
# decided embedding path (ICML_TOPICS_MACHINE_DIR, default ~/.cache/icml-topics-suite-threads). One process at a
# time: on a busy machine the wall time follows the load, the CPU time much less. Writes
# benchmarks/results/suite_threads.md.
#   bash benchmarks/suite_threads.sh [ROUNDS] [TEST FILE ...]
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
cd "$SRC"
PY=${PY:-$SRC/.venv/bin/python}
ROUNDS=${1:-1}
shift || true
FILES=("$@")
[ ${#FILES[@]} -gt 0 ] || FILES=(tests/stages/test_new_subjects.py tests/model/test_trend_methods.py)
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export ICML_TOPICS_MACHINE_DIR=${ICML_TOPICS_MACHINE_DIR:-$HOME/.cache/icml-topics-suite-threads}
unset ICML_TOPICS_TEST_CACHE  # conftest: a fresh embedding cache per run, as in `make test`
out="$SRC/benchmarks/results/suite_threads.md"
rows=$(mktemp)
for round in $(seq "$ROUNDS"); do
  for file in "${FILES[@]}"; do
    for threads in default 1; do
      log=$(mktemp)
      load=$(cut -d' ' -f1 /proc/loadavg)
      if [ "$threads" = default ]; then
        /usr/bin/time -f "%e %U %S" -o "$log.time" "$PY" -m pytest -q -p no:cacheprovider "$file" > "$log" 2>&1
      else
        OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 NUMBA_NUM_THREADS=1 \
          /usr/bin/time -f "%e %U %S" -o "$log.time" "$PY" -m pytest -q -p no:cacheprovider "$file" > "$log" 2>&1
      fi
      rc=$?
      read -r wall user sys < "$log.time"
      cpu=$(echo "$user + $sys" | bc)
      echo "| $round | \`$file\` | $threads | $rc | $load | $wall | $cpu |" | tee -a "$rows"
      rm -f "$log" "$log.time"
    done
  done
done
{
  echo "# Test files with the default thread pools and with one thread per pool"
  echo
  echo "Command: \`bash benchmarks/suite_threads.sh $ROUNDS ${FILES[*]}\` at $(git rev-parse --short HEAD);"
  echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) CPUs (shared: see the load)."
  echo "Each run: one pytest process, a fresh embedding cache; 'default': the libraries' own thread counts (one per"
  echo "CPU), '1': OMP_NUM_THREADS = OPENBLAS_NUM_THREADS = MKL_NUM_THREADS = NUMBA_NUM_THREADS = 1. CPU = user + system"
  echo "seconds of pytest and its children."
  echo
  echo "| round | file | threads | exit | load at start | wall s | CPU s |"
  echo "|---|---|---|---|---|---|---|"
  cat "$rows"
} > "$out"
rm -f "$rows"
cat "$out"
