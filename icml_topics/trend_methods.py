"""``TopicMap``'s methods for what changed between periods, below the themes (a mixin of the facade).

They read the fit's tables (``tables_``: [`FittedTables`][icml_topics.fitted_tables.FittedTables]) and hand them to
the pure functions of ``icml_topics.compare``; see
``icml_topics.compare.topic_trends`` for the statistics.

    >>> tm = TopicMap(random_state=0).fit("../shared/data/icml-2013-2024.jsonl.gz")
    >>> tm.whats_new(2024).head()
    >>> tm.topic_trends(by="year").query("level == 1 and topic == 4")
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

import pandas as pd

from icml_topics.compare import decisions, novelty, wording
from icml_topics.compare.name_checks import name_checks
from icml_topics.compare.periods import check_count
from icml_topics.compare.topic_trends import topic_status, topic_trends, whats_new
from icml_topics.errors import check_fitted

__all__ = ["TrendMethods"]


class TrendMethods:
    """Topic-level trends, what is new, name checks, wording per year, novelty and acceptance of a fitted
    ``TopicMap``."""

    def _trend_inputs(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        check_fitted(self)  # the library's NotFittedError (also scikit-learn's): except IcmlTopicsError catches it
        return self.tables_.documents, self.tables_.topic_tree

    def topic_status(self, by: str = "year", latest: Hashable | None = None, **kwargs: Any) -> pd.DataFrame:
        """One row per node of every tree level: change from the earlier periods to ``latest`` (default the
        last) with intervals, growth per year, FDR-controlled ``status``
        ([`topic_status`][icml_topics.compare.topic_status]).

        Args:
            by: the ``documents_`` column that defines the periods (``"year"``; any ordered column).
            latest: the period compared with the earlier ones; ``None``: the last.
            **kwargs: passed on to [`topic_status`][icml_topics.compare.topic_status] (``confidence``, ``fdr``,
                ``new_max``, ``baseline``: ``"pooled"`` or ``"previous"``).

        Examples:
            >>> tm.topic_status(by="year").query("status == 'emerging'")
        """
        documents, tree = self._trend_inputs()
        return topic_status(documents, tree, by=by, latest=latest, **kwargs)

    def topic_trends(self, by: str = "year", latest: Hashable | None = None, **kwargs: Any) -> pd.DataFrame:
        """One row per node and period: ``level, topic, label, period, n, total, share, lower, upper`` and the
        node's ``status`` in ``latest`` ([`topic_trends`][icml_topics.compare.topic_trends.topic_trends]).

        Args:
            by: the ``documents_`` column that defines the periods (``"year"``; any ordered column).
            latest: the period whose ``status`` is joined on; ``None``: the last.
            **kwargs: passed on to [`topic_trends`][icml_topics.compare.topic_trends.topic_trends] (``confidence``,
                ``fdr``, ``new_max``, ``baseline``: ``"pooled"`` or ``"previous"``).

        Examples:
            >>> tm.topic_trends(by="year").query("level == 0 and topic == 3")
        """
        documents, tree = self._trend_inputs()
        return topic_trends(documents, tree, by=by, latest=latest, **kwargs)

    def whats_new(
        self,
        period: Hashable | None = None,
        *,
        by: str = "year",
        statuses: Iterable[str] = ("new", "emerging"),
        top: int | None = None,
        **kwargs: Any,
    ) -> pd.DataFrame:
        """The nodes that are ``new`` or ``emerging`` in ``period`` (default: the last), strongest evidence
        first, with their intervals; only ``period`` and earlier ones are read. ``statuses=("declining",
        "vanished")`` lists what faded instead. Each row has both shares with intervals, its ``stability`` and
        up to three ``latest_titles``; a node whose name fails the checks of names is held back (its
        ``attrs["held_back"]``; ``compare.headlines.held_back_lines`` says it).

        Args:
            period: the period to report; ``None``: the last.
            by: the ``documents_`` column that defines the periods (``"year"``; any ordered column).
            statuses: the statuses to list.
            top: at most this many nodes; ``None``: all.
            **kwargs: passed on to [`topic_status`][icml_topics.compare.topic_status] (``confidence``, ``fdr``,
                ``new_max``, ``baseline``: ``"pooled"`` or ``"previous"``).

        Examples:
            >>> tm.whats_new(2024, top=10)[["level", "label", "n_latest", "change", "status"]]
        """
        check_count(top, "top", optional=True, hint=" (the number of rows kept)")  # before any work
        status = self.topic_status(by=by, latest=period, **kwargs)
        return whats_new(status, statuses=statuses, top=top)

    def name_checks(self) -> pd.DataFrame:
        """Every node's name judged with its own papers: ``topic_tree_`` with ``name_defects``, the checks of
        names it fails ("; "-joined; "" = it passes), given the node's papers, its parent's name and its
        siblings' names and papers ([`name_checks`][icml_topics.compare.name_checks]; the checks:
        ``icml_topics.evaluate.names``), and ``name_caveat``: "too few papers to judge" for a node of fewer than
        10 papers (its titles' shares not asked; its name judged by its papers' texts). A headline's name is also
        checked against its latest papers (``whats_new``).

        Examples:
            >>> checks = tm.name_checks()
            >>> checks[checks["name_defects"] != ""][["level", "topic", "label", "size", "name_defects"]]
        """
        documents, tree = self._trend_inputs()
        return name_checks(tree, documents)

    def topic_wording(self, by: str = "year", **kwargs: Any) -> pd.DataFrame:
        """Keyphrases and representative papers per node and period (with the node's ``label`` and ``theme``),
        each period from its own papers only ([`topic_wording`][icml_topics.compare.topic_wording]).

        Args:
            by: the ``documents_`` column that defines the periods (``"year"``; any ordered column).
            **kwargs: passed on to [`topic_wording`][icml_topics.compare.topic_wording] (``n_words``,
                ``n_papers``, ``min_papers``).

        Examples:
            >>> tm.topic_wording().query("level == 1 and topic == 2")[["period", "keywords"]]
        """
        documents, tree = self._trend_inputs()
        return wording.topic_wording(documents, self.state_.texts, self.tables_.embeddings, by=by, tree=tree, **kwargs)

    def paper_novelty(self, by: str = "year", k: int = 10) -> pd.DataFrame:
        """Per modelled paper (indexed by id): how far it lies from the papers of earlier periods
        (``novelty``, ``novelty_percentile`` within its period, the nearest earlier paper's id and title,
        and the ``baseline``: the earlier periods it is measured against, e.g. ``"2013–2023 pooled"``;
        [`paper_novelty`][icml_topics.compare.paper_novelty]).

        Args:
            by: the ``documents_`` column that defines the periods (``"year"``; any ordered column).
            k: novelty is 1 - the mean cosine similarity to this many nearest papers of earlier periods.

        Examples:
            >>> tm.paper_novelty().query("year == 2024").nlargest(10, "novelty_percentile")
        """
        documents, _ = self._trend_inputs()
        return novelty.novelty_table(documents, self.tables_.embeddings, by=by, k=k)

    def acceptance(self, group: str = "theme", **kwargs: Any) -> pd.DataFrame:
        """Share of submissions accepted (oral / spotlight / poster, read with the documented vocabulary of
        ``icml_topics.compare.decision_labels``) per theme (``group="theme"``) or per node of every level
        (``group="topic"``), with Wilson intervals, among the papers with a known decision (unknown labels
        are counted in ``unknown``, never as rejections). Needs a ``decision`` column holding more than one
        outcome: a file of accepted papers only (ICML) raises ``InvalidValueError`` saying so
        (``icml_topics.compare.decisions``).

        Args:
            group: ``"theme"``, ``"topic"`` (every node of every tree level) or another ``documents_`` column.
            **kwargs: passed on to [`acceptance_shares`][icml_topics.compare.acceptance_shares] or, for
                ``group="topic"``, [`node_acceptance`][icml_topics.compare.node_acceptance] (``decision``,
                ``confidence``).

        Examples:
            >>> tm.acceptance("theme").sort_values("share")
        """
        documents, tree = self._trend_inputs()
        if group == "topic":
            return decisions.node_acceptance(documents, tree, **kwargs)
        return decisions.acceptance_shares(documents, group=group, **kwargs)
