"""The numba warm-up: where numba keeps its cache, when it is wanted, the real compilation."""

from __future__ import annotations

import os
import subprocess
import sys

from icml_topics.stages import jit_warmup


def test_the_cache_counts_as_warm_only_with_umap_indexed(tmp_path, monkeypatch):
    """numba names a cache folder ``<package>_<hash of its folder>`` under $NUMBA_CACHE_DIR and an index
    ``<module>.<function>-<line>.py311.nbi`` (as numba 0.68 wrote them in a real cold fit)."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert not jit_warmup.cache_is_warm()
    (tmp_path / "umap_7d4241dc").mkdir()
    assert not jit_warmup.cache_is_warm()
    (tmp_path / "umap_7d4241dc" / "layouts.rdist-31.py311.nbi").write_bytes(b"")
    assert jit_warmup.cache_is_warm()
    assert not jit_warmup.wanted()  # warm: nothing to compile ahead


def test_no_child_when_switched_off(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # cold
    assert jit_warmup.wanted()
    monkeypatch.setenv("ICML_TOPICS_JIT_WARMUP", "0")
    assert not jit_warmup.wanted()


def test_the_real_warm_up_compiles_umap_into_numbas_cache():
    """``compile_umap`` in a fresh process on this environment's numba cache: numba's cache then holds UMAP's
    code where the check looks."""
    done = subprocess.run(
        [sys.executable, "-c", "from icml_topics.stages import jit_warmup; jit_warmup.compile_umap(large=False)"],
        capture_output=True,
        text=True,
        env={**os.environ},
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert jit_warmup.step_is_cached("umap")


def test_a_small_fit_starts_no_warm_up_and_waits_for_none(monkeypatch):
    """38 abstracts are mapped by t-SNE: no numba code to compile, so nothing is compiled ahead and no worker
    process starts (on a new machine that wait was most of the demo's map line)."""
    from icml_topics import TopicMap, _background
    from icml_topics.cli.demo import sample_path
    from icml_topics.fit_config import FitConfig
    from icml_topics.fitting import uses_umap

    calls = []
    monkeypatch.setattr(jit_warmup, "compile_umap", lambda **kw: calls.append(("compile", kw)))
    monkeypatch.setattr(_background, "ProcessPoolExecutor", lambda *a, **kw: calls.append(("worker", kw)))
    TopicMap(random_state=0).fit(sample_path())
    assert calls == []
    config = FitConfig.from_params({})
    assert not uses_umap(config, 38) and uses_umap(config, 5000)
    assert uses_umap(FitConfig.from_params({"reducer": "umap"}), 38)
