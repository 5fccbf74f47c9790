"""``FittedTables`` (``TopicMap.tables_``): the one owner of the fitted tables' rules, and nothing else writes them."""

from __future__ import annotations

import ast
import copy
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import icml_topics
from icml_topics.errors import InvalidValueError, UnknownNameError
from icml_topics.fitted_tables import FittedTables, level_column, level_labels, modelled_mask, modelled_rows

PACKAGE = Path(icml_topics.__file__).parent
OWNER = PACKAGE / "fitted_tables.py"


def test_the_fit_exposes_its_tables_as_one_typed_object(fitted):
    tables = fitted.tables_
    assert isinstance(tables, FittedTables)
    assert tables.documents is fitted.documents_ and tables.topics is fitted.topics_
    assert tables.topic_tree is fitted.topic_tree_ and tables.themes is fitted.themes_
    assert len(tables.modelled) == len(tables.embeddings) == int((fitted.documents_["status"] == "ok").sum())


def test_levels_columns_and_labels_agree_with_the_documents_table(fitted_two_levels):
    fitted = fitted_two_levels
    tables = fitted.tables_
    assert tables.levels == sorted(set(fitted.topic_tree_["level"])) and len(tables.levels) >= 2
    ok = fitted.documents_[fitted.documents_["status"] == "ok"]
    for level in tables.levels:
        assert tables.level_column(level) == f"topic_{level}" and f"topic_{level}" in fitted.documents_.columns
        assert tables.level_labels(level).tolist() == ok[f"topic_{level}"].astype(int).tolist()
    assert tables.level_labels(0).tolist() == ok["topic"].astype(int).tolist()  # topics_ is the finest level
    top = tables.levels[-1]
    node = int(tables.level_nodes(top)["topic"].iloc[0])
    assert tables.node(top, node)["size"] == len(tables.papers(top, node))


def test_finest_node_centroids_are_the_topic_embeddings(fitted):
    tables = fitted.tables_
    nodes = tables.level_nodes(0)["topic"].to_numpy()
    rows = {int(t): i for i, t in enumerate(fitted.topics_["topic"])}
    expected = np.vstack([fitted.topic_embeddings_[rows[int(t)]] for t in nodes])
    np.testing.assert_allclose(tables.node_centroids(0), expected, atol=1e-5)


def test_a_level_or_node_that_is_not_there_is_refused_with_the_ones_that_are(fitted_two_levels):
    fitted = fitted_two_levels
    tables = fitted.tables_
    with pytest.raises(InvalidValueError, match=r"use one of \[0, 1"):
        tables.level_column(7)
    with pytest.raises(InvalidValueError, match="not a level"):
        tables.level_nodes(True)
    with pytest.raises(UnknownNameError, match="Unknown node 99999"):
        tables.node(0, 99999)


def test_the_modelled_rule_reads_missing_and_typed_statuses_alike():
    frame = pd.DataFrame({"status": pd.array(["ok", "dropped", None, "ok"], dtype="string"), "topic_0": [1, 2, 3, 4]})
    assert modelled_mask(frame).tolist() == [True, False, False, True]
    assert modelled_rows(frame)["topic_0"].tolist() == [1, 4]
    assert modelled_mask(pd.DataFrame({"topic": [0, 1]})).tolist() == [True, True]  # no status: all modelled
    assert level_labels(frame, 0).tolist() == [1, 4]
    assert level_labels(pd.DataFrame({"topic": [3, None]}), 0).tolist() == [3, -1]
    assert level_column(2) == "topic_2"


def test_an_edit_rebuilds_the_tables(fitted):
    tm = copy.deepcopy(fitted)
    topic = int(tm.topics_["topic"].iloc[0])
    before = tm.tables_
    tm.rename_topic(topic, "a name nobody else has")
    assert tm.tables_ is not before
    assert tm.tables_.topics.loc[tm.tables_.topics["topic"] == topic, "label"].item() == "a name nobody else has"


def _sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p != OWNER)


def test_no_module_but_the_owner_writes_the_modelled_rule_or_a_level_column_name():
    rule = re.compile(r'status.*== *"ok"|f"topic_\{')
    found = [
        f"{p.relative_to(PACKAGE)}:{i}"
        for p in _sources()
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if rule.search(line)
    ]
    assert found == [], f"use icml_topics.fitted_tables (modelled_rows / modelled_mask / level_column): {found}"


def test_no_function_takes_a_model_typed_any():
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
                found += [
                    f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}({a.arg})"
                    for a in args
                    if a.arg.endswith("model") and isinstance(a.annotation, ast.Name) and a.annotation.id == "Any"
                ]
    assert found == [], f"type the model (TopicMap, FittedTables, ModelSpec): {found}"
