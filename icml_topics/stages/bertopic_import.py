"""The one place a fit imports BERTopic: a plain ``import bertopic``, nothing held back or replaced.

``import bertopic`` imports everything BERTopic may use: its plotting (plotly, DataMapPlot, and with it
datashader's edge bundling, whose numba kernels compile at import), and sentence-transformers with torch
for its optional backends: about 12 s and 880 MiB in a fresh process on a 2-core machine. So only the
representation stage (``stages.represent``, when its result is not cached) and ``TopicMap.to_bertopic()``
call this; ``import icml_topics`` and the command line never do. Every module is imported as its importer
asks: whatever imports torch or ``datashader.bundling`` later gets the real one.

Examples:
    >>> bertopic = import_bertopic()
    >>> bertopic.BERTopic.__name__
    'BERTopic'
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["import_bertopic"]


def import_bertopic() -> ModuleType:
    """The ``bertopic`` package, imported now if it is not yet (a plain import: see the module's docstring)."""
    return importlib.import_module("bertopic")
