"""The numba warm-up child: where numba keeps its cache, the child's progress protocol, the real child."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from icml_topics.stages import jit_warmup


def _child(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)


def test_ready_follows_the_childs_lines_and_says_when_a_step_never_came():
    warmup = jit_warmup.Warmup(_child("import time; time.sleep(0.3); print('umap', flush=True)"))
    assert warmup.ready("umap")
    assert warmup.ready("umap")  # already seen: no read
    crashed = jit_warmup.Warmup(_child("raise SystemExit(3)"))
    assert not crashed.ready("umap")
    assert crashed.process.returncode == 3
    with pytest.raises(ValueError, match="unknown warm-up step 'tree'; use one of umap"):
        crashed.ready("tree")


def test_the_cache_counts_as_warm_only_with_umap_indexed(tmp_path, monkeypatch):
    """numba names a cache folder ``<package>_<hash of its folder>`` under $NUMBA_CACHE_DIR and an index
    ``<module>.<function>-<line>.py311.nbi`` (as numba 0.68 wrote them in a real cold fit)."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert not jit_warmup.cache_is_warm()
    (tmp_path / "umap_7d4241dc").mkdir()
    assert not jit_warmup.cache_is_warm()
    (tmp_path / "umap_7d4241dc" / "layouts.rdist-31.py311.nbi").write_bytes(b"")
    assert jit_warmup.cache_is_warm()
    monkeypatch.setattr(jit_warmup, "_current", None)  # not the session's own child (conftest), if it still runs
    assert jit_warmup.start(large=False) is None  # warm: no child


def test_no_child_when_switched_off(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # cold
    monkeypatch.setenv("ICML_TOPICS_JIT_WARMUP", "0")
    assert jit_warmup.start(large=False) is None


def test_the_real_child_compiles_umap_into_numbas_cache():
    """The child itself on this environment's numba cache, its UMAP step (the EVoC step alone takes 100 s
    cold): it says so on stdout and numba's cache then holds UMAP's code where the check looks."""
    done = subprocess.run(
        [sys.executable, "-m", "icml_topics.stages.jit_warmup", "umap"],
        capture_output=True,
        text=True,
        env={**os.environ},
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["umap"]
    assert jit_warmup.step_is_cached("umap")


def test_a_small_fit_starts_no_warm_up_and_waits_for_none(monkeypatch):
    """38 abstracts are mapped by t-SNE: no numba code to compile, so no child is started and the map stage
    does not wait for one (on a new machine that wait was most of the demo's map line)."""
    from icml_topics import TopicMap
    from icml_topics.cli.demo import sample_path
    from icml_topics.fit_config import FitConfig
    from icml_topics.fitting import uses_umap

    calls = []
    monkeypatch.setattr(jit_warmup, "start", lambda **kw: calls.append(("start", kw)))
    monkeypatch.setattr(jit_warmup, "ready", lambda step: calls.append(("ready", step)) or False)
    TopicMap(random_state=0).fit(sample_path())
    assert calls == []
    config = FitConfig.from_params({})
    assert not uses_umap(config, 38) and uses_umap(config, 5000)
    assert uses_umap(FitConfig.from_params({"reducer": "umap"}), 38)
