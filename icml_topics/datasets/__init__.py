"""Proceedings loaders: PMLR BibTeX, OpenReview notes and paper lists -> the corpus table.

Every loader returns the corpus table of ``docs/architecture.md`` (``id, venue, year, title,
abstract, authors`` + ``title_clean``, ``abstract_clean`` + the source's extra fields) with a
[`LoadReport`][icml_topics.datasets.LoadReport] in ``df.attrs["load_report"]`` listing what was skipped and why. Downloads
are cached (``cache_dir``, ``$ICML_TOPICS_DATA_DIR``, or the user cache folder) and
``offline=True`` never touches the network.

Examples:
    >>> from icml_topics.datasets import fetch_icml, load_pmlr
    >>> df = load_pmlr(2024)                               # ICML 2024 (PMLR v235)
    >>> df = fetch_icml(range(2019, 2026), out="data/")    # seven years, one call
"""

from icml_topics.corpus.load_report import Issue, LoadReport, load_report
from icml_topics.datasets.cache import (
    CACHE_ENV_VAR,
    OFFLINE_ENV_VAR,
    DatasetUnavailableError,
    get_cache_dir,
)
from icml_topics.datasets.openreview import load_openreview
from icml_topics.datasets.paper_list import load_paper_list, write_paper_list
from icml_topics.datasets.pmlr import (
    ICML_PMLR_VOLUMES,
    load_pmlr,
    parse_pmlr_bibtex,
    pmlr_bibtex_url,
    pmlr_cache_path,
)
from icml_topics.datasets.sources import fetch_icml, is_source_spec, load_source

__all__ = [
    "CACHE_ENV_VAR",
    "ICML_PMLR_VOLUMES",
    "OFFLINE_ENV_VAR",
    "DatasetUnavailableError",
    "Issue",
    "LoadReport",
    "fetch_icml",
    "get_cache_dir",
    "is_source_spec",
    "load_openreview",
    "load_paper_list",
    "load_pmlr",
    "load_report",
    "load_source",
    "parse_pmlr_bibtex",
    "pmlr_bibtex_url",
    "pmlr_cache_path",
    "write_paper_list",
]
