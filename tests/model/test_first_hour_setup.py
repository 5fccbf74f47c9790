"""A newcomer's set-up (issue 48): ``make docs`` installs the ``docs`` extra only, ``make test`` builds the site
once, and the README's Jupyter kernel step, run as written, gives a kernel that imports icml_topics."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _extra(name: str) -> list[str]:
    """The requirements of pyproject.toml's optional dependency ``name`` (tomllib is Python 3.11+; we support 3.10)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(rf"^{name} = \[(.*?)^\]", text, re.M | re.S)
    assert block, f"pyproject.toml has no {name} extra"
    return re.findall(r'^\s*"([^"]+)"', block.group(1), re.M)


def _dry_run(target: str, venv: Path) -> list[str]:
    """The commands ``make TARGET`` would run for a checkout whose ``.venv`` is ``venv`` (``make -n``: none runs)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    done = subprocess.run(
        ["make", "-n", target, f"VENV={venv}"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout.splitlines()


def test_make_docs_installs_the_docs_extra_not_the_test_extra(tmp_path):
    lines = _dry_run("docs", tmp_path / "venv")
    extras = [set(m.group(1).split(",")) for line in lines if (m := re.search(r"pip install .*'\.\[([\w,]+)\]'", line))]
    assert extras == [{"docs"}], lines  # not the test extra: no pytest, playwright, kaleido, jupyterlab
    assert sum("mkdocs build --strict" in line for line in lines) == 1
    assert {r.split("==")[0] for r in _extra("docs")} >= {"mkdocs", "mkdocstrings-python", "mkdocs-material"}


def test_make_test_still_builds_the_docs_once(tmp_path):
    lines = _dry_run("test", tmp_path / "venv")
    assert sum("mkdocs build --strict" in line for line in lines) == 1
    assert any("'.[test,notebook]'" in line for line in lines)


def test_the_readmes_kernel_step_gives_a_kernel_that_imports_icml_topics(tmp_path, monkeypatch):
    """The README's two lines after ``make demo``: the ``notebook`` extra (ipykernel) and ``ipykernel install``,
    run here with ``--prefix`` for ``--user`` (not to touch this machine's kernels), then a notebook kernel of
    that spec started and asked to import icml_topics."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(r"^\.venv/bin/pip install -e '\.\[notebook\]'", readme, re.M), "the README's notebook extra step"
    assert any(r.startswith("ipykernel") for r in _extra("notebook"))
    line = re.search(r"^\.venv/bin/python (-m ipykernel install .*)$", readme, re.M)
    assert line, "the README's kernel step (.venv/bin/python -m ipykernel install ...)"
    args = shlex.split(line.group(1).split("#")[0])
    assert "--user" in args and "--name" in args
    name = args[args.index("--name") + 1]
    args[args.index("--user")] = f"--prefix={tmp_path}"
    subprocess.run([sys.executable, *args], check=True, capture_output=True, timeout=120)
    spec = tmp_path / "share" / "jupyter" / "kernels" / name / "kernel.json"
    kernel = json.loads(spec.read_text(encoding="utf-8"))
    assert kernel["argv"][0] == sys.executable  # the checkout's .venv python (here: the one running the tests)

    from jupyter_client.manager import start_new_kernel

    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "share" / "jupyter"))  # where --prefix put the kernel
    manager, client = start_new_kernel(kernel_name=name, cwd=str(ROOT))
    try:
        reply = client.execute_interactive("import icml_topics; print(icml_topics.__name__)", timeout=120)
        assert reply["content"]["status"] == "ok"
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
