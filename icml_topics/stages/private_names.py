"""Every private name and mirrored behaviour of BERTopic, scikit-learn and numba the package relies on, in one place.

Each entry says where it is used, what it buys (measured: the results file), the test that pins it against the
installed library and what happens when a release renames it (the fallback: the library's own code runs and an
info line says so once). ``docs/reference/private-names.md`` is the same list for readers.

    >>> sorted({p.library for p in PRIVATE_NAMES})
    ['bertopic', 'numba', 'scikit-learn']
"""

from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass

__all__ = ["JOINED_DOCUMENTS", "PRIVATE_NAMES", "SWITCHED_OFF", "TOLD", "PrivateName", "private_method"]

logger = logging.getLogger("icml_topics")


@dataclass(frozen=True)
class PrivateName:
    """One private name (or behaviour) of a library the package uses."""

    library: str
    name: str
    used_in: str
    what: str
    gain: str
    test: str
    fallback: str


JOINED_DOCUMENTS = "c-TF-IDF input: each topic's documents cleaned (_preprocess_text) and joined by ' '"

PRIVATE_NAMES: tuple[PrivateName, ...] = (
    PrivateName(
        "bertopic",
        "BERTopic._save_representative_docs",
        "stages/represent.py",
        "replaced by a no-op on the fit's own BERTopic instance: it counts every paper's n-grams again to keep "
        "3 representative documents a topic that nothing here reads",
        "benchmarks/results/keyphrase_cost.md (variant keep-repr-docs)",
        "tests/stages/test_private_names.py::test_representative_docs_step_is_skipped_only_where_bertopic_has_it",
        "missing or with other parameters: BERTopic's own method runs (info line)",
    ),
    PrivateName(
        "bertopic",
        JOINED_DOCUMENTS,
        "stages/represent.py (_announce_joined_topics), stages/ngram_counts.py (expect_joined)",
        "the n-gram counter analyses each document once instead of each topic's joined text",
        "benchmarks/results/keyphrase_cost.md (variant unjoined)",
        "tests/stages/test_ngram_counts.py (joined documents), tests/stages/test_private_names.py",
        "a string the counter was not told about is analysed as it is (scikit-learn's result, slower)",
    ),
    PrivateName(
        "scikit-learn",
        "CountVectorizer._validate_params; _count_vocab / _limit_features / _sort_features (results mirrored)",
        "stages/ngram_counts.py",
        "word n-grams counted with numpy arrays: the same matrix, vocabulary and feature order",
        "benchmarks/results/keyphrase_cost.md (variant sklearn-counts)",
        "tests/stages/test_ngram_counts.py (against CountVectorizer on real and random text)",
        "settings it does not reproduce, or no _validate_params: scikit-learn's own code or checks",
    ),
    PrivateName(
        "numba",
        "numba.core.caching._CacheImpl (CacheImpl in newer releases)",
        "stages/jit_warmup.py",
        "where numba keeps its compiled-function cache, to warm it before a fit",
        "benchmarks/results/cold_processes.md",
        "tests/stages/test_jit_warmup.py",
        "neither name: no warm-up, numba compiles on first use",
    ),
)

#: names a benchmark switches off to measure what they buy (``benchmarks/keyphrase_cost.py``); empty in a fit
SWITCHED_OFF: set[str] = set()
#: the private names this process has already said it runs without (one info line each)
TOLD: set[str] = set()


def private_method(obj: object, name: str, parameters: tuple[str, ...]):
    """``obj``'s private method ``name`` when it exists with exactly ``parameters`` (``PRIVATE_NAMES`` lists
    each), else None, with one info line a process saying the library's own code runs instead."""
    owner = type(obj).__name__
    method = getattr(obj, name, None)
    try:
        found = tuple(inspect.signature(method).parameters) if callable(method) else None
    except (TypeError, ValueError):
        found = None
    if f"{owner}.{name}" in SWITCHED_OFF:
        return None
    if found != parameters:
        if f"{owner}.{name}" not in TOLD:
            TOLD.add(f"{owner}.{name}")
            logger.info(
                "%s.%s is %s in this BERTopic: its own code runs (slower, same result)",
                owner,
                name,
                "missing" if method is None else f"{found}, not {parameters}",
            )
        return None
    return method
