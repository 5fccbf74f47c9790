"""Structure rules of the package that a newcomer relies on (checked on the source, not by convention)."""

from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd
import pytest

import icml_topics
from icml_topics import _sources, read_corpus

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
    _sources.register_source(
        "test-memory",
        lambda spec: spec.startswith("memory:"),
        lambda spec: pd.DataFrame({"paper_id": ["a", "b"], "summary": ["first abstract here", "second abstract here"]}),
    )
    try:
        corpus = read_corpus("memory:two")
    finally:
        _sources._SOURCES.pop("test-memory")
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
