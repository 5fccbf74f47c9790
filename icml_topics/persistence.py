"""Save and load a fitted TopicMap as plain files: no pickle of arbitrary objects.

Layout of a saved model folder::

    model.json               parameters, topic names, keyphrases, taxonomy, versions
    documents.parquet        documents_ (with the cleaned text that was modelled)
    topics.parquet           topics_
    embeddings.npy           document embeddings (modelled rows, in order)
    theme_embeddings.npy     theme vectors (rows = model.json["theme_names"])
    labels.npy, coords.npy   fine topic per modelled row, 2-D map coordinates
    theme_rule.npz           the fitted theme rule's arrays (its names and settings are in model.json)
    theme_proba.npy          per modelled row, the probability of each theme column of the rule
    tree_labels.npy          the topic tree's node per modelled row and level (its parents, names,
                             keyphrases and stability are in model.json["topic_tree"])
    tree_similarity.npy      each modelled row's cosine to its node's centroid at every level
    manifest.json            SHA-256 of every file above, written last: the completeness marker

The folder is written next to its destination and renamed into place, so an interrupted save never
leaves a half-written model where a complete one is expected; ``load`` trusts a folder only when
its manifest matches every file, and then reads the folder as data, not configuration (``model_trust``:
the machine's parameters such as ``cache`` are ignored, a model path is refused, every parameter and
array is checked against ``model.json`` and the rules of ``TopicMap(...)``). The files
restore the fitted state (``FittedState``); the tables are derived from it again.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from icml_topics._io import verify_folder, write_manifest
from icml_topics._version import __version__
from icml_topics.embedding import cached_model_identity
from icml_topics.errors import IcmlTopicsError, InvalidValueError, MissingFileError
from icml_topics.fit_config import cache_dir
from icml_topics.fitted_tables import modelled_rows
from icml_topics.model_trust import (
    FIX,
    check_arrays,
    check_rule_arrays,
    load_array,
    load_arrays,
    read_documents,
    saved_params,
)
from icml_topics.schema import MODEL_COLUMNS, level_columns
from icml_topics.stages.tree import TopicTree
from icml_topics.state import FittedState, ThemeState, derive
from icml_topics.store.folders import output_folder, recover_folder
from icml_topics.store.swap import kill_point
from icml_topics.themes.assign import DocumentThemes, ThemeRule, ThemeSettings
from icml_topics.themes.taxonomy import Taxonomy

__all__ = ["FORMAT_VERSION", "SavedModel", "read_model", "save_model", "write_model_into"]

FORMAT_VERSION = 2  # 2: the topic tree is the hierarchy under the themes (stability, similarity)
_ARRAYS = ("embeddings", "theme_embeddings", "labels", "coords")


@dataclass(frozen=True)
class SavedModel:
    """What a saved folder holds: the estimator's parameters and its fitted state.

    ``state.themes`` is None for folders saved before the theme rule was stored: then ``taxonomy``
    is assigned again (``TopicMap.set_taxonomy``)."""

    params: dict[str, Any]
    theme_settings: ThemeSettings | None
    state: FittedState
    taxonomy: Taxonomy


def _jsonable_params(params: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in params.items():
        if key in {"taxonomy", "theme_settings"}:
            continue
        if value is None or isinstance(value, (bool, int, float, str)):
            out[key] = value
        elif isinstance(value, os.PathLike):
            out[key] = os.fspath(value)
        elif isinstance(value, (tuple, list)) and all(isinstance(v, (bool, int, float, str)) for v in value):
            out[key] = list(value)  # topic_sizes: read back as a tuple
        else:  # an object (custom reducer, model instance): recorded by name, re-supplied on load
            out[key] = {"unsaved_object": type(value).__name__}
    return out


def save_model(
    params: dict[str, Any], state: FittedState, path: str | os.PathLike, *, record: dict[str, Any] | None = None
) -> Path:
    """Write a fitted state and the estimator ``params`` (``get_params(deep=False)``) into folder ``path``;
    ``record`` (``outputs.run_record``: embedding path, CPU, package version) goes into its manifest.

    The folder is staged and swapped into place as a whole (``store.folders.output_folder``, the one swap and
    its recovery): an existing ``path`` is replaced only when its manifest proves icml_topics wrote it
    (``written_by``, ``format``, every file in it listed with its unchanged SHA-256); an existing file, a
    folder holding anything else, or an edited model file is refused. A symbolic link ``path`` is followed.
    """
    target = Path(path).expanduser()
    with output_folder(target, label="TopicMap.save:", record=record) as staging:
        _write_model_files(params, state, staging)
    return target


def write_model_into(
    params: dict[str, Any], state: FittedState, folder: Path, *, record: dict[str, Any] | None = None
) -> Path:
    """Write the model files and their manifest (with ``record``, as :func:`save_model`) into the new folder
    ``folder`` (inside a staging folder that is swapped into place as a whole: no second swap)."""
    folder.mkdir(parents=True, exist_ok=False)
    _write_model_files(params, state, folder)
    write_manifest(folder, written_by="icml_topics", **(record or {}))
    return folder


def _write_model_files(params: dict[str, Any], state: FittedState, folder: Path) -> None:

    derived = derive(state)
    themes = state.themes
    assert themes is not None, "save a state with a theme assignment"
    meta = {
        "format_version": FORMAT_VERSION,
        "icml_topics_version": __version__,
        "params": _jsonable_params(params),
        # read from the record next to the embedding cache when the model folder is unchanged:
        # saving a fit whose vectors all came from the cache never loads the model's weights
        "embedding_model": cached_model_identity(
            params.get("embedding_model"), cache_dir(params.get("cache", True), "embeddings")
        ),
        "theme_settings": asdict(params["theme_settings"]) if params.get("theme_settings") else None,
        "topic_names": {str(k): v for k, v in state.topic_names.items()},
        "keywords": {str(k): list(v) for k, v in state.keywords.items()},
        "theme_names": list(derived.theme_names),
        "theme_aliases": dict(themes.aliases),
        "taxonomy": themes.taxonomy.to_dict(),
    }
    rule_meta, rule_arrays = themes.rule.to_state()
    meta["theme_rule"] = rule_meta
    if state.tree is not None:
        meta["topic_tree"] = _tree_meta(state.tree)
    folder.chmod(0o755)
    (folder / "model.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
    kill_point("mid-staging")  # test hook (ICML_TOPICS_KILL_AT, see icml_topics.store.swap)
    derived.documents.assign(text=state.corpus["text"].to_numpy()).to_parquet(folder / "documents.parquet", index=False)
    derived.topics.to_parquet(folder / "topics.parquet", index=False)
    arrays = {
        "embeddings": state.embeddings,
        "theme_embeddings": derived.theme_embeddings,
        "labels": state.labels,
        "coords": state.coords,
        "theme_proba": themes.docs.proba,
    }
    if state.tree is not None:
        arrays["tree_labels"] = state.tree.labels
        if state.tree.similarity is not None:
            arrays["tree_similarity"] = state.tree.similarity
    for name, array in arrays.items():
        np.save(folder / f"{name}.npy", np.asarray(array), allow_pickle=False)
    np.savez(folder / "theme_rule.npz", **rule_arrays)


def _saved_themes(docs: pd.DataFrame, proba: np.ndarray) -> DocumentThemes:
    """The modelled documents' themes as saved (scores are the tables' rounded values)."""
    ok = modelled_rows(docs)
    text = [ok[c].fillna("").astype(str).tolist() for c in ("theme", "theme_2", "theme_reason")]
    score = [ok[c].to_numpy(dtype=np.float32, na_value=np.nan) for c in ("theme_score", "theme_2_score")]
    return DocumentThemes(text[0], score[0], text[1], score[1], text[2], proba)


def read_model(path: str | os.PathLike, given: dict[str, Any] | None = None) -> SavedModel:
    """Read a folder written by ``save_model``, checking it as data (``model_trust``: the machine's parameters
    are not read from it, every array and parameter is checked); ``given``: the caller's parameters, over the
    saved ones."""
    folder = Path(path).expanduser()
    recover_folder(folder)  # a save killed between its two renames: the earlier model comes back
    meta_path = folder / "model.json"
    if not meta_path.is_file() and (folder / "model" / "model.json").is_file():
        raise MissingFileError(
            f"{folder} is an output folder of `icml-topics fit` (or compare); the saved model is its model/ "
            f"subfolder: TopicMap.load({os.fspath(folder / 'model')!r})."
        )
    if not meta_path.is_file():
        raise MissingFileError(f"{folder} is not a saved TopicMap (no model.json). Save one with TopicMap.save(path).")
    listed = frozenset(verify_folder(folder, what="model (TopicMap.save)")["files"])
    meta_path = _member(folder, listed, "model.json")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError) as exc:
        why = "nested too deeply for a model file" if isinstance(exc, RecursionError) else exc
        raise InvalidValueError(f"{meta_path} is not valid JSON ({why}); {FIX}.") from None
    _check_meta(meta, meta_path)
    if meta.get("format_version") != FORMAT_VERSION:
        raise InvalidValueError(
            f"{folder} was saved in format {meta.get('format_version')}; this icml_topics ({__version__}) reads format "
            f"{FORMAT_VERSION}. Re-fit, or install the icml_topics version that saved it ({meta.get('icml_topics_version')})."
        )
    try:
        return _saved_model(folder, meta, meta_path, listed, given or {})
    except (KeyError, TypeError, AttributeError, IndexError, ValueError, OverflowError, RecursionError) as exc:
        if isinstance(exc, IcmlTopicsError):
            raise
        # a crafted value of a type no check foresaw: still the folder's fault, said as such
        raise InvalidValueError(
            f"{meta_path} (or a file it describes) holds a value that cannot be read ({type(exc).__name__}: "
            f"{str(exc)[:200]}); the folder was edited or damaged: {FIX}."
        ) from None


def _saved_model(
    folder: Path, meta: dict, meta_path: Path, listed: frozenset[str], given: dict[str, Any]
) -> SavedModel:
    """The checked parts of a saved folder whose ``model.json`` is ``meta``."""
    params = saved_params(meta["params"], meta_path, given)
    try:
        settings = _theme_settings(meta["theme_settings"]) if meta.get("theme_settings") else None
        taxonomy = Taxonomy.from_dict(meta["taxonomy"])
    except IcmlTopicsError as exc:  # the rule broken, said with the file it is in
        raise InvalidValueError(f"{meta_path}: {exc}; the folder was edited or damaged: {FIX}.") from None
    return SavedModel(params, settings, _read_state(folder, meta, taxonomy, listed), taxonomy)


def _theme_settings(values: dict) -> ThemeSettings:
    """The saved theme settings, each a number of its default's kind (a flag a bool, a count an int)."""
    for name, default in asdict(ThemeSettings()).items():
        value = values.get(name, default)
        kinds = (bool,) if isinstance(default, bool) else (int,) if isinstance(default, int) else (int, float)
        if not isinstance(value, kinds) or (isinstance(value, bool) and not isinstance(default, bool)):
            raise InvalidValueError(f"theme_settings[{name!r}] is {value!r}, not a {kinds[-1].__name__}")
    return ThemeSettings.from_dict(values)


def _member(folder: Path, listed: frozenset[str], name: str, required: bool = True) -> Path | None:
    """``folder / name`` when the verified manifest lists it (a regular file inside the folder, checked by
    ``verify_folder``); None for an optional file it does not list; a required one unlisted is refused."""
    if name in listed:
        return folder / name
    if required:
        raise InvalidValueError(f"{folder}/manifest.json does not list {name}, which a saved model holds; {FIX}.")
    return None


def _read_state(folder: Path, meta: dict, taxonomy: Taxonomy, listed: frozenset[str]) -> FittedState:
    """The fitted state of a saved folder, every array checked against model.json before use; only the
    files the verified manifest lists (``listed``) are read."""
    meta_path = folder / "model.json"
    docs = read_documents(_member(folder, listed, "documents.parquet"))
    arrays = {n: load_array(_member(folder, listed, f"{n}.npy")) for n in _ARRAYS}
    proba_path = _member(folder, listed, "theme_proba.npy", required=False)
    proba = load_array(proba_path) if proba_path is not None else None
    check_arrays(folder, docs, arrays if proba is None else {**arrays, "theme_proba": proba}, meta)
    state = FittedState(
        corpus=docs.drop(columns=[c for c in docs.columns if c in MODEL_COLUMNS or c in level_columns(docs.columns)]),
        embeddings=arrays["embeddings"],
        labels=arrays["labels"].astype(np.int64),
        coords=arrays["coords"],
        keywords={int(k): list(v) for k, v in meta["keywords"].items()},
        topic_names={int(k): v for k, v in meta["topic_names"].items()},
    )
    rule_path = _member(folder, listed, "theme_rule.npz", required=False)
    if "theme_rule" in meta and rule_path is not None and proba is not None:
        rule_arrays = load_arrays(rule_path)
        check_rule_arrays(rule_path, rule_arrays, meta["theme_rule"], *state.embeddings.shape)
        try:
            rule = ThemeRule.from_state(meta["theme_rule"], rule_arrays)
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidValueError(f"{meta_path}: the saved theme rule cannot be read ({exc!r}); {FIX}.") from None
        aliases = {str(k): str(v) for k, v in (meta.get("theme_aliases") or {}).items()}
        state = state.with_themes(ThemeState(taxonomy, rule, _saved_themes(docs, proba), aliases))
    if "topic_tree" in meta:
        state = replace(state, tree=_read_tree(meta["topic_tree"], folder, len(state.embeddings), meta_path, listed))
    return state


def _tree_meta(tree: TopicTree) -> dict[str, Any]:
    return {
        "parents": [{str(k): int(v) for k, v in p.items()} for p in tree.parents],
        "names": [{str(k): v for k, v in n.items()} for n in tree.names],
        "keywords": [{str(k): list(v) for k, v in kw.items()} for kw in tree.keywords],
        "stability": [{str(k): (None if v != v else float(v)) for k, v in s.items()} for s in tree.stability],
    }


def _read_tree(meta: Any, folder: Path, n_rows: int, meta_path: Path, listed: frozenset[str]) -> TopicTree:
    """The saved topic tree, its shapes and nesting checked (``ValueError`` naming the problem)."""
    path = folder / "tree_labels.npy"
    if path.name not in listed:
        raise InvalidValueError(f"{meta_path} describes a topic tree but {path.name} is missing; {FIX}.")
    labels = load_array(path)
    try:
        if labels.dtype.kind not in "iu":
            raise InvalidValueError(f"tree_labels.npy holds {labels.dtype}, not integers")
        tree = TopicTree(
            labels.astype(np.int64),
            tuple({int(k): int(v) for k, v in p.items()} for p in meta["parents"]),
            tuple({int(k): str(v) for k, v in n.items()} for n in meta["names"]),
            tuple({int(k): [str(w) for w in v] for k, v in kw.items()} for kw in meta["keywords"]),
            tuple(
                {int(k): float("nan") if v is None else float(v) for k, v in s.items()}
                for s in meta.get("stability", ())
            ),
            _tree_similarity(_member(folder, listed, "tree_similarity.npy", required=False), labels.shape),
        )
        tree.check(n_rows)
    except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as exc:
        raise InvalidValueError(
            f"{path} and {meta_path.name}: the saved topic tree is inconsistent ({exc}); {FIX}."
        ) from None
    return tree


def _tree_similarity(path: Path | None, shape: tuple[int, ...]) -> np.ndarray | None:
    """The saved papers' cosine to their nodes (``tree_similarity.npy``): finite or NaN floats in [-1, 1]."""
    if path is None:
        return None
    sim = load_array(path)
    if sim.dtype.kind != "f" or sim.shape != shape or (np.abs(np.nan_to_num(sim)) > 1.0 + 1e-4).any():
        raise InvalidValueError(f"{path.name} holds {sim.dtype} {sim.shape}, not cosines of shape {shape}")
    return sim.astype(np.float64)


_META_TYPES: dict[str, tuple[type, ...]] = {
    "params": (dict,),
    "topic_names": (dict,),
    "keywords": (dict,),
    "theme_names": (list,),
    "taxonomy": (dict, list),
    "theme_settings": (dict, type(None)),
}


def _check_meta(meta: Any, path: Path) -> None:
    """Raise ``ValueError`` naming the first field of ``model.json`` that has the wrong type."""
    if not isinstance(meta, dict):
        raise InvalidValueError(f"{path} must hold a JSON object, not {type(meta).__name__}; save the model again.")
    for key, types in _META_TYPES.items():
        if not isinstance(meta.get(key), types):
            raise InvalidValueError(
                f"{path}: {key!r} must be a {' or '.join(t.__name__ for t in types)}, "
                f"not {type(meta.get(key)).__name__}; save the model again."
            )

    def int_keys(d: dict) -> bool:
        return all(isinstance(k, str) and k.lstrip("-").isdigit() for k in d)

    checks = {
        "topic_names": int_keys(meta["topic_names"]) and all(isinstance(v, str) for v in meta["topic_names"].values()),
        "keywords": int_keys(meta["keywords"])
        and all(isinstance(v, list) and all(isinstance(w, str) for w in v) for v in meta["keywords"].values()),
        "theme_names": all(isinstance(v, str) for v in meta["theme_names"]),
    }
    for field, good in checks.items():
        if not good:
            raise InvalidValueError(f"{path}: {field!r} holds keys or values of the wrong type; save the model again.")
