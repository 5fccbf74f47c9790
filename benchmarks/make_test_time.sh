#!/usr/bin/env bash
# `make test` timed as CI runs it after the install (lint, the strict docs build, the whole suite), in this
# checkout with its .venv already installed (a fresh clone adds the install: `.ci/run`). Writes
# benchmarks/results/make_test.md: the machine and its load, the total wall and CPU time, pytest's summary
# and its 15 slowest steps.
#   bash benchmarks/make_test_time.sh
set -e
SRC=$(cd "$(dirname "$0")/.." && pwd)
cd "$SRC"
LOG=$(mktemp)
load_start=$(cut -d' ' -f1 /proc/loadavg)
start=$(date +%s)
set +e
/usr/bin/time -f "%U %S" -o "$LOG.cpu" make test > "$LOG" 2>&1
rc=$?
set -e
total=$(( $(date +%s) - start ))
read -r user sys < <(tail -n 1 "$LOG.cpu") || true  # (time writes "Command exited ..." first on failure)
out="$SRC/benchmarks/results/make_test.md"
{
  echo "# \`make test\` on this machine"
  echo
  echo "Command: \`bash benchmarks/make_test_time.sh\` at $(git rev-parse --short HEAD); machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) CPUs; load average ${load_start} at the start, $(cut -d' ' -f1 /proc/loadavg) at the end; exit status ${rc}."
  echo
  echo "- \`make test\` in all (lint, docs, the suite; the .venv already installed): **${total} s** ($(( total / 60 )) min $(( total % 60 )) s)"
  echo "- CPU time of all its processes: ${user} s user, ${sys} s system"
  echo "- pytest: $(grep -E '^[0-9]+ (passed|failed)|[0-9]+ passed' "$LOG" | tail -1)"
  grep -E '^(FAILED|ERROR) ' "$LOG" | sed 's/^/  - /' || true
  echo
  echo "The 15 slowest steps (pytest --durations):"
  echo
  echo '```'
  sed -n '/slowest 15 durations/,/passed\|failed/p' "$LOG" | grep -E '^[0-9.]+s ' || true
  echo '```'
} > "$out"
rm -f "$LOG" "$LOG.cpu"
cat "$out"
exit $rc
