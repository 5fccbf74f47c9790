"""TopicMap's parameters are written once, in ``icml_topics.parameters``: ``__init__``'s signature, ``FitConfig``
and the validation read that table, and the seed is resolved once (``FitConfig.seed``)."""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.base import clone

import icml_topics
from icml_topics import TopicMap, parameters
from icml_topics._validation import check_params
from icml_topics.errors import InvalidValueError
from icml_topics.fit_config import FitConfig
from icml_topics.parameters import DEFAULT_RANDOM_STATE, DEFAULTS, PARAMETERS, Parameter, Rule


def _disagreements(init: Callable[..., Any]) -> list[str]:
    """Where ``init``'s signature differs from the table: names, their order, defaults, keyword-only."""
    shown = [p for p in inspect.signature(init).parameters.values() if p.name != "self"]
    out = [] if [p.name for p in shown] == list(PARAMETERS) else [f"names {[p.name for p in shown]}"]
    out += [f"{p.name}={p.default!r}" for p in shown if p.name in DEFAULTS and p.default != DEFAULTS[p.name]]
    out += [f"{p.name} not keyword-only" for p in shown[1:] if p.kind is not p.KEYWORD_ONLY]
    return out


def test_the_signature_shows_the_tables_names_defaults_and_order():
    assert _disagreements(TopicMap.__init__) == []
    assert TopicMap().get_params() == dict(DEFAULTS)
    params = {"random_state": 3, "topic_sizes": (50, 20), "precision": "fp32"}
    assert clone(TopicMap(**params)).get_params() == {**DEFAULTS, **params}


def test_the_signature_check_catches_a_parameter_missing_from_the_table_or_a_changed_default():
    def extra(self, embedding_model=None, *, new_knob=1, **others):  # a parameter added outside the table
        pass

    source = inspect.signature(TopicMap.__init__)
    changed = source.replace(
        parameters=[p.replace(default=7) if p.name == "n_keywords" else p for p in source.parameters.values()]
    )

    def drifted(self):
        pass

    drifted.__signature__ = changed
    assert _disagreements(extra)[0].startswith("names")
    assert _disagreements(drifted) == ["n_keywords=7"]


def test_fitconfig_has_one_field_per_parameter_and_no_default_of_its_own():
    names = [f.name for f in fields(FitConfig)]
    assert names[: len(PARAMETERS)] == list(PARAMETERS)
    assert not set(names[len(PARAMETERS) :]) & set(PARAMETERS)  # the rest are derived: seed, cache folders
    own = [
        f.name
        for f in fields(FitConfig)
        if f.name in PARAMETERS and (f.default is not MISSING or f.default_factory is not MISSING)
    ]
    assert own == []  # a default written in FitConfig would be a second copy of the table's
    assert FitConfig.defaults() == dict(DEFAULTS) and FitConfig.parameter_names() == tuple(PARAMETERS)
    config = FitConfig.from_params({})
    assert {name: getattr(config, name) for name in ("n_keywords", "precision", "random_state")} == {
        "n_keywords": 10,
        "precision": "auto",
        "random_state": DEFAULT_RANDOM_STATE,
    }


def test_the_validation_reads_each_rule_from_the_table(monkeypatch):
    check_params(dict(DEFAULTS))  # every default follows its own rule
    table = {**PARAMETERS, "n_keywords": Parameter("n_keywords", 10, Rule(lambda v: v == 7, "7, the only count"))}
    monkeypatch.setattr(parameters, "PARAMETERS", table)
    check_params({"n_keywords": 7})
    with pytest.raises(InvalidValueError, match=r"^n_keywords=10 is not allowed: use 7, the only count\.$"):
        check_params({"n_keywords": 10})


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"min_topic_size": -3},
            "min_topic_size=-3 is not allowed: use None (3, or 10 under 2,000 papers: nodes of fewer papers join their "
            "closest sibling) or an "
            "integer from 2 to 1_000_000_000.",
        ),
        (
            {"topic_sizes": (24, 90)},
            "topic_sizes=(24, 90) is not allowed: use None (depth and sizes follow the corpus) or a tuple of 1 to 4 integers "
            "from 2 to 10**6, shrinking from the coarsest level to the finest, e.g. (90, 24).",
        ),
        ({"random_state": True}, "random_state=True is not allowed: use None or an integer from 0 to 2**32 - 1."),
        ({"reducer": "pca"}, "reducer='pca' is not allowed: use 'auto', 'umap', 'small' or a reducer object."),
        ({"cache": None}, "cache=None is not allowed: use True, False or a folder path."),
        ({"verbose": 1}, "verbose=1 is not allowed: use True or False."),
        (
            {"precision": "int4"},
            "precision='int4' is not allowed: use 'auto' or 'fp32' or 'bf16' or 'fp16' or 'int8' or 'fp32-onnx' or "
            "'int8-ct2'.",
        ),
        ({"sample_size": "all"}, "sample_size='all' is not allowed: use an integer from 1 to 1_000_000_000."),
    ],
)
def test_a_bad_value_is_named_with_its_rule_before_any_work(params, message):
    with pytest.raises(InvalidValueError) as caught:
        TopicMap(**params).fit("no-such-file.jsonl")  # the file is never read
    assert str(caught.value) == message


def test_the_seed_is_resolved_once_from_random_state():
    default = FitConfig.from_params({})
    assert default.seed == DEFAULT_RANDOM_STATE == 42  # the default fit's seed: its outputs stay as they were
    fixed = FitConfig.from_params({"random_state": np.int64(7)})
    assert fixed.seed == 7 and type(fixed.seed) is int
    drawn = [FitConfig.from_params({"random_state": np.random.RandomState(0)}).seed for _ in range(2)]
    assert drawn[0] == drawn[1] and type(drawn[0]) is int  # a draw from the generator given
    fresh = FitConfig.from_params({"random_state": None})
    assert type(fresh.seed) is int and fresh.reductions_dir is None  # a fresh seed: no stage result cached


def test_stage_functions_default_to_the_one_seed_or_take_the_fits():
    from icml_topics.stages import MapProjector, Reducer
    from icml_topics.stages.large import approximate_knn_graph, project_large, stratified_sample, theme_neighbours
    from icml_topics.stages.represent import represent_topics

    for function in (Reducer, MapProjector, approximate_knn_graph, stratified_sample, represent_topics):
        assert inspect.signature(function).parameters["random_state"].default == DEFAULT_RANDOM_STATE, function
    for function in (project_large, theme_neighbours):  # only a fit calls them, with its FitConfig.seed
        assert inspect.signature(function).parameters["random_state"].default is inspect.Parameter.empty, function


def test_no_function_writes_the_default_seed_as_a_number():
    package = Path(icml_topics.__file__).parent
    written = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.arguments):
                positional = node.posonlyargs + node.args
                pairs = list(zip(positional[len(positional) - len(node.defaults) :], node.defaults))
                pairs += [(a, d) for a, d in zip(node.kwonlyargs, node.kw_defaults) if d is not None]
            elif isinstance(node, ast.Call):
                pairs = [(k, k.value) for k in node.keywords]
            else:
                continue
            for target, value in pairs:
                name = target.arg if isinstance(target, (ast.arg, ast.keyword)) else None
                if name == "random_state" and isinstance(value, ast.Constant) and value.value == DEFAULT_RANDOM_STATE:
                    written.append(f"{path.relative_to(package)}:{value.lineno}")
    assert written == [], "use DEFAULT_RANDOM_STATE (icml_topics.parameters) or the fit's config.seed"


def test_the_docstring_states_the_tables_defaults():
    doc = inspect.getdoc(TopicMap)
    stated = {}
    for name in PARAMETERS:
        entry = re.search(rf"^    {name}: (.*(?:\n        .*)*)", doc, re.M)
        number = entry and re.search(r"\(default ([\d,]+)\)", entry.group(1))
        if number:
            stated[name] = int(number.group(1).replace(",", ""))
    assert {"random_state", "large_corpus_threshold", "sample_size"} <= set(stated)
    assert stated == {name: DEFAULTS[name] for name in stated}
