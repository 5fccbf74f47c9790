"""Download cache for public proceedings files, and the one function that touches the network.

Files are cached under, in order of precedence: the ``cache_dir`` argument, the
``ICML_TOPICS_DATA_DIR`` environment variable, or ``<user cache dir>/icml_topics/datasets``.
Downloads are written atomically, so an interrupted download never leaves a truncated file that a
later offline run would trust. Set ``ICML_TOPICS_OFFLINE=1`` (or pass ``offline=True``) to forbid
network access; a missing file then raises [`DatasetUnavailableError`][icml_topics.datasets.DatasetUnavailableError], whose message names
the URL to download and the exact path to save it at.

Examples:
    >>> from icml_topics.datasets import get_cache_dir
    >>> get_cache_dir("~/icml-data")
    PosixPath('/home/me/icml-data')
"""

from __future__ import annotations

import logging
import os
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from icml_topics._io import atomic_write_bytes
from icml_topics.errors import IcmlTopicsError

__all__ = [
    "CACHE_ENV_VAR",
    "OFFLINE_ENV_VAR",
    "DatasetUnavailableError",
    "cached_download",
    "get_cache_dir",
    "http_get",
    "is_offline",
]

logger = logging.getLogger("icml_topics.datasets")

CACHE_ENV_VAR = "ICML_TOPICS_DATA_DIR"
OFFLINE_ENV_VAR = "ICML_TOPICS_OFFLINE"
DEFAULT_TIMEOUT_S = 60.0


class DatasetUnavailableError(IcmlTopicsError, RuntimeError):
    """A dataset file is neither cached nor downloadable (offline, or the download failed).

    Args:
        message: what is missing and how to get it (the download command, or where to put the file).
        url: where the file can be downloaded from.
        path: where to save it so that offline loads find it.

    Attributes:
        url: where the file can be downloaded from.
        path: where to save it so that offline loads find it.

    Examples:
        >>> load_pmlr(235)  # offline and not cached
        Traceback (most recent call last):
        DatasetUnavailableError: ...
    """

    def __init__(self, message: str, *, url: str | None = None, path: Path | None = None) -> None:
        super().__init__(message)
        self.url = url
        self.path = path


def get_cache_dir(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The dataset cache folder: ``cache_dir``, else ``$ICML_TOPICS_DATA_DIR``, else the user cache.

    The folder is not created here; downloads create it when they write.

    Args:
        cache_dir: the folder to use; ``None``: as above.

    Examples:
        >>> get_cache_dir("data-cache").name
        'data-cache'
    """
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    env = os.environ.get(CACHE_ENV_VAR, "").strip()
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("icml_topics")) / "datasets"


def is_offline(offline: bool = False) -> bool:
    """True when ``offline`` is set or ``$ICML_TOPICS_OFFLINE`` is ``1``/``true``/``yes``."""
    env = os.environ.get(OFFLINE_ENV_VAR, "").strip().lower()
    return bool(offline) or env in {"1", "true", "yes", "on"}


def _user_agent() -> str:
    try:
        from importlib.metadata import version

        ours = version("icml-topics")
    except Exception:  # not installed (running from a checkout)
        ours = "dev"
    return f"icml-topics/{ours} (Python urllib; topic modelling of conference abstracts)"


def http_get(url: str, *, timeout: float = DEFAULT_TIMEOUT_S) -> bytes:
    """GET ``url`` and return the body. The only function in the package that opens a connection.

    Raises:
        OSError: on any network or HTTP error (``urllib.error.URLError`` is a subclass).
    """
    request = urllib.request.Request(url, headers={"User-Agent": _user_agent()})
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (https URLs only)
        return response.read()


def cached_download(
    url: str,
    path: Path,
    *,
    what: str,
    offline: bool = False,
    validate: Callable[[bytes], None] | None = None,
) -> Path:
    """Return ``path``, downloading ``url`` into it first when it is not there yet.

    Args:
        url: the public URL of the file.
        path: where the file is (or will be) cached.
        what: a human description used in error messages, e.g. ``"PMLR volume 235 (ICML 2024)"``.
        offline: never touch the network (``$ICML_TOPICS_OFFLINE`` has the same effect).
        validate: called on the downloaded bytes before they are cached; raise ``ValueError`` to
            reject a response that is not the expected file (an HTML error page, say).

    Raises:
        DatasetUnavailableError: offline with nothing cached, or the download failed or was rejected.
    """
    if path.is_file():
        logger.debug("Using cached %s at %s", what, path)
        return path
    how_to = (
        f"Download {url}\nand save it as {path}\n"
        f"(or pass cache_dir=... / set {CACHE_ENV_VAR} to a folder holding {path.parent.name}/{path.name})."
    )
    if is_offline(offline):
        raise DatasetUnavailableError(
            f"{what} is not in the dataset cache and network access is off (offline=True or "
            f"{OFFLINE_ENV_VAR} set). {how_to}",
            url=url,
            path=path,
        )
    logger.info("Downloading %s from %s", what, url)
    try:
        # Looked up at call time so that tests can replace ``cache.http_get``.
        data = http_get(url)
    except OSError as exc:
        raise DatasetUnavailableError(
            f"Could not download {what} ({exc}). Check the connection and retry, or work offline: {how_to}",
            url=url,
            path=path,
        ) from exc
    if validate is not None:
        try:
            validate(data)
        except ValueError as exc:
            raise DatasetUnavailableError(
                f"The server's response for {what} is not the expected file ({exc}); nothing was cached. "
                f"Retry later, or {how_to[0].lower()}{how_to[1:]}",
                url=url,
                path=path,
            ) from exc
    atomic_write_bytes(path, data)
    logger.info("Cached %s (%d bytes) at %s", what, len(data), path)
    return path
