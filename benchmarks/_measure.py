"""Measure a benchmark's work: one command in a fresh process (``run_measured``: wall time, peak RSS, timeout),
or one call in this process (``measure_call``: wall and CPU time, RSS before and the peak).

Peak RSS comes from three places:

* the kernel's high-water mark of the largest process in the tree (``ru_maxrss`` from ``wait4``
  on that very child, so earlier children do not leak into it). On Linux it also holds the parent's
  high-water mark when the child was started (``execve`` keeps it): measured from a parent of 800 MiB, a bare
  ``python -c`` reports 814 MiB. So a parent that holds a fitted model reads ``own_peak_bytes`` instead:
  the command's own ``VmHWM`` (``/proc/<pid>/status``), sampled with the tree, never the parent's;
* the summed RSS of the whole process tree (worker processes included), sampled every
  ``SAMPLE_S`` seconds with psutil, kept with timestamps so a caller can cut it at a point in time.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

__all__ = ["CallCost", "Measured", "measure_call", "run_measured"]

SAMPLE_S = 0.25


@dataclass
class Measured:
    returncode: int | None
    t_launch: float  # time.time() just before the process was started
    t_exit: float  # time.time() once it was reaped
    maxrss_bytes: int  # kernel high-water mark (largest process of the tree)
    samples: list[tuple[float, int]] = field(default_factory=list)  # (time.time(), tree RSS bytes)
    timed_out: bool = False
    log: Path | None = None
    own_peak_bytes: int = 0  # the command's own VmHWM, sampled (Linux; 0 elsewhere): the parent's never in it

    @property
    def wall_s(self) -> float:
        return self.t_exit - self.t_launch

    def tree_peak_bytes(self, until: float | None = None) -> int:
        """Peak summed RSS of the process tree, sampled, optionally only up to time ``until``."""
        values = [rss for t, rss in self.samples if until is None or t <= until]
        return max(values, default=0)

    def log_tail(self, n: int = 25) -> str:
        if self.log is None or not self.log.exists():
            return ""
        lines = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        return "\n".join(lines[-n:])


@dataclass(frozen=True)
class CallCost:
    """What one call in this process cost (``measure_call``)."""

    wall_s: float
    cpu_s: float  # this process's CPU time (every thread)
    rss_before_mib: float  # resident memory when the call started
    peak_rss_mib: float  # the process's high-water mark after it (``ru_maxrss``: the whole process so far, and on
    # Linux at least its parent's at exec: call it in a process started by a small parent, as keyphrase_cost.py does)


def measure_call(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` timed in this process -> ``(its result, CallCost)``."""
    rss_before = psutil.Process().memory_info().rss
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn(*args, **kwargs)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
    return result, CallCost(wall, cpu, rss_before / 2**20, peak / 2**20)


def _tree_rss(proc: psutil.Process, seen: dict[int, psutil.Process]) -> int:
    total = 0
    try:
        children = proc.children(recursive=True)
    except psutil.Error:
        return 0
    for child in children:
        seen.setdefault(child.pid, child)
    for p in (proc, *children):
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def _own_hwm(pid: int, cmd: list[str]) -> int:
    """A process's own high-water mark (``VmHWM``) once it runs ``cmd`` (before ``execve`` its memory is the
    parent's copy), 0 where ``/proc`` does not say (not yet, gone, not Linux)."""
    proc = Path(f"/proc/{pid}")
    try:
        if proc.joinpath("cmdline").read_bytes().split(b"\0")[:-1] != [os.fsencode(str(a)) for a in cmd]:
            return 0
        for line in proc.joinpath("status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _kill_group(pgid: int, sig: int) -> None:
    """Signal the process group of a child that has not been reaped yet (so the id is still ours)."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _stop(pid: int, grace_s: float = 10.0):
    """SIGTERM the child's process group, SIGKILL it after ``grace_s``; reap the child. -> (status, rusage)."""
    try:
        _kill_group(pid, signal.SIGTERM)
        deadline = time.time() + grace_s
        while time.time() < deadline:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                return status, usage
            time.sleep(0.2)
        _kill_group(pid, signal.SIGKILL)
        _, status, usage = os.wait4(pid, 0)
    except ChildProcessError:  # already reaped
        return 0, resource.getrusage(resource.RUSAGE_CHILDREN)
    return status, usage


def _terminate(seen: dict[int, psutil.Process]) -> None:
    """Terminate descendants observed earlier that still run (psutil checks the pid was not reused)."""
    for child in seen.values():
        try:
            if child.is_running():
                child.terminate()
        except psutil.Error:
            pass


def run_measured(
    cmd: list[str],
    *,
    env: dict[str, str],
    timeout: float,
    log: Path | None,
    cwd: Path | None = None,
) -> Measured:
    """Run ``cmd`` in its own session (process group); kill the group after ``timeout`` seconds.

    Output goes to ``log`` (stdout and stderr together), or to this terminal when ``log`` is None.
    """
    fh = open(log, "wb") if log is not None else None
    t_launch = time.time()
    try:
        proc = subprocess.Popen(
            cmd,
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=fh if fh is not None else None,
            stderr=subprocess.STDOUT if fh is not None else None,
            start_new_session=True,
        )
    finally:
        if fh is not None:
            fh.close()
    try:
        ps = psutil.Process(proc.pid)
    except psutil.Error:
        ps = None
    samples: list[tuple[float, int]] = []
    seen: dict[int, psutil.Process] = {}  # descendants ever observed, to clean up strays at the end
    timed_out = False
    own_peak = 0
    next_sample = 0.0
    try:
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            now = time.time()
            if now >= next_sample and ps is not None:
                samples.append((now, _tree_rss(ps, seen)))
                own_peak = max(own_peak, _own_hwm(proc.pid, cmd))
                next_sample = now + SAMPLE_S
            if now - t_launch > timeout:
                timed_out = True
                status, usage = _stop(proc.pid)
                break
            time.sleep(0.05)
    except BaseException:  # Ctrl-C or an error here: the child has its own session, so stop it ourselves
        _stop(proc.pid)
        proc.returncode = -signal.SIGTERM
        _terminate(seen)
        raise
    t_exit = time.time()
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, so Popen must not wait again
    _terminate(seen)  # stray workers outliving the process, if any
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return Measured(
        returncode=None if timed_out else proc.returncode,
        t_launch=t_launch,
        t_exit=t_exit,
        maxrss_bytes=int(usage.ru_maxrss) * scale,
        samples=samples,
        timed_out=timed_out,
        log=log,
        own_peak_bytes=own_peak,
    )
