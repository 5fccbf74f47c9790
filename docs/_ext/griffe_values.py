"""A griffe extension for the API reference (mkdocs.yml): a parameter whose default is a named constant
(``random_state=DEFAULT_RANDOM_STATE``, ``confidence=DEFAULT_CONFIDENCE``) is shown with the constant's value
(``42``, ``0.95``) in the signature and the parameter table. The code keeps the constant (one source of
truth); the site shows what a user passes by leaving the parameter out. Values are read from the imported
function's signature, so they are the ones the code uses; a default that is not a plain value (an object,
a call) is left as written."""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

import griffe

_NAME = re.compile(r"[A-Za-z_][\w.]*")
_LITERALS = {"None", "True", "False"}


def literal(value: Any) -> str | None:
    """``value`` as a Python literal a user could type (``1_000_000_000`` for a large int), or None."""
    if value is None or isinstance(value, (bool, str, float)):
        return repr(value)
    if isinstance(value, int):
        return f"{value:_}" if abs(value) >= 10_000 else repr(value)
    if isinstance(value, tuple):
        items = [literal(v) for v in value]
        if None in items:
            return None
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return None


def _runtime(func: griffe.Function) -> Any:
    """The imported object ``func`` describes (a method of a class, a function of a module), or None."""
    try:
        obj: Any = importlib.import_module(func.module.path)
    except Exception:  # noqa: BLE001 - a module that does not import keeps its defaults as written
        return None
    for part in func.path[len(func.module.path) + 1 :].split("."):
        obj = inspect.getattr_static(obj, part, None) if inspect.isclass(obj) else getattr(obj, part, None)
        obj = getattr(obj, "__func__", obj)  # a classmethod / staticmethod
        if obj is None:
            return None
    return obj


class ConstantDefaults(griffe.Extension):
    """Replace each named-constant default of a function's parameters with its value."""

    def on_function(self, *, func: griffe.Function, **kwargs: Any) -> None:
        named = [
            p
            for p in func.parameters
            if p.default is not None and _NAME.fullmatch(str(p.default)) and str(p.default) not in _LITERALS
        ]
        if not named:
            return
        obj = _runtime(func)
        try:
            signature = inspect.signature(obj) if obj is not None else None
        except (TypeError, ValueError):
            signature = None
        if signature is None:
            return
        for parameter in named:
            runtime = signature.parameters.get(parameter.name)
            text = literal(runtime.default) if runtime is not None else None
            if text is not None and runtime.default is not inspect.Parameter.empty:
                parameter.default = text
