"""The benchmarks share one harness (issue 50, item 5): the machine is read in ``benchmarks/_machine.py`` only,
an in-process cost (time, CPU, peak RSS) is measured by ``benchmarks/_measure.py``, and every script that times
something names the machine in its results through ``_machine``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
HARNESS = {"_machine.py", "_measure.py", "_report.py", "_child.py"}
SCRIPTS = sorted(p for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_"))

#: reading the CPU by hand: ``_machine.cpu_model`` / ``machine_line`` / ``machine_facts`` do it once
OWN_CPU = re.compile(r"platform\.(processor|machine)\(|\blscpu\b|/proc/cpuinfo")
#: a peak RSS read by hand: ``_measure.measure_call`` (in process) or ``run_measured`` (a fresh process) do it
OWN_PEAK = re.compile(r"ru_maxrss|RUSAGE_SELF")
TIMES = re.compile(r"perf_counter\(|run_measured\(|measure_call\(")
#: not yet on the harness (issue 50 follow-up): the two process-tree samplers that count processes and
#: per-process high-water marks (``_measure`` sums the tree)
OWN_SAMPLER = {"process_tree.py", "scaling.py"}


def test_the_harness_and_the_scripts_are_there():
    assert HARNESS <= {p.name for p in BENCHMARKS.glob("_*.py")}
    assert len(SCRIPTS) > 15


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_a_script_reads_the_machine_through_the_harness(script):
    text = script.read_text(encoding="utf-8")
    assert not OWN_CPU.search(text), f"{script.name}: name the CPU with _machine.cpu_model() / machine_line()"
    if script.name not in OWN_SAMPLER:
        assert not OWN_PEAK.search(text), f"{script.name}: measure the peak with _measure.measure_call()"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_a_script_that_times_names_the_machine_it_ran_on(script):
    text = script.read_text(encoding="utf-8")
    if TIMES.search(text) and "results" in text and script.name not in OWN_SAMPLER - {"process_tree.py"}:
        assert re.search(r"from (benchmarks\.)?_machine import|import _machine|from _child import", text), (
            f"{script.name} writes timings: name the machine with _machine.machine_line() (or machine_facts())"
        )


def test_one_page_writer_writes_the_results_and_their_json(tmp_path):
    import sys

    sys.path.insert(0, str(BENCHMARKS))
    try:
        from _report import write_markdown
    finally:
        sys.path.remove(str(BENCHMARKS))
    out = write_markdown(tmp_path / "deep" / "page.md", ["# Title", "", "a line"], {"wall_s": 1.5}, echo=False)
    assert out.read_text(encoding="utf-8") == "# Title\n\na line\n"
    assert (tmp_path / "deep" / "page.json").read_text(encoding="utf-8") == '{\n "wall_s": 1.5\n}\n'


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="VmHWM is read from /proc (Linux)")
def test_a_measured_process_peak_is_its_own_not_the_parents():
    """On Linux ``ru_maxrss`` of a child keeps its parent's high-water mark across ``execve``: a benchmark whose
    parent holds fitted models read their memory as every child's peak (``static_map_speed.py``: 935 MiB for
    each draw). ``own_peak_bytes`` is the command's own ``VmHWM``."""
    import os
    import sys

    sys.path.insert(0, str(BENCHMARKS))
    try:
        from _measure import run_measured
    finally:
        sys.path.remove(str(BENCHMARKS))
    ballast = bytearray(400 * 2**20)  # this parent's memory, touched page by page
    ballast[::4096] = b"\1" * len(range(0, len(ballast), 4096))
    child = [sys.executable, "-c", "import time; x = bytearray(120 * 2**20); x[::4096] = b'1' * 30720; time.sleep(1)"]
    done = run_measured(child, env=dict(os.environ), timeout=60, log=None)
    assert done.returncode == 0
    assert 120 * 2**20 <= done.own_peak_bytes < 300 * 2**20  # its own 120 MiB and the interpreter, not the 400
    assert done.maxrss_bytes > 400 * 2**20  # what the kernel's count says: the parent's ballast in it
    del ballast
