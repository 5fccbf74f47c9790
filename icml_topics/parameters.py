"""The parameters of [`TopicMap`][icml_topics.TopicMap], each written once: its default and the rule its value follows.

In the spirit of scikit-learn's ``_parameter_constraints`` next to an estimator's parameters, ``PARAMETERS``
is the one table, in the order of ``TopicMap.__init__``'s signature. ``FitConfig`` takes its defaults from
it, ``_validation.check_params`` its rules, and a test checks that ``__init__``'s explicit signature (what
``get_params``, ``clone`` and the API reference read) shows the same names and defaults:

    >>> PARAMETERS["n_keywords"].default, DEFAULTS["random_state"]
    (10, 42)
    >>> rule = PARAMETERS["n_keywords"].rule
    >>> rule.allows(0), str(rule)
    (False, 'an integer from 1 to 1_000_000_000')
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

__all__ = [
    "DEFAULTS",
    "DEFAULT_RANDOM_STATE",
    "LARGE_CORPUS",
    "MAX_COUNT",
    "PARAMETERS",
    "SAMPLE_SIZE",
    "Parameter",
    "Rule",
]

DEFAULT_RANDOM_STATE = 42
"""The default seed, written once: ``TopicMap(random_state=...)``'s default and that of every stage function a
user may call on its own (a fit passes its resolved ``FitConfig.seed``)."""
LARGE_CORPUS = 50_000
"""The default of ``TopicMap(large_corpus_threshold=...)``: from this many documents up the large-corpus
path runs (the decision itself is ``FitConfig.is_large``, from the parameter)."""
SAMPLE_SIZE = 50_000
"""The default of ``TopicMap(sample_size=...)``: documents the map's UMAP is fitted on in the large-corpus path."""
MAX_COUNT = 10**9
"""The largest value of a count parameter (documents, neighbours, tokens): above any corpus, below overflow."""


@dataclass(frozen=True)
class Rule:
    """What a parameter's value must be: ``allows(value)`` tests it, ``str(rule)`` says it in words (the
    error message's "use ..."). ``text`` may be a function, for words known only later.

        >>> Rule(lambda v: v in (1, 2), "1 or 2").allows(3)
        False
    """

    test: Callable[[Any], bool]
    text: str | Callable[[], str]

    def allows(self, value: Any) -> bool:
        try:
            return bool(self.test(value))
        except (TypeError, ValueError):  # e.g. comparing an unhashable object with a string
            return False

    def __str__(self) -> str:
        return self.text if isinstance(self.text, str) else self.text()


@dataclass(frozen=True)
class Parameter:
    """One row of the table. ``rule``: ``None`` where the value is checked as it is read (``taxonomy`` by
    ``load_taxonomy``, ``theme_settings`` and reducer objects by ``FitConfig.from_params``)."""

    name: str
    default: Any
    rule: Rule | None = None


def _is_int(v: Any) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _integers(low: int, *, optional: bool = False, hint: str = "") -> Rule:
    """An integer from ``low`` to ``MAX_COUNT`` (or ``None`` when ``optional``; ``hint`` says what ``None`` does)."""
    text = (f"None{hint} or " if optional else "") + f"an integer from {low} to {MAX_COUNT:_}"
    return Rule(lambda v: (v is None and optional) or (_is_int(v) and low <= v <= MAX_COUNT), text)


def _flag() -> Rule:
    return Rule(lambda v: isinstance(v, (bool, np.bool_)), "True or False")


def _random_state(v: Any) -> bool:
    return v is None or isinstance(v, np.random.RandomState) or (_is_int(v) and 0 <= v < 2**32)


def _topic_sizes(v: Any) -> bool:
    if v is None:
        return True
    if not isinstance(v, (tuple, list)) or not 1 <= len(v) <= 4:
        return False
    if not all(_is_int(x) and 2 <= x <= 10**6 for x in v):
        return False
    return all(a > b for a, b in zip(v, v[1:]))


def _precisions() -> tuple[str, ...]:
    from icml_topics.embedding.precision import PRECISIONS  # one list, kept by the embedding package

    return PRECISIONS


_TABLE = (
    Parameter("embedding_model", None),
    Parameter("taxonomy", None),
    Parameter(
        "min_topic_size",
        None,
        _integers(
            2, optional=True, hint=" (3, or 10 under 2,000 papers: nodes of fewer papers join their closest sibling)"
        ),
    ),
    Parameter(
        "topic_sizes",
        None,
        Rule(
            _topic_sizes,
            "None (depth and sizes follow the corpus) or a tuple of 1 to 4 integers from 2 to 10**6, shrinking from the "
            "coarsest level to the finest, e.g. (90, 24)",
        ),
    ),
    Parameter("n_neighbors", None, _integers(2, optional=True, hint=" (scales with corpus size)")),
    Parameter(
        "reducer",
        "auto",
        Rule(
            lambda v: not isinstance(v, str) or v in ("auto", "umap", "small"),
            "'auto', 'umap', 'small' or a reducer object",
        ),
    ),
    Parameter("n_keywords", 10, _integers(1)),
    Parameter("theme_settings", None),
    Parameter("prepend_title", True, _flag()),
    Parameter("cache", True, Rule(lambda v: isinstance(v, (bool, str, os.PathLike)), "True, False or a folder path")),
    Parameter(
        "precision",
        "auto",
        Rule(lambda v: isinstance(v, str) and v in _precisions(), lambda: " or ".join(map(repr, _precisions()))),
    ),
    Parameter("max_tokens", None, _integers(8, optional=True, hint=" (the model's limit; 128 is the fast mode)")),
    Parameter("random_state", DEFAULT_RANDOM_STATE, Rule(_random_state, "None or an integer from 0 to 2**32 - 1")),
    Parameter(
        "topic_namer",
        None,
        Rule(
            lambda v: v is None or callable(v) or callable(getattr(v, "name_siblings", None)),
            "None, a callable taking a TopicInfo and returning a name, or a sibling namer such as "
            "icml_topics.OpenAINamer(base_url, model)",
        ),
    ),
    Parameter("verbose", False, _flag()),
    Parameter("client", None),
    Parameter("large_corpus_threshold", LARGE_CORPUS, _integers(1)),
    Parameter("sample_size", SAMPLE_SIZE, _integers(1)),
)

PARAMETERS: Mapping[str, Parameter] = MappingProxyType({p.name: p for p in _TABLE})
"""Every parameter of ``TopicMap`` by name, in the order of its signature."""

DEFAULTS: Mapping[str, Any] = MappingProxyType({p.name: p.default for p in _TABLE})
"""Every parameter's default (``taxonomy`` and ``theme_settings``: ``None``, the built-in ones)."""
