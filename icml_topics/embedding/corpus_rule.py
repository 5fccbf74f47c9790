"""Which embedding path a fit uses: a function of the corpus size and the machine only.

A fit of fewer than ``DIRECT_BELOW`` documents embeds with the packaged model directly (``fp32``,
sentence-transformers) and never waits for the once-per-machine setup (the ONNX/CTranslate2 export and the
guard, ``setup_child.py``); a larger fit uses the machine's path, deciding it first. One fit uses one path for
everything it embeds, so the cache (keyed by path) never mixes the vectors of two paths in one fit.

Examples:
    >>> from icml_topics.embedding.corpus_rule import corpus_path
    >>> corpus_path("auto", 38)
    'fp32'
"""

from __future__ import annotations

import os

from icml_topics.errors import InvalidValueError

from .._progress import stage_line, ticking
from .models import ModelSpec
from .paths import SETUP_DURATION, first_run_note, resolve_precision
from .setup_child import identity_folder, prepare

__all__ = ["DIRECT_BELOW", "DIRECT_BELOW_ENV", "corpus_path", "direct_below", "fit_path"]

DIRECT_BELOW = 1000
"""A fit of fewer documents than this embeds with the packaged model directly (``fp32``, sentence-transformers)
and never waits for the once-per-machine setup; larger fits use the machine's path. Where the setup pays for
itself on the first run, measured on a 2-core AMD EPYC (``docs/how-to/speed.md``)."""
DIRECT_BELOW_ENV = "ICML_TOPICS_DIRECT_BELOW"


def direct_below() -> int:
    """``DIRECT_BELOW``, or ``$ICML_TOPICS_DIRECT_BELOW`` (a count of documents; ``0``: always the machine's path)."""
    raw = os.environ.get(DIRECT_BELOW_ENV, "").strip()
    if not raw:
        return DIRECT_BELOW
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise InvalidValueError(
            f"{DIRECT_BELOW_ENV} must be a count of documents (an integer >= 0, e.g. 0 to always use the machine's "
            f"embedding path); got {raw!r}. Unset it for the default ({DIRECT_BELOW})."
        )
    return value


def corpus_path(precision: str, n_documents: int | None) -> str | None:
    """The path a fit of ``n_documents`` embeds on, when the corpus size alone decides it: ``precision`` when it
    is not ``"auto"``, ``"fp32"`` below ``direct_below()``, else None (the machine's decided path).

    Examples:
        >>> corpus_path("auto", 38), corpus_path("int8", 38), corpus_path("auto", 10**6)
        ('fp32', 'int8', None)
    """
    if precision != "auto":
        return precision
    if n_documents is not None and n_documents < direct_below():
        return "fp32"
    return None


def fit_path(
    model: ModelSpec, precision: str, n_documents: int | None, *, cache: object = True, verbose: bool = False
) -> str:
    """The one path every embedding of a fit of ``n_documents`` uses (its documents, keyphrases, topics, themes):
    ``precision`` when forced; for ``"auto"``, ``"fp32"`` (the packaged model, no setup) below
    ``direct_below()`` documents, else this machine's path, deciding it first
    (the one-time setup, announced in one line with its expected duration, in a child). A function of the
    corpus size and the machine only, so two runs of one corpus never mix paths.
    """

    path = corpus_path(precision, n_documents)
    if path is not None:
        return path
    named = model is None or isinstance(model, (str, os.PathLike))
    note = first_run_note(model, identity_folder(cache), None) if named else None
    if note is not None and verbose:
        stage_line("%s", note)
    with ticking(f"one-time setup of the embedding path ({SETUP_DURATION})", verbose and note is not None):
        path = prepare(model, device=None, cache=cache)
    return path if path is not None else resolve_precision(model)
