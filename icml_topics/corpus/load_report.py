"""The load report ``read_corpus`` and every dataset loader attach to the DataFrame they return.

A reader never loses a record silently: each input record is kept, or listed in ``skipped``
(unreadable: a broken line, a row with the wrong number of fields). A kept record whose id repeats an
earlier one is renamed ``<id>#1`` and also listed in ``duplicates``. Blocks that are not papers at all
(a BibTeX ``@Proceedings`` header, ``@String`` definitions) are not records and are only listed in
``ignored``.

Examples:
    >>> from icml_topics.datasets import load_report
    >>> report = load_report(df)
    >>> report.n_read == report.n_kept + len(report.skipped)
    True
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

import pandas as pd

from icml_topics.errors import InvalidValueError

__all__ = ["Issue", "LoadReport", "load_report"]

logger = logging.getLogger("icml_topics.datasets")

_SHOWN_IN_WARNING = 5


class Issue(NamedTuple):
    """One record that was not kept: where it is in the input, and why.

    Attributes:
        location: where the record is in the input (e.g. ``"line 12"``).
        reason: why it was left out (or renamed).

    Examples:
        >>> Issue("line 12", "no abstract").reason
        'no abstract'
    """

    location: str
    reason: str

    def __str__(self) -> str:
        return f"{self.location}: {self.reason}"


@dataclass
class LoadReport:
    """What a loader read, kept, and left out (and why).

    Attributes:
        source: the file, URL or description the records came from.
        n_read: paper records found in the input (kept + skipped).
        n_kept: rows in the returned DataFrame.
        skipped: broken records that could not be read (not in the DataFrame).
        duplicates: kept records whose id repeats an earlier one, renamed ``<id>#1``, ``<id>#2``...
        ignored: non-paper blocks (volume headers, string macros); informational only.
        n_missing_abstract: kept rows whose abstract is empty (kept: the model reports them).
        renamed_columns: input columns renamed because the model writes a column of that name
            (``{"status": "decision"}``: OpenReview's oral / poster / rejected status is read as ``decision``).
        quoting: records of a CSV / TSV whose quotes needed a decision: an unmatched quote read as text
            (so that it swallows no line), or a record spanning lines that look like records of their own.

    Examples:
        >>> read_corpus("papers.csv").attrs["load_report"].n_kept
    """

    source: str
    n_read: int = 0
    n_kept: int = 0
    skipped: list[Issue] = field(default_factory=list)
    duplicates: list[Issue] = field(default_factory=list)
    ignored: list[Issue] = field(default_factory=list)
    n_missing_abstract: int = 0
    renamed_columns: dict[str, str] = field(default_factory=dict)
    quoting: list[Issue] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing was skipped and no id was renamed."""
        return not self.skipped and not self.duplicates and not self.quoting

    def summary(self) -> str:
        """One line: ``'<source>: 10 read, 9 kept, 1 skipped, 1 repeated id renamed, 2 without abstract'``."""
        parts = [f"{self.n_read} read", f"{self.n_kept} kept"]
        if self.skipped:
            parts.append(f"{len(self.skipped)} skipped")
        if self.duplicates:
            n = len(self.duplicates)
            parts.append(f"{n} repeated id{'s' if n != 1 else ''} renamed")
        if self.n_missing_abstract:
            parts.append(f"{self.n_missing_abstract} without abstract")
        parts.extend(f"column {old!r} read as {new!r}" for old, new in self.renamed_columns.items())
        if self.quoting:
            parts.append(f"{len(self.quoting)} with a quoting problem")
        return f"{self.source}: " + ", ".join(parts)

    def __str__(self) -> str:
        lines = [self.summary()]
        for title, issues in (
            ("skipped", self.skipped),
            ("repeated ids, renamed", self.duplicates),
            ("quoting", self.quoting),
        ):
            if issues:
                lines.append(f"  {title}:")
                lines.extend(f"    {issue}" for issue in issues)
        return "\n".join(lines)

    @classmethod
    def merge(cls, reports: Iterable[LoadReport], source: str) -> LoadReport:
        """Combine the reports of several loads (e.g. one per year) into one.

        Args:
            reports: the reports to combine.
            source: the combined report's ``source``.
        """
        merged = cls(source=source)
        for report in reports:
            merged.n_read += report.n_read
            merged.n_kept += report.n_kept
            merged.n_missing_abstract += report.n_missing_abstract
            merged.renamed_columns.update(report.renamed_columns)
            for attr in ("skipped", "duplicates", "ignored", "quoting"):
                getattr(merged, attr).extend(
                    Issue(f"{report.source}: {issue.location}", issue.reason) for issue in getattr(report, attr)
                )
        return merged

    def log(self) -> None:
        """Log a warning naming the first few skipped / renamed records (nothing when clean)."""
        if self.ok:
            log = logger.info if self.renamed_columns else logger.debug
            log("%s", self.summary())
            return
        shown = (self.skipped + self.quoting + self.duplicates)[:_SHOWN_IN_WARNING]
        more = len(self.skipped) + len(self.quoting) + len(self.duplicates) - len(shown)
        detail = "; ".join(str(issue) for issue in shown) + (f"; and {more} more" if more else "")
        kinds = [
            name
            for name, issues in (("skipped", self.skipped), ("quoting", self.quoting), ("renamed", self.duplicates))
            if issues
        ]
        logger.warning(
            "%s. %s: %s. The full list is in df.attrs['load_report'].",
            self.summary(),
            " / ".join(kinds).capitalize(),
            detail,
        )


def load_report(df: pd.DataFrame) -> LoadReport:
    """Return the [`LoadReport`][icml_topics.datasets.LoadReport] a dataset loader attached to ``df``.

    Args:
        df: a table a loader returned (``df.attrs["load_report"]``).

    Examples:
        >>> df = parse_pmlr_bibtex("tests/fixtures/datasets/pmlr-v235-sample.bib")
        >>> print(load_report(df))
    """
    report = df.attrs.get("load_report")
    if not isinstance(report, LoadReport):
        raise InvalidValueError(
            "This DataFrame carries no load report (df.attrs['load_report']); it was not returned by an "
            "icml_topics.datasets loader, or an operation (concat, merge) dropped its attrs. "
            "Take the report from the loader's result before transforming it."
        )
    return report
