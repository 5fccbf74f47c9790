"""The stages after embedding on the fit's Dask workers (issue 51): ``map_over(fn, items, client)`` runs
``fn(*item)`` for each item as one task on ``client``'s workers, or here, one after another, without a client.
The results come back in the items' order whatever order the tasks finish in, so a stage that maps over
independent parts (each theme's consensus tree: ``stages/hierarchy.py``) gives the same output either way.

    >>> map_over(divmod, [(7, 2), (9, 4)])
    [(3, 1), (2, 1)]
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

__all__ = ["WORKER_WAIT_S", "map_over"]

logger = logging.getLogger("icml_topics")

#: seconds ``map_over`` waits for a cluster without a worker (one restarting, or a scheduler whose workers have
#: not joined) before it runs the items here: a task on a cluster with no worker would wait for ever
WORKER_WAIT_S = 120.0


def map_over(
    fn: Callable[..., Any],
    items: Iterable[tuple],
    client: Any = None,
    *,
    priority: Sequence[int] | None = None,
    each: Callable[[int], None] | None = None,
) -> list[Any]:
    """``[fn(*item) for item in items]``: here, or given a ``distributed.Client``, one task an item on its workers.

    Args:
        fn: a function importable by name on the workers (a module's top-level function).
        items: each item's positional arguments; read one at a time here (a generator holds one item at once).
        client: a ``distributed.Client``; ``None``: in this process (also when its cluster has no worker after
            ``WORKER_WAIT_S`` seconds: a warning says so).
        priority: one number an item, higher first on the workers (e.g. its size: the largest starts first);
            ``None``: the scheduler's order.
        each: called with an item's index before it runs here (a progress line); not called on the workers.

    Returns:
        The results in the items' order.

    Examples:
        >>> map_over(pow, [(2, 3), (3, 2)], each=lambda i: print("item", i))
        item 0
        item 1
        [8, 9]
    """
    if client is not None and not _has_workers(client):
        logger.warning("the Dask cluster has no worker after %.0f s: running the tasks in this process", WORKER_WAIT_S)
        client = None
    if client is None:
        out = []
        for i, item in enumerate(items):
            if each is not None:
                each(i)
            out.append(fn(*item))
        return out
    futures = [
        client.submit(fn, *item, pure=False, priority=0 if priority is None else int(priority[i]))
        for i, item in enumerate(items)
    ]
    return client.gather(futures)


def _has_workers(client: Any) -> bool:
    """Whether ``client``'s cluster has a worker, waiting up to ``WORKER_WAIT_S`` for one to join."""
    if client.scheduler_info().get("workers"):
        return True
    try:
        client.wait_for_workers(1, timeout=WORKER_WAIT_S)
    except TimeoutError:
        return False
    return True
