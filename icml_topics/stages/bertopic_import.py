"""Import BERTopic as its lightweight install does, without torch; its optional parts load on first use.

At import, BERTopic loads sentence-transformers (and with it torch and transformers: about 500 MB
resident, measured 903 against 389 MiB for the rest of a fit's libraries) only for optional backends and
representations (multimodal, text generation, zero-shot), each behind ``try/except ModuleNotFoundError``:
its "lightweight install". The representation stage uses none of them; it hands BERTopic our own
embedder. ``import_bertopic`` therefore imports BERTopic with those three packages held back when
they are not loaded yet, and turns each optional name it left unavailable into one that loads on first
use: ``bertopic.representation.TextGeneration`` asked for later in the same process is the real class.
A BERTopic that needs one of them at import is imported as usual.

Examples:
    >>> bertopic = import_bertopic()
    >>> bertopic.BERTopic.__name__
    'BERTopic'
"""

from __future__ import annotations

import importlib
import sys
import threading
from types import ModuleType

__all__ = ["HELD_BACK", "import_bertopic"]

HELD_BACK = ("torch", "transformers", "sentence_transformers")
"""Packages kept out of a fresh BERTopic import; BERTopic imports each only for optional parts."""
_WITH_OPTIONAL_PARTS = ("bertopic.backend", "bertopic.representation")
_lock = threading.Lock()


def import_bertopic() -> ModuleType:
    """The ``bertopic`` package, imported without torch where it is not loaded yet."""
    with _lock:
        if "bertopic" in sys.modules:
            return sys.modules["bertopic"]
        held = [name for name in HELD_BACK if name not in sys.modules]
        if not held:
            return importlib.import_module("bertopic")
        for name in held:
            sys.modules[name] = None  # type: ignore[assignment]  # "import name" raises ModuleNotFoundError
        try:
            module = importlib.import_module("bertopic")
        except ImportError:  # this BERTopic needs one of them at import: forget the half-import, do it as usual
            for name in [n for n in sys.modules if n == "bertopic" or n.startswith("bertopic.")]:
                del sys.modules[name]
            module = None
        finally:
            for name in held:
                if sys.modules.get(name, False) is None:
                    del sys.modules[name]
        if module is None:
            return importlib.import_module("bertopic")
        for name in _WITH_OPTIONAL_PARTS:
            if name in sys.modules:
                _load_placeholders_on_use(sys.modules[name])
        return module


def _load_placeholders_on_use(module: ModuleType) -> None:
    """Drop the module's "not installed" placeholders; the first access of one imports the module again,
    now with every package importable, and returns what that import bound."""
    from bertopic._utils import NotInstalled

    names = {name for name, value in vars(module).items() if isinstance(value, NotInstalled)}
    if not names:
        return
    for name in names:
        delattr(module, name)

    def __getattr__(attribute: str) -> object:
        if attribute not in names:
            raise AttributeError(f"module {module.__name__!r} has no attribute {attribute!r}")
        with _lock:
            if vars(module).get("__getattr__") is __getattr__:
                del module.__getattr__
                importlib.reload(module)
        return getattr(module, attribute)

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
