"""``TopicMap``'s methods for what changed between periods, below the themes (a mixin of the facade).

They read only public fitted attributes (``documents_``, ``topics_``, ``topic_tree_`` when the fit
built a tree, ``state_``) and hand them to the pure functions of ``icml_topics.compare``; see
:mod:`icml_topics.compare.topic_trends` for the statistics.

    >>> tm = TopicMap(random_state=0).fit("../shared/data/icml-2013-2024.jsonl.gz")   # doctest: +SKIP
    >>> tm.whats_new(2024).head()                                                       # doctest: +SKIP
    >>> tm.topic_trends(by="year").query("level == 1 and topic == 4")                   # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from icml_topics.compare import decisions, novelty, wording
from icml_topics.compare.topic_trends import topic_status, topic_trends, whats_new

__all__ = ["TrendMethods", "tree_table"]


def tree_table(model: Any) -> pd.DataFrame:
    """The model's topic tree (``topic_tree_``), or, for a model without one, its fine topics as level 0."""
    tree = getattr(model, "topic_tree_", None)
    if isinstance(tree, pd.DataFrame) and len(tree):
        return tree
    topics = model.topics_
    topics = topics[topics["topic"].astype("Int64") >= 0]
    return pd.DataFrame(
        {
            "level": np.zeros(len(topics), dtype=np.int64),
            "topic": topics["topic"].astype(np.int64).to_numpy(),
            "parent": pd.array([pd.NA] * len(topics), dtype="Int64"),
            "label": topics["label"].astype(str).to_numpy(),
            "size": topics["size"].astype(np.int64).to_numpy(),
            "theme": topics["theme"].astype(str).to_numpy(),
        }
    )


class TrendMethods:
    """Topic-level trends, what is new, wording per year, novelty and acceptance of a fitted ``TopicMap``."""

    def _trend_inputs(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        check_is_fitted(self, "state_")
        return self.documents_, tree_table(self)

    def topic_status(self, by: str = "year", latest: Hashable | None = None, **kwargs: Any) -> pd.DataFrame:
        """One row per node of every tree level: change from the earlier periods to ``latest`` (default the
        last) with intervals, growth per year, FDR-controlled ``status``
        (:func:`~icml_topics.compare.topic_trends.topic_status`).

        Example:
            >>> tm.topic_status(by="year").query("status == 'emerging'")  # doctest: +SKIP
        """
        documents, tree = self._trend_inputs()
        return topic_status(documents, tree, by=by, latest=latest, **kwargs)

    def topic_trends(self, by: str = "year", latest: Hashable | None = None, **kwargs: Any) -> pd.DataFrame:
        """One row per node and period: ``level, topic, label, period, n, total, share, lower, upper`` and the
        node's ``status`` in ``latest`` (:func:`~icml_topics.compare.topic_trends.topic_trends`).

        Example:
            >>> tm.topic_trends(by="year").query("level == 0 and topic == 3")  # doctest: +SKIP
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
        "vanished")`` lists what faded instead.

        Example:
            >>> tm.whats_new(2024, top=10)[["level", "label", "n_latest", "change", "status"]]  # doctest: +SKIP
        """
        status = self.topic_status(by=by, latest=period, **kwargs)
        return whats_new(status, statuses=statuses, top=top)

    def topic_wording(self, by: str = "year", **kwargs: Any) -> pd.DataFrame:
        """Keyphrases and representative papers per node and period, each period from its own papers only
        (:func:`~icml_topics.compare.wording.topic_wording`).

        Example:
            >>> tm.topic_wording().query("level == 1 and topic == 2")[["period", "keywords"]]  # doctest: +SKIP
        """
        documents, _ = self._trend_inputs()
        return wording.topic_wording(documents, self.state_.texts, self.state_.embeddings, by=by, **kwargs)

    def paper_novelty(self, by: str = "year", k: int = 10) -> pd.DataFrame:
        """Per modelled paper (indexed by id): how far it lies from the papers of earlier periods
        (``novelty``, ``novelty_percentile`` within its period, the nearest earlier paper's id and title;
        :func:`~icml_topics.compare.novelty.paper_novelty`).

        Example:
            >>> tm.paper_novelty().query("year == 2024").nlargest(10, "novelty_percentile")  # doctest: +SKIP
        """
        documents, _ = self._trend_inputs()
        rows = documents[(documents["status"] == "ok").to_numpy()]
        scores = novelty.paper_novelty(self.state_.embeddings, rows[by].tolist(), k=k)
        nearest = scores["nearest_earlier"].to_numpy()
        has = nearest >= 0
        near_id = np.where(has, rows["id"].to_numpy(dtype=object)[np.where(has, nearest, 0)], None)
        near_title = np.where(has, rows["title"].to_numpy(dtype=object)[np.where(has, nearest, 0)], None)
        return pd.DataFrame(
            {
                "id": rows["id"].to_numpy(),
                by: rows[by].to_numpy(),
                "title": rows["title"].to_numpy(),
                "novelty": scores["novelty"].to_numpy(),
                "novelty_percentile": scores["novelty_percentile"].to_numpy(),
                "nearest_earlier_id": near_id,
                "nearest_earlier_title": near_title,
            },
            index=rows.index,
        )

    def acceptance(self, group: str = "theme", **kwargs: Any) -> pd.DataFrame:
        """Share of submissions accepted (oral / spotlight / poster) per theme (``group="theme"``) or per
        node of every level (``group="topic"``), with Wilson intervals; needs a ``decision`` column
        (:mod:`icml_topics.compare.decisions`).

        Example:
            >>> tm.acceptance("theme").sort_values("share")  # doctest: +SKIP
        """
        documents, tree = self._trend_inputs()
        if group == "topic":
            return decisions.node_acceptance(documents, tree, **kwargs)
        return decisions.acceptance_shares(documents, group=group, **kwargs)
