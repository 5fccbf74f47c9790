"""Structure rules of the package that a newcomer relies on (checked on the source, not by convention)."""

from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd
import pytest

import icml_topics
from icml_topics import read_corpus, source_registry

PACKAGE = Path(icml_topics.__file__).parent
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "datasets"


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside functions."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
    return out


def test_corpus_never_imports_datasets_and_datasets_builds_on_corpus():
    for path in (PACKAGE / "corpus").glob("*.py"):
        bad = sorted(m for m in _imports(path) if m.startswith("icml_topics.datasets") or m == "icml_topics.datasets")
        assert not bad, f"{path.name} imports {bad}: corpus/ must not depend on datasets/"
    users = [
        p.name
        for p in (PACKAGE / "datasets").glob("*.py")
        if any(m.startswith("icml_topics.corpus") for m in _imports(p))
    ]
    assert {"paper_list.py", "pmlr.py", "openreview.py"} <= set(users)


def test_one_definition_of_the_corpus_columns():
    defined = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                defined += [
                    f"{path.relative_to(PACKAGE).as_posix()}:{t.id}"
                    for t in targets
                    if isinstance(t, ast.Name) and t.id in {"CORE_COLUMNS", "CORPUS_COLUMNS", "CLEAN_COLUMNS"}
                ]
    assert sorted(defined) == ["schema.py:CLEAN_COLUMNS", "schema.py:CORPUS_COLUMNS"]


def test_one_reader_per_input_format():
    """Corpus files (CSV/TSV, JSON, JSONL, Parquet) are parsed in corpus/record_files.py only."""
    parsers = ("csv.reader", "pd.read_", "json.loads(", "ParquetFile(")
    for folder in ("corpus", "datasets"):
        for path in (PACKAGE / folder).glob("*.py"):
            text = path.read_text(encoding="utf-8")
            found = [p for p in parsers if p in text]
            assert path.name == "record_files.py" or not found, (
                f"{folder}/{path.name} parses files itself ({found}): use corpus/record_files.py"
            )


def test_one_text_module_splits_text_into_words():
    """Tokens, stop words and spelling variants live in icml_topics/text.py; no other module tokenizes."""
    signs = (".findall(", "token_pattern=r", "ENGLISH_STOP_WORDS", "[a-z0-9]+", "[^\\W_]")
    for path in PACKAGE.rglob("*.py"):
        found = [s for s in signs if s in path.read_text(encoding="utf-8")]
        assert path.name == "text.py" or not found, f"{path.relative_to(PACKAGE)} splits words itself ({found})"


def test_read_corpus_reads_bibtex_through_the_registered_datasets_loader():
    corpus = read_corpus(FIXTURES / "pmlr-v235-sample.bib")
    assert list(corpus.columns[:6]) == ["id", "venue", "year", "title", "abstract", "authors"]
    assert len(corpus) > 0 and corpus["year"].dropna().eq(2024).all()


def test_a_registered_source_is_read_like_a_file():
    source_registry.register_source(
        "test-memory",
        lambda spec: spec.startswith("memory:"),
        lambda spec: pd.DataFrame({"paper_id": ["a", "b"], "summary": ["first abstract here", "second abstract here"]}),
    )
    try:
        corpus = read_corpus("memory:two")
    finally:
        source_registry.unregister_source("test-memory")
    assert corpus["id"].tolist() == ["a", "b"] and corpus["abstract"].tolist()[1] == "second abstract here"


def test_the_root_conftest_refuses_network_access_in_every_test():
    import urllib.request

    from icml_topics.datasets import cache

    for attempt in (lambda: urllib.request.urlopen("https://proceedings.mlr.press"), lambda: cache.http_get("x")):
        with pytest.raises(pytest.fail.Exception, match="network access attempted"):
            attempt()


def test_tests_have_one_conftest_and_unique_module_names():
    """Test modules import shared helpers with ``from conftest import ...``: a second conftest.py (or two test
    files of the same name) would shadow the root one under pytest's default import mode."""
    tests = Path(__file__).resolve().parents[1]
    assert sorted(tests.rglob("conftest.py")) == [tests / "conftest.py"]
    names = [p.name for p in tests.rglob("*.py") if p.name != "__init__.py"]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})


REPO = PACKAGE.parent


def _module_file(module: str) -> Path | None:
    """The file of an ``icml_topics`` module (``icml_topics.stages.reduce`` -> ``.../stages/reduce.py``)."""
    if module != "icml_topics" and not module.startswith("icml_topics."):
        return None
    base = REPO.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _absolute(node: ast.ImportFrom, path: Path) -> str:
    """The module an ``from ... import`` names, relative imports resolved against ``path``'s package."""
    if not node.level:
        return node.module or ""
    package = path.parent.relative_to(REPO).parts[: len(path.parent.relative_to(REPO).parts) - (node.level - 1)]
    return ".".join([*package, *([node.module] if node.module else [])])


def private_uses(source: str, path: Path) -> list[str]:
    """Every ``from <icml_topics module> import _name`` of a name that is not a module, and every
    ``<icml_topics module>._name`` attribute read, in ``source`` (the file at ``path``)."""
    found, modules = [], {}
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = _absolute(node, path)
            for alias in node.names:
                target = f"{module}.{alias.name}"
                if _module_file(target) is not None:
                    modules[alias.asname or alias.name] = target
                elif (
                    _module_file(module) is not None and alias.name.startswith("_") and not alias.name.startswith("__")
                ):
                    found.append(f"line {node.lineno}: from {module} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _module_file(alias.name) is not None and alias.asname:
                    modules[alias.asname] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
            if node.attr.startswith("_") and not node.attr.startswith("__"):
                found.append(f"line {node.lineno}: {modules[node.value.id]}.{node.attr}")
    return found


@pytest.mark.parametrize(
    "line",
    [
        "from icml_topics.embedding.paths import _decide",
        "from icml_topics.stages import reduce\nreduce._pca(x, 2, 0)",
        "import icml_topics.stages.keyphrases as kp\nkp._tokens('a b')",
    ],
)
def test_the_private_import_check_catches(line):
    assert private_uses(line, PACKAGE / "model.py"), f"the check misses {line!r}"


def test_the_private_import_check_resolves_relative_imports_and_lets_public_ones_pass():
    inside = PACKAGE / "report" / "compare_report.py"
    assert private_uses("from .fit_report import _percent", inside) == [
        "line 1: from icml_topics.report.fit_report import _percent"
    ]
    public = "from icml_topics.stages._base import seed_from\nfrom icml_topics import source_registry\nimport numpy as np\nnp._x"
    assert private_uses(public, PACKAGE / "fitting.py") == []


def test_no_module_imports_another_modules_private_names():
    """Private names stay inside their module: what several modules use is public (no ``_`` prefix)."""
    files = [*PACKAGE.rglob("*.py"), *(REPO / "benchmarks").rglob("*.py"), *(REPO / "tests").rglob("*.py")]
    assert len(files) > 100
    bad = {
        str(p.relative_to(REPO)): hits
        for p in files
        if p != Path(__file__) and (hits := private_uses(p.read_text(encoding="utf-8"), p))
    }
    assert not bad, f"cross-module private names: {bad}"


def test_embedding_pipeline_and_distributed_import_no_cycle():
    """``pipeline`` reaches the Dask workers through ``workers.py``, which never imports ``pipeline``."""
    folder = PACKAGE / "embedding"
    assert not any(m.endswith("pipeline") or m.endswith(".pipeline.embed") for m in _imports(folder / "workers.py"))
    assert "distributed" not in {m.rsplit(".", 1)[-1] for m in _imports(folder / "pipeline.py")}


def test_register_source_is_public():
    import icml_topics

    assert icml_topics.register_source is source_registry.register_source
    assert "datasets" in source_registry.registered_sources()
    assert not (PACKAGE / "_sources.py").exists()


def _is_type_checking(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that runs (at the top or inside a function); ``if TYPE_CHECKING:`` bodies skipped."""
    found, todo = [], [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))
    return found


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module -> the modules of ``package`` (under ``root``) it imports when it runs.

    ``from pkg import name`` goes to ``pkg.name`` when that is a module, else to ``pkg`` (its ``__init__``);
    ``import pkg.mod`` to ``pkg.mod``; relative imports are resolved; type-only imports do not count.

    >>> "icml_topics.outputs" in import_graph(REPO, "icml_topics")["icml_topics.report.builder"]
    False
    """
    files = {}
    for path in (root / package).rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def known(name: str) -> str | None:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {module: set() for module in files}
    for module, path in files.items():
        here = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    base = ".".join([*here[: len(here) - (node.level - 1)], *([node.module] if node.module else [])])
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names]
            graph[module] |= {t for t in map(known, targets) if t and t != module and t.split(".")[0] == package}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (each sorted), largest first."""
    import networkx as nx

    digraph = nx.DiGraph([(a, b) for a, targets in graph.items() for b in targets])
    return sorted((sorted(c) for c in nx.strongly_connected_components(digraph) if len(c) > 1), key=len, reverse=True)


def test_the_package_has_no_import_cycle():
    """No module imports (at its top or inside a function) a module that imports it back, directly or through
    others: the layers (store, stages, tables, outputs, ``TopicMap``) only import downwards."""
    graph = import_graph(REPO, "icml_topics")
    assert len(graph) > 100 and "icml_topics.store.folders" in graph["icml_topics.outputs"]
    cycles = import_cycles(graph)
    edges = [f"{a} -> {b}" for cycle in cycles for a in cycle for b in sorted(graph[a]) if b in cycle]
    assert cycles == [], f"import cycles: {cycles}; their imports: {edges}"


def test_the_cycle_check_finds_a_cycle_hidden_in_a_function(tmp_path):
    package = tmp_path / "planted"
    package.mkdir()
    files = {
        "__init__.py": "VERSION = 1\n",
        "a.py": "from planted.b import helper\nfrom planted import VERSION\nimport planted.d\n",  # VERSION: __init__
        "b.py": "def helper():\n    from . import a\n    return a\n",  # the way back, hidden in a function
        "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from planted.a import helper\n",
        "d.py": "import planted.c\n",
    }
    for name, source in files.items():
        (package / name).write_text(source, encoding="utf-8")
    graph = import_graph(tmp_path, "planted")
    assert graph["planted.a"] == {"planted.b", "planted", "planted.d"}
    assert graph["planted.b"] == {"planted.a"} and graph["planted.c"] == set()  # type-only: not an import
    assert import_cycles(graph) == [["planted.a", "planted.b"]]


#: modules above the fit that take a fitted model: typed as ``fitted_tables.FittedModel``, never importing the facade
TAKE_A_FITTED_MODEL = ("outputs.py", "interop.py", "compare/resolution.py", "evaluate/summary.py")


@pytest.mark.parametrize("module", TAKE_A_FITTED_MODEL)
def test_modules_that_take_a_fitted_model_never_import_the_facade(module):
    """Not even for an annotation under ``TYPE_CHECKING`` (``farm-studio look`` drew those as a circle
    around ``model.py``): they read a ``FittedModel``, which ``TopicMap`` is."""
    tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert "icml_topics.model" not in imported, f"{module} imports icml_topics.model"
    assert "icml_topics.fitted_tables" in imported
