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
