#!/usr/bin/env bash
# `make demo` as a new user runs it: a fresh clone of this repository, an empty HOME (so no pip cache, no
# icml_topics cache, no numba cache, no recorded embedding path), on this machine. Writes
# benchmarks/results/make_demo.md: the machine, the total wall time, the demo's own progress lines and the
# size of the .venv it made.
#   bash benchmarks/make_demo_time.sh [WORKDIR]
set -e
SRC=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$(mktemp -d)}
rm -rf "$WORK/clone" "$WORK/home" && mkdir -p "$WORK/home"
git clone -q "$SRC" "$WORK/clone"
cd "$WORK/clone"
start=$(date +%s)
HOME="$WORK/home" make demo > "$WORK/make_demo.log" 2>&1
total=$(( $(date +%s) - start ))
out="$SRC/benchmarks/results/make_demo.md"
{
  echo "# \`make demo\` on a fresh clone with an empty HOME"
  echo
  echo "Command: \`bash benchmarks/make_demo_time.sh\` at $(git -C "$SRC" rev-parse --short HEAD); machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at the end."
  echo
  echo "- \`make demo\` in all (venv, pip, the demo): **${total} s**"
  echo "- \`.venv\`: $(du -sh .venv | cut -f1)"
  echo
  echo "The demo's own lines (seconds since it started):"
  echo
  echo '```'
  grep '^\[' "$WORK/make_demo.log" | grep -v 'embedding: [0-9]* of' || true
  echo '```'
} > "$out"
cat "$out"
