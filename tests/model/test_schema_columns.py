"""Column lists are written once, in ``schema.py`` (issue 50: compare's column lists were repeated in its
producers and in the report); the topic-level tables of a comparison are compare's record, built from the
fitted tables."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from icml_topics import schema

PACKAGE = Path(__file__).resolve().parents[2] / "icml_topics"
#: the modules that write or read the fitted and compared tables
READERS = sorted(p for folder in ("compare", "report", "plotting") for p in (PACKAGE / folder).glob("*.py")) + [
    PACKAGE / "workflows.py",
    PACKAGE / "trend_methods.py",
    PACKAGE / "outputs.py",
    PACKAGE / "tables.py",
]


def _schema_lists() -> dict[str, tuple[str, ...]]:
    """Every module-level list or tuple of three or more column names in ``schema.py``."""
    found = {}
    for name, value in vars(schema).items():
        if name.isupper() and isinstance(value, (list, tuple)) and len(value) >= 3:
            if all(isinstance(v, str) for v in value):
                found[name] = tuple(value)
    return found


def _literal_lists(path: Path) -> list[tuple[int, tuple[str, ...]]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) >= 3:
            if all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
                out.append((node.lineno, tuple(e.value for e in node.elts)))
    return out


def _contains(literal: tuple[str, ...], columns: tuple[str, ...]) -> bool:
    n = len(columns)
    return any(literal[i : i + n] == columns for i in range(len(literal) - n + 1))


def repeated_lists(paths: list[Path]) -> list[str]:
    lists = _schema_lists()
    return [
        f"{path.relative_to(PACKAGE).as_posix()}:{line} spells schema.{name}"
        for path in paths
        for line, literal in _literal_lists(path)
        for name, columns in lists.items()
        if _contains(literal, columns)
    ]


def test_the_check_finds_a_column_list_spelled_again(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text('cols = ["level", "topic", "label", "accepted", "n", "share", "lower", "upper", "unknown"]\n')
    assert repeated_lists.__name__ and _contains(("a", *schema.ACCEPTANCE_COLUMNS), schema.ACCEPTANCE_COLUMNS)
    hits = [h for h in _literal_lists(planted) if _contains(h[1], schema.ACCEPTANCE_COLUMNS)]
    assert hits == [(1, ("level", "topic", "label", *schema.ACCEPTANCE_COLUMNS))]


@pytest.mark.parametrize("path", READERS, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_no_module_spells_a_column_list_of_schema_again(path):
    assert repeated_lists([path]) == [], "name the columns with the schema.py constant"


def test_topic_tables_is_compares_record_and_the_report_only_reads_it():
    """``TopicTables`` lives in ``compare/`` (the tables' owner); ``report/`` and ``workflows.py`` import it."""
    from icml_topics.compare import TopicTables
    from icml_topics.report import topic_sections

    assert TopicTables.__module__ == "icml_topics.compare.topic_tables"
    assert "TopicTables" not in topic_sections.__all__
    source = (PACKAGE / "workflows.py").read_text(encoding="utf-8")
    assert "report.topic_sections import TopicTables" not in source


#: the modules above the fit that read a fitted model
ABOVE_THE_FIT = (
    "outputs.py",
    "interop.py",
    "compare/resolution.py",
    "evaluate/summary.py",
    "plot_methods.py",
    "workflows.py",
)
ESTIMATOR_FRAMES = {"documents_", "topics_", "themes_", "topic_tree_"}
FITTED = {"model", "tm", "self", "model_a", "model_b"}  # the names a fitted model goes by there


@pytest.mark.parametrize("module", ABOVE_THE_FIT)
def test_modules_above_the_fit_read_its_tables_not_the_estimators_frames(module):
    """The seam: what they read of a fit is its ``tables_`` (``FittedTables``), so a table is read in one way."""
    tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
    frames = [
        f"line {n.lineno}: {n.value.id}.{n.attr}"
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute)
        and n.attr in ESTIMATOR_FRAMES
        and isinstance(n.value, ast.Name)
        and n.value.id in FITTED  # a fitted model (BERTopic's own ``bt.topics_`` is another thing)
    ]
    assert frames == [], f"{module} reads the estimator's frames; read model.tables_ instead"
