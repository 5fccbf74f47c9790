"""Facts about the machine and the code a benchmark ran on, for the results header (the one place a benchmark
reads the CPU: ``cpu_model``, ``cpu_flags``, ``machine_line``, ``machine_facts``, ``git_state``)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import psutil

__all__ = ["cpu_flags", "cpu_model", "git_state", "machine_facts", "machine_line"]

# Run in a throw-away interpreter so the parent never holds torch in memory while pipelines run.
_TORCH_PROBE = r"""
import json, importlib.metadata as md
out = {}
for name in ("torch", "sentence-transformers", "bertopic", "umap-learn", "hdbscan", "numba", "scikit-learn", "numpy"):
    try:
        out[name] = md.version(name)
    except md.PackageNotFoundError:
        out[name] = None
import torch
out["torch_threads"] = torch.get_num_threads()
try:
    out["torch_cpu_capability"] = torch.backends.cpu.get_cpu_capability()
except Exception:
    out["torch_cpu_capability"] = None
out["torch_mkldnn"] = bool(torch.backends.mkldnn.is_available())
out["torch_mkldnn_bf16"] = bool(getattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", lambda: False)())
out["cuda"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
print(json.dumps(out))
"""


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else what ``platform`` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_flags() -> str:
    """The vector extensions the embedding paths depend on, those this CPU has (``avx2 avx512f ...``)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                return " ".join(f for f in ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16") if f in flags)
    except OSError:
        pass
    return ""


def machine_line() -> str:
    """The machine in one phrase for a results header: CPU model, the CPUs this process may use, the vector
    extensions the embedding paths use, the load average now (``"AMD EPYC 7B13, 2 CPUs (avx2), load 1.3"``)."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    flags = cpu_flags()
    return f"{cpu_model()}, {usable} CPUs{f' ({flags})' if flags else ''}, load {os.getloadavg()[0]:.1f}"


def machine_facts(env: dict[str, str]) -> dict:
    """CPU model, cores, memory, load, OS, Python, library versions and torch's CPU capability."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    facts = {
        "cpu": cpu_model(),
        "cpu_flags": cpu_flags(),
        "logical_cores": os.cpu_count(),
        "usable_cores": usable,
        "memory_gb": round(psutil.virtual_memory().total / 1e9, 1),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "os": platform.platform(),
        "python": platform.python_version(),
    }
    try:
        probe = subprocess.run(
            [sys.executable, "-c", _TORCH_PROBE], env=env, capture_output=True, text=True, timeout=300, check=True
        )
        facts.update(json.loads(probe.stdout.strip().splitlines()[-1]))
    except (subprocess.SubprocessError, ValueError, IndexError) as exc:
        facts["torch_probe_error"] = str(exc)[:300]
    return facts


def git_state(repo: Path) -> str:
    """``<short commit>`` (``+ uncommitted changes`` when the tree is dirty); read-only git calls."""

    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["git", "--no-optional-locks", "-C", str(repo), *args], capture_output=True, text=True, timeout=30
        )

    try:
        head = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return "unknown (git not available)"
    if head.returncode != 0:
        return "no commit yet (working tree)"
    return head.stdout.strip() + (" + uncommitted changes" if dirty.stdout.strip() else "")
