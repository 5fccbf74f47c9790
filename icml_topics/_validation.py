"""Parameter checks of [`TopicMap`][icml_topics.TopicMap], run at the start of ``fit`` (before any work).

In the spirit of scikit-learn's ``_validate_params``: each parameter's rule is written once, in the table
of ``icml_topics.parameters``, and a value that breaks it raises a ``ValueError`` that names the parameter,
the value and what is allowed.

    >>> check_params({"min_topic_size": -3})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    icml_topics.errors.InvalidValueError: min_topic_size=-3 is not allowed: use None (...) or an integer from 2 to 1_000_000_000.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from icml_topics import parameters
from icml_topics.errors import InvalidTypeError, InvalidValueError

if TYPE_CHECKING:
    from icml_topics.embedding.models import ModelSpec

__all__ = ["check_embeddings", "check_params", "require_columns", "valid_representation"]


def check_params(params: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` for the first parameter in ``params`` that breaks its rule (the table's,
    ``icml_topics.parameters.PARAMETERS``); names that are not parameters are left to the caller."""
    for name, value in params.items():
        table = parameters.PARAMETERS  # read at call time: the one table (a test swaps a rule in it)
        rule = table[name].rule if name in table else None
        if rule is not None and not rule.allows(value):
            raise InvalidValueError(f"{name}={value!r} is not allowed: use {rule}.")


def check_embeddings(embeddings: Any, *, model: ModelSpec = "unknown", name: str = "embeddings") -> np.ndarray:
    """``embeddings`` as a float32 matrix after scikit-learn-style checks, before any work: 2-D, numeric,
    finite, no all-zero row, and (unless ``model`` is ``"unknown"``) as many columns as ``model``
    (the ``embedding_model`` parameter) makes. Raises ``ValueError`` naming the parameter, the value and the fix.

    >>> check_embeddings(np.zeros((2, 3)))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    icml_topics.errors.InvalidValueError: embeddings= has 2 all-zero row(s) (first: row 0): ...
    """
    try:
        emb = np.asarray(embeddings, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise InvalidValueError(
            f"{name}= must be a numeric matrix (one row per document), not {type(embeddings).__name__} ({exc})."
        ) from None
    if emb.ndim != 2:
        raise InvalidValueError(f"{name}= must be a 2-D matrix (one row per document), got shape {emb.shape}.")
    if model != "unknown":
        from icml_topics.embedding.models import model_dimension  # lazy: keeps TopicMap light

        dim = model_dimension(model)
        if emb.shape[1] != dim:
            raise InvalidValueError(
                f"{name}= has {emb.shape[1]} columns, but the embedding model ({_model_name(model)}) makes "
                f"{dim}-dimensional vectors; pass vectors from that model, or set embedding_model= to the model "
                f"that made them."
            )
    bad = ~np.isfinite(emb).all(axis=1)
    if bad.any():
        raise InvalidValueError(
            f"{name}= holds NaN or infinite values in {int(bad.sum())} row(s) (first: row {int(np.argmax(bad))}); "
            "recompute them, or drop those rows from the corpus and the matrix."
        )
    zero = ~emb.any(axis=1)
    if zero.any():
        raise InvalidValueError(
            f"{name}= has {int(zero.sum())} all-zero row(s) (first: row {int(np.argmax(zero))}): a zero vector has "
            "no direction to compare; recompute them with the embedding model, or drop those rows from the "
            "corpus and the matrix."
        )
    return emb


def _model_name(model: ModelSpec) -> str:
    if model is None:
        return "the default all-MiniLM-L6-v2"
    return repr(model) if isinstance(model, (str, os.PathLike)) else type(model).__name__


def valid_representation(value: Any, n_texts: int) -> bool:
    """A cached representation: one int label per text, keyphrase lists for every label."""
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("labels"), list)
        or not isinstance(value.get("keywords"), dict)
    ):
        return False
    labels, keywords = value["labels"], value["keywords"]
    if len(labels) != n_texts or not all(isinstance(x, int) for x in labels):
        return False
    if not all(isinstance(v, list) and all(isinstance(w, str) for w in v) for v in keywords.values()):
        return False
    return {str(x) for x in labels} - {"-1"} <= set(keywords)


def require_documents(documents: object, example: str = "TopicMap.documents_") -> None:
    """Raise ``InvalidTypeError`` unless ``documents`` is a DataFrame (``example`` says where one comes from)."""
    import pandas as pd

    if not isinstance(documents, pd.DataFrame):
        raise InvalidTypeError(f"documents must be a pandas DataFrame ({example}), got {type(documents).__name__}.")


def require_column(documents: object, column: str, argument: str, example: str) -> None:
    """Raise a clear error unless ``documents`` is a DataFrame with the column that ``argument=column`` names."""
    require_documents(documents, "e.g. TopicMap.documents_")
    if column not in documents.columns:  # type: ignore[attr-defined]
        raise InvalidValueError(
            f"{argument}={column!r} is not a column of documents; available columns: "
            f"{list(map(str, documents.columns))}. Pass {argument}= one of them "  # type: ignore[attr-defined]
            f"(e.g. {argument}={example!r})."
        )


def require_columns(df: object, columns: Sequence[str], name: str, source: str) -> None:
    """Raise a clear error unless ``df`` is a DataFrame with ``columns`` (``source`` says what makes one)."""
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise InvalidTypeError(f"{name} must be a pandas DataFrame returned by {source}, got {type(df).__name__}.")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise InvalidValueError(
            f"{name} is missing columns {missing} (has {list(map(str, df.columns))}); "
            f"pass the table returned by {source}."
        )
