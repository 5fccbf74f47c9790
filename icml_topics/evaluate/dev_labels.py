"""The packaged hand labels: ICML 2013-2024, NeurIPS 1987-2018 and the 38 bundled ICML 2026 papers,
each read and given a primary and, where it applies, a secondary research theme.

See ``icml_topics/data/theme_labels_README.md`` for how they were sampled and labelled. Only ids and
theme names are shipped; match them to the abstracts with the ``id`` column of the corpus. ``batch``
says which labelling round a paper comes from. The ``split`` column halves batches 1 and 2 (stratified
by primary theme, by a hash of the id); batch 3 was labelled to train the supervised theme head and is
all ``"tune"``. Thresholds, weights and the head are fitted on ``"tune"`` only and reported on
``"heldout"``.

Examples:
    >>> labels = load_dev_labels()
    >>> list(labels.columns)
    ['id', 'theme', 'second_theme', 'split', 'batch']
    >>> len(labels) >= 500, sorted(labels["split"].unique())
    (True, ['heldout', 'tune'])
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

from icml_topics.errors import InvalidValueError

__all__ = ["DEV_LABELS_FILE", "load_dev_labels", "load_theme_labels"]

DEV_LABELS_FILE = "theme_labels.csv"
SPLITS = ("tune", "heldout")


def load_theme_labels(split: str | None = None) -> pd.DataFrame:
    """Hand labels: ``id``, ``theme``, ``second_theme`` (NA when none), ``split`` (tune / heldout) and
    ``batch`` (labelling round: "1", "2", "3").

    Theme names are those of the built-in taxonomy ([`icml_topics.themes.Taxonomy.default`][icml_topics.Taxonomy.default]).
    ``split="tune"`` or ``"heldout"`` keeps one half.

    Args:
        split: ``"tune"`` or ``"heldout"`` keeps that half; ``None``: all labels.

    Examples:
        >>> load_theme_labels("heldout")["split"].unique().tolist()
        ['heldout']
    """
    if split is not None and split not in SPLITS:
        raise InvalidValueError(f"split must be None, 'tune' or 'heldout', got {split!r}")
    resource = resources.files("icml_topics").joinpath("data", DEV_LABELS_FILE)
    with resources.as_file(resource) as path:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    df = df.reindex(columns=["id", "theme", "second_theme", "split", "batch"], fill_value="")
    df["second_theme"] = df["second_theme"].where(df["second_theme"].str.strip() != "", pd.NA)
    if split is not None:
        df = df[df["split"] == split]
    return df.reset_index(drop=True)


load_dev_labels = load_theme_labels
"""The name [`load_theme_labels`][icml_topics.evaluate.load_theme_labels] had before the labels grew beyond ICML 2024."""
