"""Importing icml_topics patches no other package: every third-party entry of ``sys.modules`` is the module
Python's own finders give for its name, and typer's classes are typer's.

The ``sys.modules`` check runs in a fresh interpreter (the test process has imported half the world, some
of it through other tests): after ``import icml_topics`` and ``icml_topics.cli``, and again after a fit on the
machine's embedding path and its static map (the fit's BERTopic import, ``import_bertopic``, imports
DataMapPlot, ``datashader.bundling`` and ``rfc3987_syntax`` as their importers ask). The same interpreter
checks that the fit and the static map ran with BERTopic, DataMapPlot and datashader as themselves
(``stages/bertopic_import.py``: nothing held back or replaced)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
import typer
import typer.core
from conftest import BUNDLED_SEEDS
from typer.testing import CliRunner

# Run in the child: which entries of sys.modules (outside icml_topics) are not what an import would give.
# A few real modules have no spec or are no module, made by their own packages, not by us: stdlib typing's
# deprecated aliases, Cython's shared runtime modules, submodules that a compiled extension makes itself,
# and multiprocessing's alias of __main__.
_FOREIGN_ENTRIES = r'''
import importlib.machinery, json, re, sys, types

def fresh_spec(name):
    """The spec Python's finders give for name now, not the one sys.modules holds."""
    parent = name.rpartition(".")[0]
    path = getattr(sys.modules.get(parent), "__path__", None) if parent else None
    if parent and path is None:  # its package is not imported: found without importing it
        path = getattr(fresh_spec(parent), "submodule_search_locations", None)
    for finder in sys.meta_path:
        spec = finder.find_spec(name, path) if hasattr(finder, "find_spec") else None
        if spec is not None:
            return spec
    return None

def made_by_its_own_package(name, module):
    if name == "__mp_main__":
        return module is sys.modules["__main__"]
    if not isinstance(module, types.ModuleType):
        return name in ("typing.io", "typing.re") and type(module).__module__ == "typing"
    if re.fullmatch(r"cython_runtime|_cython_\d+_\d+_\d+\w*", name):
        return True
    parent = sys.modules.get(name.rpartition(".")[0])
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return parent is not None and str(getattr(parent, "__file__", "")).endswith(suffixes)

def is_alias_of_its_own(name, module):
    """A module listed under a second name by itself (a compiled extension: scipy's _cyutility) or by the
    package of that name (os.path)."""
    if str(module.__spec__.origin).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
        return True
    package, _, attribute = name.rpartition(".")
    return bool(package) and getattr(sys.modules.get(package), attribute, None) is module

def foreign_entries():
    found = {}
    for name, module in list(sys.modules.items()):
        if name == "__main__" or name.partition(".")[0] == "icml_topics":
            continue
        spec = getattr(module, "__spec__", None) if isinstance(module, types.ModuleType) else None
        if spec is None:
            if not made_by_its_own_package(name, module):
                found[name] = repr(module)
            continue
        if spec.name != name and not is_alias_of_its_own(name, module):
            found[name] = f"the module {spec.name}"
            continue
        fresh = fresh_spec(spec.name)
        if fresh is None or fresh.origin != spec.origin:
            found[name] = f"{spec.origin} where an import finds {fresh and fresh.origin}"
        elif spec.has_location and getattr(module, "__file__", None) != spec.origin:
            found[name] = f"__file__ {getattr(module, '__file__', None)} for {spec.origin}"
    return found
'''


def _run(script: str, **env: str) -> dict:
    code = _FOREIGN_ENTRIES + textwrap.dedent(script)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **env}, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_check_sees_a_module_that_is_not_what_an_import_gives():
    """The check itself: a placeholder, a None entry and another module under a name are all reported."""
    result = _run(
        """
        sys.modules["json.placeholder_probe"] = types.ModuleType("json.placeholder_probe")
        sys.modules["xml.none_probe"] = None
        import csv
        sys.modules["email.swapped_probe"] = csv
        print(json.dumps(sorted(foreign_entries())))
        """
    )
    assert result == ["email.swapped_probe", "json.placeholder_probe", "xml.none_probe"]


@pytest.fixture(scope="module")
def fresh_fit() -> dict:
    """One fresh interpreter: ``import icml_topics`` (and its CLI), then a fit of the bundled seed abstracts on
    the machine's embedding path with no stage cache (BERTopic runs) and its static map; what ``sys.modules``
    held at each point."""
    return _run(
        f"""
        import icml_topics, icml_topics.cli
        from icml_topics import TopicMap
        at_import = foreign_entries()
        slow_before = [n for n in ("datashader.bundling", "rfc3987_syntax") if n in sys.modules]
        from icml_topics.plotting import plot_map_static
        tm = TopicMap(random_state=42, cache=False).fit({str(BUNDLED_SEEDS)!r})  # no stage cache: BERTopic runs
        plot_map_static(tm.documents_)
        real = {{n: getattr(sys.modules.get(n), '__file__', None) is not None
            for n in ('bertopic', 'datashader.bundling', 'datamapplot')}}
        from icml_topics.stages.bertopic_import import import_bertopic
        bertopic = import_bertopic()  # the fit's import (done by the fit above): DataMapPlot, datashader, torch
        import bertopic.backend, bertopic.representation
        slow = {{n: (getattr(getattr(sys.modules[n], "__spec__", None), "origin", None), fresh_spec(n).origin)
            for n in ("datashader.bundling", "rfc3987_syntax")}}
        from datashader.bundling import hammer_bundle
        import torch
        print(json.dumps({{"at_import": at_import, "slow_before": slow_before, "slow": slow,
            "none": [n for n, m in sys.modules.items() if m is None],
            "hammer_bundle": hammer_bundle.__module__, "bertopic": bertopic is sys.modules["bertopic"],
            "torch": fresh_spec("torch").origin == torch.__file__,
            "optional": {{n: type(vars(m).get(n)).__name__ for m, n in ((bertopic.representation, "TextGeneration"),
                (bertopic.backend, "MultiModalBackend"))}},
            "module_getattr": [m.__name__ for m in (bertopic.backend, bertopic.representation) if "__getattr__" in vars(m)],
            "topics": int(len(tm.topics_)), "real": real}}))
        """,
        ICML_TOPICS_DIRECT_BELOW="0",  # the machine's path even for 38 abstracts (smaller fits embed with fp32)
    )


def test_importing_icml_topics_and_bertopic_leaves_every_other_module_real(fresh_fit):
    result = fresh_fit
    assert result["at_import"] == {}
    assert result["slow_before"] == []  # icml_topics' own import stays light without them
    # imported after icml_topics, by BERTopic's import: the real modules, none held back or stood in for
    for name, (origin, found) in result["slow"].items():
        assert origin is not None and origin == found, name
    assert result["hammer_bundle"] == "datashader.bundling"
    assert result["none"] == [] and result["bertopic"]
    assert result["torch"]
    # BERTopic's optional parts are its own classes, bound at its import; its modules are as it made them
    assert result["optional"] == {"TextGeneration": "type", "MultiModalBackend": "type"}  # not NotInstalled
    assert result["module_getattr"] == []


def test_a_fit_on_the_machines_path_and_its_static_map_run_with_the_real_modules(fresh_fit):
    """A fit imports BERTopic as it is (``stages/bertopic_import.py``): nothing held back or replaced (moved
    from ``tests/stages/test_bertopic_import.py``: one fresh interpreter for both checks)."""
    assert fresh_fit["topics"] > 0
    # BERTopic and DataMapPlot (with datashader's edge bundling) are imported as themselves, nothing stands in
    assert fresh_fit["real"] == {"bertopic": True, "datashader.bundling": True, "datamapplot": True}


def test_the_cli_leaves_typer_as_it_is():
    """Our help shows types as words (INTEGER); an app of the user's, made after importing ours, keeps typer's."""
    from icml_topics.cli import app

    assert typer.core.TyperOption.display_type_rich.__module__ == "typer.core"
    assert typer.core.TyperArgument.display_type_rich.__module__ == "typer.core"
    theirs = typer.Typer()

    @theirs.command()
    def count(times: int = 1, loud: bool = False) -> None:
        """Count."""

    env = {"COLUMNS": "160"}
    their_help = CliRunner().invoke(theirs, ["--help"], env=env).output
    our_help = CliRunner().invoke(app, ["fit", "--help"], env=env).output
    assert "<int>" in their_help
    assert "--min-topic-size" in our_help and "INTEGER" in our_help and "<int>" not in our_help
    assert "<bool>" not in our_help  # flags, and --help, show no type
