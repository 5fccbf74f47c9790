"""Slow third-party modules no fit uses stand in ``sys.modules`` as placeholders until something uses them.

The mechanism is checked on a package made in ``tmp_path`` (its "slow" submodule counts how often its body
runs); the real modules in the fit-and-map check of ``test_bertopic_import.py`` and below."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

from icml_topics import _deferred_imports
from icml_topics._deferred_imports import Placeholder, install, is_placeholder

PACKAGE = "deferral_probe_pkg"


@pytest.fixture
def probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A package whose ``slow`` submodule appends a line to ``runs.txt`` each time its body runs; its
    ``__init__`` binds ``double`` from it at import, as DataMapPlot binds ``hammer_bundle``."""
    root = tmp_path / "src"
    package = root / PACKAGE
    package.mkdir(parents=True)
    runs = tmp_path / "runs.txt"
    (package / "__init__.py").write_text("from .slow import double\n", encoding="utf-8")
    (package / "slow.py").write_text(
        f"with open({str(runs)!r}, 'a') as f:\n    f.write('ran\\n')\n"
        "def double(x):\n    return 2 * x\n"
        "def triple(x):\n    return 3 * x\n"
        "CONSTANT = 7\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setattr(_deferred_imports, "DEFERRED", {f"{PACKAGE}.slow": ("double",)})
    _deferred_imports.is_installed.cache_clear()
    yield runs
    for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    _deferred_imports.is_installed.cache_clear()


def _runs(runs: Path) -> int:
    return len(runs.read_text(encoding="utf-8").splitlines()) if runs.exists() else 0


def test_the_package_imports_without_running_the_deferred_module(probe: Path) -> None:
    assert install() == [f"{PACKAGE}.slow"]
    import deferral_probe_pkg

    assert _runs(probe) == 0 and is_placeholder(f"{PACKAGE}.slow")
    assert deferral_probe_pkg.double(21) == 42  # the bound name imports the real module on its first call
    assert _runs(probe) == 1 and not is_placeholder(f"{PACKAGE}.slow")
    assert deferral_probe_pkg.double(5) == 10 and _runs(probe) == 1  # once
    assert sys.modules[f"{PACKAGE}.slow"].triple(2) == 6


def test_any_other_attribute_imports_the_real_module_and_introspection_does_not(probe: Path) -> None:
    install()
    placeholder = sys.modules[f"{PACKAGE}.slow"]
    assert isinstance(placeholder, Placeholder)
    assert getattr(placeholder, "__file__", None) is None and not hasattr(placeholder, "__wrapped__")
    assert _runs(probe) == 0
    assert placeholder.CONSTANT == 7  # not one of the bound names: the real module is imported for it
    assert _runs(probe) == 1 and sys.modules[f"{PACKAGE}.slow"].__file__.endswith("slow.py")


def test_a_failing_real_import_raises_its_error_and_is_tried_again(probe: Path) -> None:
    install()
    slow = probe.parent / "src" / PACKAGE / "slow.py"
    good = slow.read_text(encoding="utf-8")
    slow.write_text("raise RuntimeError('broken install')\n", encoding="utf-8")
    import deferral_probe_pkg

    with pytest.raises(RuntimeError, match="broken install"):
        deferral_probe_pkg.double(1)
    assert is_placeholder(f"{PACKAGE}.slow")  # as before the call, so a later use tries again
    slow.write_text(good, encoding="utf-8")
    assert deferral_probe_pkg.double(4) == 8 and _runs(probe) == 1


def test_no_placeholder_for_a_module_not_installed_or_already_imported(probe: Path, monkeypatch) -> None:
    monkeypatch.setattr(
        _deferred_imports,
        "DEFERRED",
        {"no_such_package_here.slow": ("f",), f"{PACKAGE}.missing": ("f",), "json": ("dumps",)},
    )
    assert install() == []
    assert "no_such_package_here.slow" not in sys.modules and f"{PACKAGE}.missing" not in sys.modules
    assert not is_placeholder("json")
    with pytest.raises(ModuleNotFoundError):
        __import__("no_such_package_here.slow")


def test_switched_off_nothing_is_deferred(probe: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ICML_TOPICS_DEFERRED_IMPORTS", "0")
    assert install() == []
    import deferral_probe_pkg

    assert _runs(probe) == 1 and deferral_probe_pkg.double(2) == 4


def test_the_real_edge_bundling_works_through_its_placeholder() -> None:
    """DataMapPlot's edge bundling, asked for after icml_topics was imported, is datashader's real one."""
    pytest.importorskip("datashader")
    from datashader.bundling import hammer_bundle

    nodes = pd.DataFrame({"x": [0.0, 1.0, 0.0, 1.0], "y": [0.0, 0.0, 1.0, 1.0]})
    edges = pd.DataFrame({"source": [0, 1, 2], "target": [3, 2, 1]})
    bundled = hammer_bundle(nodes, edges)
    assert list(bundled.columns) == ["x", "y"]
    assert int(bundled["x"].isna().sum()) == len(edges)  # one NaN row closes each bundled edge's path
    assert not is_placeholder("datashader.bundling")
