"""The packaged development set: 150 ICML 2024 abstracts labelled by hand with one research theme.

See ``icml_topics/data/dev_labels_README.md`` for how it was sampled and labelled. Only ids and
theme names are shipped; match them to the abstracts with the ``id`` column of the corpus.

Example:
    >>> labels = load_dev_labels()
    >>> list(labels.columns)
    ['id', 'theme', 'second_theme']
    >>> len(labels)
    150
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

__all__ = ["DEV_LABELS_FILE", "load_dev_labels"]

DEV_LABELS_FILE = "dev_labels_icml2024.csv"


def load_dev_labels() -> pd.DataFrame:
    """Hand labels for ICML 2024 abstracts: ``id``, ``theme`` and ``second_theme`` (NA when none).

    Theme names are those of the built-in taxonomy (:meth:`icml_topics.themes.Taxonomy.default`).

    Example:
        >>> load_dev_labels()["theme"].value_counts().index[0]
        'Reinforcement learning'
    """
    resource = resources.files("icml_topics").joinpath("data", DEV_LABELS_FILE)
    with resources.as_file(resource) as path:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    df = df.reindex(columns=["id", "theme", "second_theme"], fill_value="")
    df["second_theme"] = df["second_theme"].where(df["second_theme"].str.strip() != "", pd.NA)
    return df.reset_index(drop=True)
