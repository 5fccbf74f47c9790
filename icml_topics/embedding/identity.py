"""A model's stable identity: its name and a hash of its weights and configuration, remembered per folder.

The identity keys the embedding cache: two models with the same weights and settings share vectors, a
changed weight or tokenizer setting never reads another model's vectors. Hashing the weights takes a
second, so a folder's identity is remembered (``model_identities.json``) and re-used while its files are
unchanged (``cached_model_identity``).

Examples:
    >>> from icml_topics.embedding import load_model, model_identity
    >>> model_identity(load_model())
    'all-MiniLM-L6-v2@3f1c...'
"""

from __future__ import annotations

import hashlib
import json
import os
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from icml_topics._io import atomic_write_text

from .cache import machine_dir
from .models import (
    ModelNotAvailableError,
    ModelSpec,
    embedding_dimension,
    is_sentence_transformer,
    load_model,
    model_display_name,
    resolve_spec,
)

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = ["cached_model_identity", "known_identity", "model_identity", "remember_identity"]


_IDENTITIES: weakref.WeakKeyDictionary[Any, tuple[tuple[int, ...], str]] = weakref.WeakKeyDictionary()


def _param_versions(model: SentenceTransformer) -> tuple[int, ...]:
    # `_version` counts in-place writes, so a model fine-tuned in place gets a new identity.
    return tuple(int(getattr(p, "_version", 0)) for p in model.parameters())


def _module_configs(model: SentenceTransformer) -> list[Any]:
    configs: list[Any] = []
    for module in model:
        entry: dict[str, Any] = {"class": f"{type(module).__module__}.{type(module).__qualname__}"}
        get_config = getattr(module, "get_config_dict", None)
        if callable(get_config):
            try:
                entry["config"] = get_config()
            except Exception:
                pass
        hf = getattr(module, "auto_model", None)
        if hf is not None and getattr(hf, "config", None) is not None:
            cfg = hf.config.to_dict()
            for volatile in ("_name_or_path", "transformers_version", "torch_dtype", "dtype", "_attn_implementation"):
                cfg.pop(volatile, None)
            entry["hf_config"] = cfg
        configs.append(entry)
    return configs


def model_identity(model: ModelSpec = None) -> str:
    """Stable identity ``"<name>@<hash>"`` of a model's behaviour, used as the embedding-cache key.

    The hash covers the module configuration, the tokenizer, ``max_seq_length`` and every weight
    tensor, so the same model loaded twice (from any folder) has the same identity, and a
    fine-tuned or different model never shares cached vectors. It never depends on ``id(obj)``.

    Args:
        model: ``None`` (the packaged all-MiniLM-L6-v2), a hub name, a local folder or a ``SentenceTransformer``.

    Examples:
        >>> model_identity().startswith("all-MiniLM-L6-v2@")
        True
    """
    st = load_model(model) if not is_sentence_transformer(model) else model
    versions = _param_versions(st)
    memo = _IDENTITIES.get(st)
    if memo is not None and memo[0] == versions:
        return memo[1]

    digest = hashlib.sha256()
    meta = {
        "modules": _module_configs(st),
        "max_seq_length": getattr(st, "max_seq_length", None),
        "dimension": embedding_dimension(st),
    }
    digest.update(json.dumps(meta, sort_keys=True, default=str).encode("utf-8"))
    tokenizer = getattr(st, "tokenizer", None)
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None:
        # the fast tokenizer records the truncation and padding of its last call: not what the model is
        # (max_seq_length is hashed above), so they are left out, or a used model would change its identity
        spec = {k: v for k, v in json.loads(backend.to_str()).items() if k not in ("truncation", "padding")}
        digest.update(json.dumps(spec, sort_keys=True).encode("utf-8"))
    elif tokenizer is not None:
        digest.update(json.dumps(tokenizer.get_vocab(), sort_keys=True).encode("utf-8"))
    for name, tensor in st.state_dict().items():
        digest.update(name.encode("utf-8"))
        digest.update(str(tensor.dtype).encode("ascii"))
        digest.update(tensor.detach().to("cpu").contiguous().view(-1).view(_byte_dtype()).numpy().tobytes())
    identity = f"{model_display_name(st)}@{digest.hexdigest()[:20]}"
    _IDENTITIES[st] = (versions, identity)
    return identity


_IDENTITY_FILE = "model_identities.json"
#: how ``model_identity`` hashes a model; a record made by another recipe is not reused
_IDENTITY_RECIPE = "2"  # 2: the tokenizer's last-call truncation and padding are not hashed


def _folder_signature(model: ModelSpec) -> str | None:
    """Signature of a local model folder (every file's path, size and mtime), None for other models."""
    if model is not None and not isinstance(model, (str, os.PathLike)):
        return None
    try:
        name_or_path, is_local = resolve_spec(model)
    except ModelNotAvailableError:
        return None
    if not is_local:
        return None
    digest = hashlib.sha256(f"{_IDENTITY_RECIPE}:{name_or_path}".encode())
    for path in sorted(Path(name_or_path).rglob("*")):
        if path.is_file():
            stat = path.stat()
            digest.update(f"{path.relative_to(name_or_path)}:{stat.st_size}:{stat.st_mtime_ns}".encode("utf-8"))
    return digest.hexdigest()


def known_identity(model: ModelSpec, folder: Path | None) -> tuple[str, int] | None:
    """``(identity, dimension)`` recorded for this local model folder, if its files are unchanged: next to the
    cache in ``folder``, else in the machine folder (a new cache on this machine then needs no torch)."""
    signature = _folder_signature(model)
    if signature is None:
        return None
    for place in _identity_places(folder):
        try:
            record = json.loads((place / _IDENTITY_FILE).read_text(encoding="utf-8")).get(signature)
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(record, dict) and isinstance(record.get("identity"), str) and isinstance(record.get("dim"), int):
            return record["identity"], record["dim"]
    return None


def remember_identity(model: ModelSpec, identity: str, dim: int, folder: Path | None) -> None:
    """Record a local model folder's identity next to the cache in ``folder`` (none when None) and in the
    machine folder (best effort, atomic)."""
    signature = _folder_signature(model)
    if signature is None:
        return

    for place in _identity_places(folder):
        path = place / _IDENTITY_FILE
        try:
            records = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
            if not isinstance(records, dict):
                records = {}
            if records.get(signature) == {"identity": identity, "dim": int(dim)}:
                continue
            records[signature] = {"identity": identity, "dim": int(dim)}
            place.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, json.dumps(records, indent=1))
        except (OSError, ValueError):
            pass


def _identity_places(folder: Path | None) -> list[Path]:
    """Where model identities are recorded: next to the cache (when there is one), then the machine folder."""

    places = [Path(folder)] if folder is not None else []
    machine = machine_dir()
    return places if machine in places else [*places, machine]


def cached_model_identity(model: ModelSpec, folder: Path | None) -> str:
    """[`model_identity`][icml_topics.embedding.model_identity], read from the record next to the cache when the model folder is unchanged.

    Args:
        model: ``None`` (the packaged all-MiniLM-L6-v2), a hub name, a local folder or a ``SentenceTransformer``.
        folder: the cache folder whose identity record is read and written; ``None``: none (computed each time).

    Examples:
        >>> cached_model_identity(None, default_cache_dir())
    """
    known = known_identity(model, folder)
    if known is not None:
        return known[0]
    st = load_model(model) if not is_sentence_transformer(model) else model
    identity = model_identity(st)
    remember_identity(model, identity, embedding_dimension(st), folder)
    return identity


def _byte_dtype() -> Any:
    import torch

    return torch.uint8
