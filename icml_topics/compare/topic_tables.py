"""The topic-level tables of a comparison (``TopicTables``), built from a fit's tables in one call.

``compare`` (``icml_topics.workflows``) writes them as CSV files (``topic_status.csv``, ``topic_wording.csv``,
``novelty.csv``, ``acceptance_by_theme.csv``, ``acceptance_by_topic.csv``, ``theme_areas.csv``) and the
comparison report shows them (``report/topic_sections.py``); both read this one record, built here from a
[`FittedTables`][icml_topics.fitted_tables.FittedTables] (``TopicMap.tables_``), never from the estimator.

Examples:
    >>> tables, trends = topic_tables(tm.tables_, tm.state_.texts, by="year")
    >>> tables.status.query("status == 'emerging'")
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import pandas as pd

from icml_topics._progress import STAGE
from icml_topics.fitted_tables import FittedTables

from . import decisions
from .novelty import novelty_table
from .topic_trends import status_and_trends
from .wording import topic_wording

__all__ = ["TopicTables", "topic_tables"]

logger = logging.getLogger("icml_topics")


@dataclass
class TopicTables:
    """The topic-level tables of a comparison: each a table of ``icml_topics.compare`` (``None`` when not
    computed).

    Attributes:
        status: ``topic_status``: one row per node of every level, its status in the latest period.
        tree: ``topic_tree_``: the nodes, for the report's tree.
        wording: ``topic_wording``: keyphrases and papers per node and period.
        novelty: ``novelty_table``: each paper's distance from the earlier periods (``by`` ordered in time only).
        acceptance: ``acceptance_shares`` per theme (with a decision column of more than one outcome).
        node_acceptance: ``node_acceptance``: per node of every level.
        areas: ``area_table``: theme x author area (with an ``area`` column).

    Examples:
        >>> tables = TopicTables(status=tm.topic_status(), tree=tm.topic_tree_)
        >>> tables.status["status"].value_counts()
    """

    status: pd.DataFrame
    tree: pd.DataFrame | None = None
    wording: pd.DataFrame | None = None
    novelty: pd.DataFrame | None = None
    acceptance: pd.DataFrame | None = None
    node_acceptance: pd.DataFrame | None = None
    areas: pd.DataFrame | None = None


def topic_tables(
    tables: FittedTables, texts: Sequence[str], by: str, latest: Hashable | None = None
) -> tuple[TopicTables, pd.DataFrame]:
    """Every node's status in ``latest`` (default: the last period) and its shares per period (``topic_trends``,
    returned beside the record), the per-period wording, the papers' novelty (``by`` ordered in time only),
    acceptance shares (with a decision column holding more than one outcome: not for a file of accepted papers
    only, said in one log line) and the theme x area table (with an ``area`` column).

    Args:
        tables: the fit's tables (``TopicMap.tables_``).
        texts: the modelled texts, in the order of ``tables.modelled`` (``TopicMap.state_.texts``).
        by: the ``documents`` column that defines the periods.
        latest: the period compared with the earlier ones; ``None``: the last.

    Examples:
        >>> tables, trends = topic_tables(tm.tables_, tm.state_.texts, by="year", latest=2024)
        >>> tables.novelty.nlargest(5, "novelty_percentile")
    """
    docs, tree = tables.documents, tables.topic_tree
    logger.info("topic trends at every level of the topic tree", extra={STAGE: True})
    status, trends = status_and_trends(docs, tree, by=by, latest=latest)  # every node counted and tested once
    ordered = pd.api.types.is_numeric_dtype(docs[by])
    has_decision = decisions.decision_column(docs) is not None
    if has_decision and (reason := decisions.single_outcome_reason(docs)) is not None:
        logger.info("%s No acceptance_*.csv is written.", reason, extra={STAGE: True})  # ICML: accepted only
        has_decision = False
    record = TopicTables(
        status=status,
        tree=tree,
        wording=topic_wording(docs, texts, tables.embeddings, by=by, tree=tree),
        novelty=novelty_table(docs, tables.embeddings, by=by) if ordered else None,
        acceptance=decisions.acceptance_shares(docs, group="theme") if has_decision else None,
        node_acceptance=decisions.node_acceptance(docs, tree) if has_decision else None,
        areas=decisions.area_table(docs) if "area" in docs.columns else None,
    )
    return record, trends
