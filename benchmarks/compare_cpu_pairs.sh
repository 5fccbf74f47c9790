#!/bin/bash
# CPU seconds (user+sys, /usr/bin/time -v) of one whole `compare` of the ICLR corpus, two checkouts alternating
# (issue 50: no slower than before). Each run: a copy of ~/.cache/icml_topics without stage results (embeddings
# cached), outputs kept for benchmarks/compare_outputs.py.
#   benchmarks/compare_cpu_pairs.sh BEFORE_CHECKOUT AFTER_CHECKOUT PAIRS WORKDIR OUT.md
set -eu
before=$1; after=$2; pairs=$3; work=$4; out=$5
corpus=/work/shared/data/iclr-2024-2025-areas.jsonl.gz
py=${PYTHON:-/work/main/.venv/bin/python}
mkdir -p "$work"
run() {  # label checkout
  local cache=$work/cache-$1
  rm -rf "$cache" "$work/out-$1"; mkdir -p "$cache"
  for n in ~/.cache/icml_topics/*; do
    case $(basename "$n") in reductions|representations|trees|outputs|locks) ;; *) cp -a "$n" "$cache/";; esac
  done
  local l0; l0=$(cut -d' ' -f1 /proc/loadavg)
  (cd "$work" && PYTHONPATH=$2 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ICML_TOPICS_CACHE_DIR=$cache \
    /usr/bin/time -v "$py" -m icml_topics compare "$corpus" --by year --no-align --out "$work/out-$1" \
    >/dev/null 2>"$work/time-$1.log")
  local u s w; u=$(grep 'User time' "$work/time-$1.log" | awk '{print $NF}')
  s=$(grep 'System time' "$work/time-$1.log" | awk '{print $NF}')
  w=$(grep 'Elapsed' "$work/time-$1.log" | awk '{print $NF}')
  echo "| $1 | $u | $s | $(echo "$u + $s" | bc) | $w | $l0 | $(cut -d' ' -f1 /proc/loadavg) |" >>"$out"
  rm -rf "$cache"
}
{
  echo "# CPU seconds of one ICLR \`compare\`, two checkouts alternating"
  echo
  echo "Command: \`benchmarks/compare_cpu_pairs.sh $before $after $pairs WORKDIR OUT.md\`; corpus: $(basename $corpus)"
  echo "(18,373 papers, embeddings cached, no stage result cached, \`--by year --no-align\`); machine:"
  echo "$(lscpu | grep 'Model name' | sed 's/  */ /g'), $(nproc) CPUs, shared with other work (load averages below)."
  echo "before: $(git -C "$before" rev-parse --short HEAD) ($before); after: $(git -C "$after" rev-parse --short HEAD) ($after, working tree as run)."
  echo
  echo "| run | user s | sys s | CPU s | wall | load at start | load at end |"
  echo "|---|--:|--:|--:|--:|--:|--:|"
} >"$out"
for i in $(seq 1 "$pairs"); do
  run "before$i" "$before"
  run "after$i" "$after"
done
echo >>"$out"
for i in $(seq 1 "$pairs"); do
  cmp=$("$py" "$(dirname "$0")/compare_outputs.py" "$work/out-before$i" "$work/out-after$i" --label-a before --label-b after)
  echo "- outputs, pair $i: $(echo "$cmp" | grep -c ': identical$') files identical, $(echo "$cmp" | grep -c ': differs$\|: only in') not" >>"$out"
  echo "$cmp" | grep -v ': identical$' | grep '^ *- ' | sed 's/^/  /' >>"$out" || true
done
