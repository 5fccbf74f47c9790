"""How did the field move: theme trends across years / venues, and topic alignment across models.

Two ways to compare years
-------------------------
**One joint model, sliced by year** (recommended default). Fit one ``TopicMap`` on all years
together, then count per year::

    shares = theme_shares(tm.documents_, by="year")                      # themes per year
    topics = theme_shares(tm.documents_, by="year", group="topic_label")  # fine topics per year
    movers = theme_movers(tm.documents_, a=range(2019, 2022), b=2024)

Every year is described in the *same* vocabulary, so a topic's share is directly comparable
across years and no matching step can add errors. Use it whenever the years can be fitted together
(tens of thousands of abstracts are fine) and for any ranking of rising / declining topics.
Its limit: a topic that only exists in one small year may be absorbed by a larger neighbour.

**Separate models, aligned afterwards** ([`align_topics`][icml_topics.compare.align_topics],
[`align_models`][icml_topics.compare.align_models]). Fit year A and year B on their own, then match their
topics by centroid and keyword similarity. Use it when the models already exist (an earlier release's
analysis, another team's model), when each year must be described in its own terms, or to ask structural
questions: which topics *split*, *merged*, *vanished* or are *new*. Matches depend on the ``threshold``; check
``alignment.summary`` and the ``best_similarity`` column before reading a "vanished" topic as real.

Honest trends
-------------
Shares come with Wilson intervals ([`theme_shares`][icml_topics.compare.theme_shares]) and changes with Newcombe intervals
([`theme_movers`][icml_topics.compare.theme_movers]): a theme with 3 of 38 papers has a 95% interval of 2.7%-20.8%, so a small
year rarely makes a theme "rising" on its own. Pool years into periods (``a=range(2013, 2020)``)
to gain power.

Below the themes
----------------
``topic_trends`` does the same for every node of the topic tree (columns
``topic_<level>`` of ``documents_``): shares with Wilson intervals, change with Newcombe intervals,
growth per year (binomial GLM), and a ``status`` per node in the latest period (``new``, ``emerging``,
``stable``, ``declining``, ``vanished``) decided with Benjamini–Hochberg FDR control across all nodes
([`topic_status`][icml_topics.compare.topic_status], [`whats_new`][icml_topics.compare.whats_new]). ``wording`` gives each node's
keyphrases and papers per year from that year alone, ``novelty`` each paper's
distance from everything earlier, ``decisions`` acceptance shares and the
theme x area table. Every table of a change names its baseline in a ``baseline`` column (``"2019"``,
``"2013–2019 pooled"``; ``topic_status(baseline="previous")``: the last earlier period with 30 papers) and
the period compared in ``compared``: a CSV keeps no metadata. In memory each table also carries a
[`TrendInfo`][icml_topics.compare.TrendInfo] (its ``by`` column, the ``confidence`` of its intervals, the periods
compared, the FDR), read with [`read_trend_info`][icml_topics.compare.read_trend_info]. Every interval is at
``confidence=0.95`` unless given (``level=``, its old name, still works with a ``DeprecationWarning``;
``level`` names a level of the topic tree).

Examples:
    >>> import pandas as pd
    >>> from icml_topics.compare import theme_shares
    >>> docs = pd.DataFrame({"year": [2019, 2019, 2024], "theme": ["RL", "Vision", "RL"]})
    >>> theme_shares(docs)["share"].tolist()
    [0.5, 0.5, 1.0, 0.0]
"""

from .align import TopicAlignment, align_topics
from .decisions import acceptance_shares, area_table, node_acceptance
from .intervals import newcombe_interval, wilson_interval
from .name_checks import name_checks
from .novelty import paper_novelty
from .period_labels import period_label
from .resolution import align_models
from .topic_tables import TopicTables, topic_tables
from .topic_trends import topic_changes, topic_shares, topic_status, topic_trends, whats_new
from .trend_info import TrendInfo, read_trend_info
from .trends import compare_venues, theme_movers, theme_shares, year_theme_table
from .wording import topic_wording

__all__ = [
    "TopicAlignment",
    "TopicTables",
    "TrendInfo",
    "acceptance_shares",
    "align_models",
    "align_topics",
    "area_table",
    "compare_venues",
    "name_checks",
    "newcombe_interval",
    "node_acceptance",
    "paper_novelty",
    "period_label",
    "read_trend_info",
    "theme_movers",
    "theme_shares",
    "topic_changes",
    "topic_shares",
    "topic_status",
    "topic_tables",
    "topic_trends",
    "topic_wording",
    "whats_new",
    "wilson_interval",
    "year_theme_table",
]
