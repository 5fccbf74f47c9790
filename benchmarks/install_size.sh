#!/usr/bin/env bash
# The size of a fresh install, as `make demo` (SPEC=.) or `make test` (SPEC='.[test,notebook]') makes it:
#   bash benchmarks/install_size.sh /tmp/v-demo .
#   bash benchmarks/install_size.sh /tmp/v-test '.[test,notebook]'
# Prints the time of each pip step, the folder's size (du -sh) and the number of packages (pip list).
# Without pip's cache (PIP_NO_CACHE_DIR=1), so the download is part of the time; the times depend on the
# network and the machine's load, the sizes do not.
set -e
V=$1; SPEC=${2:-.}
SRC=$(cd "$(dirname "$0")/.." && pwd)
export PIP_NO_CACHE_DIR=1
rm -rf "$V"
s=$(date +%s.%N)
python3 -m venv "$V"
"$V/bin/python" -m pip install --quiet --upgrade pip
t1=$(date +%s.%N)
"$V/bin/python" -m pip install --quiet torch==2.13.0
t2=$(date +%s.%N)
(cd "$SRC" && "$V/bin/python" -m pip install --quiet -e "$SPEC")
t3=$(date +%s.%N)
echo "venv+pip $(echo "$t1-$s" | bc) s, torch $(echo "$t2-$t1" | bc) s, project $(echo "$t3-$t2" | bc) s"
du -sh "$V"
echo "packages: $("$V/bin/python" -m pip list 2>/dev/null | tail -n +3 | wc -l)"
