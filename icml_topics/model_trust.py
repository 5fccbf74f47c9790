"""What ``TopicMap.load`` trusts in a saved model folder: the folder is data, never configuration.

* **Parameters** (``model.json["params"]``) are checked against the constraints of ``TopicMap(...)``
  (``_validation.check_params``: one rule for ``fit`` and ``load``); an unknown one is refused.
  Those that belong to a machine rather than to a model, ``MACHINE_PARAMS`` (``cache``: where
  files are written; ``client``: a Dask cluster), are never read from a folder: this machine's
  defaults are used, or what the caller passes (``TopicMap.load(path, cache=...)``), and a logged
  warning names each saved value ignored.
* **embedding_model** is used from a folder only when it names a model, not a file: the packaged
  default (``None``, ``"all-MiniLM-L6-v2"``) or a Hugging Face id (``"org/name"``) that is no path
  on this machine. A filesystem path, or a model object (never saved), is refused with the fix: pass
  it yourself, ``TopicMap.load(path, embedding_model=...)``.
* **Arrays** are read with ``allow_pickle=False`` and checked against ``model.json`` and
  ``documents.parquet`` before use: dtype, shape, finiteness, ranges (probabilities in [0, 1]), topic
  ids within the topic table, theme ids within the theme table (the tree: ``TopicTree.check``).

Every refusal is an ``InvalidValueError`` naming the file, the value, the
rule and the fix.
"""

from __future__ import annotations

import logging
import re
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from icml_topics._validation import check_params
from icml_topics.embedding.models import DEFAULT_MODEL_NAME
from icml_topics.errors import InvalidValueError
from icml_topics.fit_config import FitConfig
from icml_topics.fitted_tables import modelled_mask

if TYPE_CHECKING:
    from icml_topics.embedding.models import ModelSpec

__all__ = [
    "FIX",
    "MACHINE_PARAMS",
    "check_arrays",
    "check_model_name",
    "check_rule_arrays",
    "load_array",
    "load_arrays",
    "read_documents",
    "saved_params",
]

logger = logging.getLogger("icml_topics")

FIX = "save the model again with TopicMap.save (re-fit it if you no longer have the fitted model)"
"""What to do about a saved folder that fails a check (it was edited, damaged or not written by us)."""

MACHINE_PARAMS = ("cache", "client")
"""Parameters that describe the machine, not the model: never read from a saved folder."""

_STORED_ELSEWHERE = ("taxonomy", "theme_settings")  # model.json keeps them outside "params"
_HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?")
_PROBA_TOLERANCE = 1e-3


# ------------------------------------------------------------------------------------------ arrays
_DOCUMENT_COLUMNS = ("status", "text", "theme", "theme_score", "theme_2", "theme_2_score", "theme_reason")


def read_documents(path: Path) -> pd.DataFrame:
    """``documents.parquet`` of a saved folder, with the columns ``load`` reads (a clear error otherwise)."""
    try:
        docs = pd.read_parquet(path)
    except (OSError, ValueError) as exc:
        raise InvalidValueError(f"{path} is not a readable Parquet table ({type(exc).__name__}); {FIX}.") from None
    missing = [c for c in _DOCUMENT_COLUMNS if c not in docs.columns]
    _require(not missing, path, f"lacks the column(s) {missing} that TopicMap.save writes")
    return docs


def load_array(path: Path) -> np.ndarray:
    """The array in ``.npy`` file ``path``, never unpickled: an object array or another file is refused."""
    try:
        return np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise InvalidValueError(f"{path} {_unreadable(exc)}; {FIX}.") from None


def load_arrays(path: Path) -> dict[str, np.ndarray]:
    """Every array in ``.npz`` file ``path``, never unpickled (the member is named when one is refused)."""
    try:
        archive = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise InvalidValueError(f"{path} {_unreadable(exc)}; {FIX}.") from None
    out: dict[str, np.ndarray] = {}
    with archive:
        for name in archive.files:
            try:
                out[name] = archive[name]
            except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
                raise InvalidValueError(f"{path}: array {name!r} {_unreadable(exc)}; {FIX}.") from None
    return out


def _unreadable(exc: BaseException) -> str:
    if "Object arrays" in str(exc) or "pickled" in str(exc):
        return "holds Python objects (a pickled or object array), which TopicMap.load never unpickles"
    return f"is not a numpy array file ({type(exc).__name__}: {exc})"


def _require(ok: bool, path: Path, problem: str) -> None:
    if not ok:
        raise InvalidValueError(f"{path} {problem}; the folder was edited or damaged: {FIX}.")


def _check_numbers(path: Path, array: np.ndarray, kind: str) -> None:
    """``kind`` ``"f"``: a finite float array; ``"i"``: an integer array."""
    if kind == "i":
        _require(array.dtype.kind in "iu", path, f"holds {array.dtype} values, but topic and theme ids are integers")
        return
    _require(array.dtype.kind == "f", path, f"holds {array.dtype} values, but it must hold floating-point numbers")
    bad = ~np.isfinite(array)
    _require(not bad.any(), path, f"holds {int(bad.sum())} NaN or infinite value(s); every value must be finite")


def _check_shape(path: Path, array: np.ndarray, shape: tuple[int | None, ...], why: str) -> None:
    good = array.ndim == len(shape) and all(w is None or g == w for g, w in zip(array.shape, shape))
    want = "(" + ", ".join("any" if w is None else str(w) for w in shape) + ")"
    _require(good, path, f"has shape {tuple(array.shape)}, but {why} need {want}")


def check_arrays(folder: Path, docs: pd.DataFrame, arrays: Mapping[str, np.ndarray], meta: Mapping) -> None:
    """Check the ``.npy`` arrays of a saved folder (``theme_proba`` when present) against documents.parquet
    and model.json: dtypes, shapes (one row per modelled document, one theme vector per theme name, one
    probability column per theme column of the rule), finite values, probabilities in [0, 1], no zero
    embedding, and fine topic ids that the topic table (``model.json["topic_names"]``) holds."""
    n_ok = int(modelled_mask(docs).sum()) if "status" in docs else len(arrays["labels"])
    emb = arrays["embeddings"]
    dim = emb.shape[1] if emb.ndim == 2 else None
    rule_names = (meta.get("theme_rule") or {}).get("names")
    expected: dict[str, tuple[tuple[int | None, ...], str]] = {
        "embeddings": ((n_ok, dim), "float"),
        "labels": ((n_ok,), "int"),
        "coords": ((n_ok, 2), "float"),
        "theme_embeddings": ((len(meta["theme_names"]), dim), "float"),
        "theme_proba": ((n_ok, len(rule_names) if isinstance(rule_names, list) else None), "float"),
    }
    why = f"documents.parquet and model.json ({n_ok} modelled documents, {dim}-dimensional embeddings)"
    for name, (shape, kind) in expected.items():
        if name not in arrays:
            continue
        path = folder / f"{name}.npy"
        _check_numbers(path, arrays[name], kind[0])
        _check_shape(path, arrays[name], shape, why)
    path = folder / "embeddings.npy"
    zero = ~emb.any(axis=1)
    _require(not zero.any(), path, f"has {int(zero.sum())} all-zero row(s) (first: row {int(np.argmax(zero))})")
    if "theme_proba" in arrays:
        proba = arrays["theme_proba"]
        out = (proba < -_PROBA_TOLERANCE) | (proba > 1 + _PROBA_TOLERANCE)
        _require(not out.any(), folder / "theme_proba.npy", f"holds {int(out.sum())} value(s) outside [0, 1]")
    topics = {int(k) for k in meta["topic_names"]} | {-1}
    unknown = sorted({int(v) for v in np.unique(arrays["labels"])} - topics)
    _require(
        not unknown,
        folder / "labels.npy",
        f"holds topic id(s) {unknown[:5]} that model.json's topic table does not have (its ids: "
        f"{sorted(topics)[:10]}{'...' if len(topics) > 10 else ''}; -1 is an outlier)",
    )


_RULE_STRINGS = ("meta", "vocabulary")  # JSON text kept as a 0-d string array (ThemeHead, WordFeatures)
_UNSEEN = "intercept"  # a classifier's intercept is NaN for a theme it never saw (themes/evidence.py)


def check_rule_arrays(path: Path, arrays: Mapping[str, np.ndarray], rule_meta: Any, n_ok: int, dim: int) -> None:
    """Check the arrays of ``theme_rule.npz`` against ``model.json["theme_rule"]`` and the documents: every
    member numeric and finite (or a JSON string where the rule keeps one), the core arrays' shapes, and
    every prototype's theme id within the theme table (``theme_rule.names``)."""
    names = rule_meta.get("names") if isinstance(rule_meta, dict) else None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names) or not names:
        raise InvalidValueError(
            f"{path.parent / 'model.json'}: 'theme_rule' must hold 'names', a non-empty list of theme names; {FIX}."
        )
    core = ("prototypes", "prototype_theme", "term_weights", "centroids", "reference_own")
    missing = [n for n in core if n not in arrays]
    _require(not missing, path, f"lacks the array(s) {missing} that the theme rule needs")
    for name, array in arrays.items():
        if array.dtype.kind == "U" and name.endswith(_RULE_STRINGS) and array.ndim == 0:
            continue
        if array.dtype.kind in "iu":
            continue
        if name.endswith(_UNSEEN) and array.dtype.kind == "f":
            array = np.where(np.isnan(array), 0, array)
        _check_numbers(path.with_name(f"{path.name}[{name}]"), array, "f")
    n_cols = len(names)
    why = f"model.json's theme table ({n_cols} theme columns) and the documents ({n_ok}, {dim}-dimensional)"
    shapes = {
        "prototypes": (None, dim),
        "prototype_theme": (arrays["prototypes"].shape[0] if arrays["prototypes"].ndim else None,),
        "term_weights": (None,),
        "centroids": (n_cols, dim),
        "reference_own": (n_ok, n_cols),
        "classifier_coef": (n_cols, dim),
        "classifier_intercept": (n_cols,),
    }
    for name, shape in shapes.items():
        if name in arrays:
            _check_shape(path.with_name(f"{path.name}[{name}]"), arrays[name], shape, why)
    owner = arrays["prototype_theme"]
    _check_numbers(path.with_name(f"{path.name}[prototype_theme]"), owner, "i")
    outside = owner[(owner < 0) | (owner >= n_cols)]
    _require(
        outside.size == 0,
        path.with_name(f"{path.name}[prototype_theme]"),
        f"holds theme id(s) {sorted({int(v) for v in outside[:5]})} outside the theme table (0 to {n_cols - 1})",
    )


# ------------------------------------------------------------------------------------- parameters
def saved_params(raw: Mapping[str, Any], meta_path: Path, given: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters of a loaded model: the saved ones checked like ``TopicMap(...)``'s, the machine ones
    (``MACHINE_PARAMS``, objects that were not saved) left at this machine's defaults with a warning,
    and ``given`` (the caller's, ``TopicMap.load(path, **given)``) over all."""
    known = [n for n in FitConfig.parameter_names() if n not in _STORED_ELSEWHERE]
    unknown = sorted(set(raw) - set(known), key=str)
    if unknown:
        raise InvalidValueError(
            f"{meta_path}: unknown parameter(s) {unknown} in 'params' (TopicMap's parameters: {known}); this "
            f"folder was edited or written by another program: {FIX}."
        )
    wrong = sorted(set(given) - set(known), key=str)
    if wrong:
        raise InvalidValueError(
            f"TopicMap.load got unknown parameter(s) {wrong}; pass any of {known} (for another taxonomy or theme "
            "settings, call set_taxonomy(...) after loading)."
        )
    check_params(given)
    defaults = FitConfig.defaults()
    params: dict[str, Any] = {}
    for name, value in raw.items():
        if name in given:
            continue
        if isinstance(value, dict):
            _unsaved_object(name, value, meta_path, defaults[name])
        elif name in MACHINE_PARAMS:
            if value != defaults[name]:
                where = "cache folder (where files are written)" if name == "cache" else "Dask cluster"
                _ignored(
                    meta_path,
                    name,
                    repr(value),
                    defaults[name],
                    f"a saved model does not choose this machine's {where}",
                )
        else:
            params[name] = tuple(value) if isinstance(value, list) else value  # topic_sizes is a tuple
    try:
        check_params(params)
    except InvalidValueError as exc:
        raise InvalidValueError(
            f"{meta_path}: {exc} (a saved model's parameters follow the rules of TopicMap(...)); {FIX}."
        ) from None
    if "embedding_model" not in given:
        check_model_name(params.get("embedding_model"), meta_path)
    return {**params, **given}


def _ignored(meta_path: Path, name: str, saved: str, used: Any, why: str) -> None:
    logger.warning(
        "%s: the saved parameter %s=%s is ignored (%s); using %s=%r, the default. Pass TopicMap.load(path, %s=...) "
        "to choose another.",
        meta_path,
        name,
        saved,
        why,
        name,
        used,
        name,
    )


def _unsaved_object(name: str, value: dict, meta_path: Path, default: Any) -> None:
    kind = value.get("unsaved_object")
    if set(value) != {"unsaved_object"} or not isinstance(kind, str):
        raise InvalidValueError(
            f"{meta_path}: parameter {name}={value!r} is not a value TopicMap.save writes (a plain value, or "
            f"{{'unsaved_object': <type name>}}); {FIX}."
        )
    if name == "embedding_model":
        raise InvalidValueError(
            f"{meta_path}: the model was fitted with an embedding model object ({kind}), which is not saved; "
            f"pass the same model: TopicMap.load({str(meta_path.parent)!r}, embedding_model=<your {kind}>)."
        )
    _ignored(meta_path, name, f"<a {kind} object>", default, "objects are not saved; it matters to a new fit only")


def check_model_name(model: ModelSpec, meta_path: Path) -> None:
    """Refuse a saved ``embedding_model`` that is not a model name: only the packaged default or a Hugging
    Face id that is no path on this machine is used from a folder; a path is passed by the caller."""

    if model is None:
        return
    if isinstance(model, str) and _HUB_ID.fullmatch(model) and ".." not in model and not _exists(model):
        return
    raise InvalidValueError(
        f"{meta_path}: embedding_model={model!r} is not a model name: a saved model may name the packaged "
        f"{DEFAULT_MODEL_NAME} or a Hugging Face id ('org/name'), never a file or folder to read. If it is the "
        f"model this one was fitted with, pass it yourself: TopicMap.load({str(meta_path.parent)!r}, "
        f"embedding_model={model!r})."
    )


def _exists(text: str) -> bool:
    try:
        return Path(text).expanduser().exists()
    except (OSError, ValueError):
        return True
