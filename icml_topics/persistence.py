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
    manifest.json            SHA-256 of every file above, written last: the completeness marker

The folder is written next to its destination and renamed into place, so an interrupted save never
leaves a half-written model where a complete one is expected; ``load`` trusts a folder only when
its manifest matches every file, and checks the types in ``model.json`` before using them.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from icml_topics import __version__, tables
from icml_topics._io import verify_folder, write_manifest
from icml_topics._validation import check_params
from icml_topics.themes.assign import ThemeRule, ThemeSettings

__all__ = ["FORMAT_VERSION", "load_model", "save_model"]

FORMAT_VERSION = 1
_OUTPUT_COLUMNS = {"topic", "topic_label", "theme", "theme_score", "theme_2", "theme_2_score", "theme_reason", "x", "y"}
_ARRAYS = ("embeddings", "theme_embeddings", "labels", "coords")


def _jsonable_params(model: Any) -> dict[str, Any]:
    params = {}
    for key, value in model.get_params(deep=False).items():
        if key in {"taxonomy", "theme_settings"}:
            continue
        if value is None or isinstance(value, (bool, int, float, str)):
            params[key] = value
        elif isinstance(value, os.PathLike):
            params[key] = os.fspath(value)
        else:  # an object (custom reducer, model instance): recorded by name, re-supplied on load
            params[key] = {"unsaved_object": type(value).__name__}
    return params


def save_model(model: Any, path: str | os.PathLike) -> Path:
    """Write ``model`` into folder ``path`` (replaced if it exists)."""
    from icml_topics.embedding import model_identity

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "format_version": FORMAT_VERSION,
        "icml_topics_version": __version__,
        "params": _jsonable_params(model),
        "embedding_model": model_identity(model.embedding_model),
        "theme_settings": asdict(model.theme_settings) if model.theme_settings else None,
        "topic_names": {str(k): v for k, v in model.topic_names_.items()},
        "keywords": {str(k): list(v) for k, v in model.keywords_.items()},
        "theme_names": list(model.theme_names_),
        "taxonomy": model.taxonomy_.to_dict(),
    }
    rule_meta, rule_arrays = model.theme_rule_.to_state()
    meta["theme_rule"] = rule_meta
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    tmp.chmod(0o755)
    try:
        (tmp / "model.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
        model.documents_.assign(text=model._flagged["text"].to_numpy()).to_parquet(
            tmp / "documents.parquet", index=False
        )
        model.topics_.to_parquet(tmp / "topics.parquet", index=False)
        arrays = {
            "embeddings": model.embeddings_,
            "theme_embeddings": model.theme_embeddings_,
            "labels": model._labels,
            "coords": model._coords,
        }
        arrays["theme_proba"] = model.theme_proba_
        for name, array in arrays.items():
            np.save(tmp / f"{name}.npy", np.asarray(array), allow_pickle=False)
        np.savez(tmp / "theme_rule.npz", **rule_arrays)
        write_manifest(tmp)
        old = None
        if target.exists():
            old = target.with_name(f".{target.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            target.rename(old)
        tmp.rename(target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def load_model(cls: type, path: str | os.PathLike) -> Any:
    """Read a folder written by :func:`save_model` back into a fitted ``cls`` (TopicMap)."""
    from icml_topics.themes.taxonomy import Taxonomy

    folder = Path(path)
    meta_path = folder / "model.json"
    if not meta_path.is_file():
        raise FileNotFoundError(f"{folder} is not a saved TopicMap (no model.json). Save one with TopicMap.save(path).")
    verify_folder(folder, what="model (TopicMap.save)")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ValueError(f"{meta_path} is not valid JSON ({exc}); save the model again.") from None
    _check_meta(meta, meta_path)
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"{folder} was saved in format {meta.get('format_version')}; this icml_topics ({__version__}) reads format "
            f"{FORMAT_VERSION}. Re-fit, or install the icml_topics version that saved it ({meta.get('icml_topics_version')})."
        )
    params = {k: v for k, v in meta["params"].items() if not isinstance(v, dict)}
    try:
        check_params(params)
    except ValueError as exc:
        raise ValueError(f"{meta_path}: {exc}") from None
    try:
        settings = ThemeSettings.from_dict(meta["theme_settings"]) if meta.get("theme_settings") else None
        model = cls(**params, theme_settings=settings)
        taxonomy = Taxonomy.from_dict(meta["taxonomy"])
    except TypeError as exc:
        raise ValueError(f"{meta_path}: {exc}; save the model again.") from None
    docs = pd.read_parquet(folder / "documents.parquet")
    model._flagged = docs.drop(columns=[c for c in docs.columns if c in _OUTPUT_COLUMNS])
    model.documents_ = docs.drop(columns=["text"])
    model.topics_ = pd.read_parquet(folder / "topics.parquet")
    for col in ("keywords", *tables.REPRESENTATIVE_COLUMNS):
        if col in model.topics_.columns:
            model.topics_[col] = model.topics_[col].map(list)
    arrays = {n: np.load(folder / f"{n}.npy", allow_pickle=False) for n in _ARRAYS}
    model.embeddings_, model.theme_embeddings_ = arrays["embeddings"], arrays["theme_embeddings"]
    model._labels, model._coords = arrays["labels"], arrays["coords"]
    model.topic_names_ = {int(k): v for k, v in meta["topic_names"].items()}
    model.keywords_ = {int(k): list(v) for k, v in meta["keywords"].items()}
    model.theme_names_ = list(meta["theme_names"])
    model.taxonomy_ = taxonomy
    model.taxonomy = model.taxonomy_
    model.topic_embeddings_ = tables.topic_centroids(model.embeddings_, model._labels, model.topics_["topic"].tolist())
    if "theme_rule" in meta and (folder / "theme_rule.npz").is_file() and (folder / "theme_proba.npy").is_file():
        with np.load(folder / "theme_rule.npz", allow_pickle=False) as rule_arrays:
            model.theme_rule_ = ThemeRule.from_state(meta["theme_rule"], dict(rule_arrays))
        model.theme_proba_ = np.load(folder / "theme_proba.npy", allow_pickle=False)
        model._refresh_themes()
    else:  # saved before the theme rule was stored: place the documents again (the taxonomy's texts only are embedded)
        model.set_taxonomy(model.taxonomy_)
    return model


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
        raise ValueError(f"{path} must hold a JSON object, not {type(meta).__name__}; save the model again.")
    for key, types in _META_TYPES.items():
        if not isinstance(meta.get(key), types):
            raise ValueError(
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
            raise ValueError(f"{path}: {field!r} holds keys or values of the wrong type; save the model again.")
