"""Placeholders for slow third-party modules a fit never uses: each loads the real module on first use.

Importing BERTopic imports DataMapPlot, which imports ``datashader.bundling`` for edge bundling; that module
compiles its numba kernels at import, uncached, in every process (7.4 s of a 16 s BERTopic import on a
2-core AVX2 EPYC). ``jsonschema`` (imported by plotly through nbformat) builds ``rfc3987_syntax``'s grammar
at import (2.1 s).

``install`` puts a placeholder in ``sys.modules`` for each of these modules that is installed and not
imported yet. The names its importers bind (``from datashader.bundling import hammer_bundle``) are
functions that import the real module when called; any other attribute asked of the placeholder imports
the real module and returns its attribute. Nothing changes for code that uses them, except that the
cost comes when they are used, not when DataMapPlot or plotly are imported.
``ICML_TOPICS_DEFERRED_IMPORTS=0`` turns it off (every module is imported as its importer asks).

    >>> from icml_topics import _deferred_imports
    >>> _deferred_imports.install()  # icml_topics' own import does this
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

__all__ = ["DEFERRED", "Placeholder", "install", "is_installed", "is_placeholder"]

DEFERRED: dict[str, tuple[str, ...]] = {
    # module: the names other modules import from it at their own import
    "datashader.bundling": ("hammer_bundle",),
    "rfc3987_syntax": ("is_valid_syntax",),
}
_ENV = "ICML_TOPICS_DEFERRED_IMPORTS"
_lock = threading.RLock()


class Placeholder(ModuleType):
    """Stands in ``sys.modules`` for module ``name`` until something uses it; then the real module is imported."""

    def __getattr__(self, attribute: str) -> object:  # only for attributes the placeholder lacks
        if attribute.startswith("__"):  # introspection (__file__, __path__, __wrapped__) must not import it
            raise AttributeError(attribute)
        return getattr(_real(self.__name__), attribute)


def is_placeholder(name: str) -> bool:
    """Whether ``sys.modules[name]`` is still a placeholder (the real module was not needed yet)."""
    return isinstance(sys.modules.get(name), Placeholder)


def install() -> list[str]:
    """Put a placeholder for each module of ``DEFERRED`` that is installed and not imported yet;
    return their names. Safe to call again: a module already there (real or placeholder) is left alone."""
    if os.environ.get(_ENV, "").strip().lower() in ("0", "false", "no", "off"):
        return []
    placed = []
    with _lock:
        for name, names in DEFERRED.items():
            if name in sys.modules or not is_installed(name):
                continue
            module = Placeholder(name, f"placeholder for {name}: the real module is imported on first use")
            for attribute in names:
                setattr(module, attribute, _forwarder(name, attribute))
            sys.modules[name] = module
            placed.append(name)
    return placed


def _forwarder(name: str, attribute: str) -> Callable:
    def forward(*args: object, **kwargs: object) -> object:
        return getattr(_real(name), attribute)(*args, **kwargs)

    forward.__name__ = forward.__qualname__ = attribute
    forward.__module__ = name
    forward.__doc__ = f"{name}.{attribute}, imported on its first call"
    return forward


def _real(name: str) -> ModuleType:
    """The real module ``name``, imported now if only its placeholder is there."""
    with _lock:
        module = sys.modules.get(name)
        if not isinstance(module, Placeholder):
            return importlib.import_module(name)
        del sys.modules[name]
        try:
            return importlib.import_module(name)
        except BaseException:
            sys.modules.setdefault(name, module)  # as before: a later use tries again
            raise


@functools.cache
def is_installed(name: str) -> bool:
    """Whether module ``name`` can be imported, found without importing it or its package (a placeholder
    for a module that is not installed would make ``import name`` succeed where it must fail)."""
    top, _, rest = name.partition(".")
    try:
        spec = importlib.util.find_spec(top)  # a top-level name: its package is not imported
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    if not rest:
        return True
    if not spec.submodule_search_locations:
        return False
    relative = Path(*rest.split("."))
    return any(
        (Path(folder) / relative).with_suffix(".py").is_file() or (Path(folder) / relative / "__init__.py").is_file()
        for folder in spec.submodule_search_locations
    )
