"""Sankey diagram of a topic alignment between two separately fitted models.

Left nodes are the topics of model A, right nodes those of model B. Each link is a match from
[`align_topics`][icml_topics.compare.align_topics], coloured by relation (matched, split, merged); a
"New in B" node feeds the new topics and a "Vanished after A" node collects the vanished ones.

Examples:
    >>> import numpy as np, pandas as pd
    >>> from icml_topics.compare import align_topics
    >>> t = pd.DataFrame({"topic": [0, 1], "label": ["RL", "GNN"], "size": [3, 2], "keywords": [["policy"], ["graph"]]})
    >>> fig = plot_alignment_sankey(align_topics(t, np.eye(2), t, np.eye(2)))
    >>> len(fig.data[0].node.label)
    4
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from icml_topics.errors import InvalidTypeError

from ._style import base_layout

if TYPE_CHECKING:
    from icml_topics.compare.align import TopicAlignment

__all__ = ["plot_alignment_sankey"]

_LINK_COLOURS = {
    "matched": "rgba(76,120,168,0.40)",
    "split": "rgba(245,133,24,0.50)",
    "merged": "rgba(178,121,162,0.50)",
    "split+merged": "rgba(157,117,93,0.50)",
    "new": "rgba(84,162,75,0.45)",
    "vanished": "rgba(228,87,86,0.45)",
}
_NODE_A, _NODE_B, _NODE_NEW, _NODE_GONE = "#4c78a8", "#f58518", "#54a24b", "#e45756"


def _short(text: str, width: int = 42) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _size(value: Any) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return 1.0
    return v if np.isfinite(v) and v > 0 else 1.0


def plot_alignment_sankey(
    alignment: TopicAlignment,
    *,
    label_a: str = "2019",
    label_b: str = "2024",
    min_similarity: float | None = None,
    title: str | None = None,
) -> go.Figure:
    """Sankey of matched / split / merged / new / vanished topics between model A and model B.

    Link width is the mean of the two topics' sizes, each divided among its partners (a topic of
    A that split into two gives half its size to each link); new and vanished topics flow with
    their own size. ``min_similarity`` hides pair links below it (the topics stay as they are in
    ``alignment``). Hover on a link shows the similarity; on a node, its label, size and status.
    Nodes: topics of A, then "New in {label_b}" (if any), topics of B, "Vanished after {label_a}".

    Args:
        alignment: a [`TopicAlignment`][icml_topics.compare.TopicAlignment] (``align_topics``, ``align_models``).
        label_a: model A's name (e.g. its year).
        label_b: model B's name.
        min_similarity: hide pair links below this similarity; ``None``: show every link.
        title: the figure's title; ``None``: a default naming what is shown.

    Examples:
        >>> fig = plot_alignment_sankey(align_models(tm_2019, tm_2024), label_a="2019", label_b="2024")
    """
    for attr in ("pairs", "summary"):
        if not isinstance(getattr(alignment, attr, None), pd.DataFrame):
            raise InvalidTypeError(
                "alignment must be a TopicAlignment from icml_topics.compare.align_topics(), "
                f"got {type(alignment).__name__}."
            )
    summary, pairs = alignment.summary, alignment.pairs
    side_a = summary[summary["side"] == "a"].reset_index(drop=True)
    side_b = summary[summary["side"] == "b"].reset_index(drop=True)
    new = side_b[side_b["status"] == "new"]
    gone = side_a[side_a["status"] == "vanished"]

    labels: list[str] = []
    hover: list[str] = []
    colours: list[str] = []

    def add_node(label: str, text: str, colour: str) -> int:
        labels.append(_short(label))
        hover.append(text)
        colours.append(colour)
        return len(labels) - 1

    def topic_text(row: pd.Series, period: str) -> str:
        return f"{period} · topic {row['topic']}: {row['label']}<br>{_size(row['size']):.0f} papers · {row['status']}"

    def topic_nodes(side: pd.DataFrame, period: str, colour: str) -> dict[Any, int]:
        return {
            row["topic"]: add_node(str(row["label"]), topic_text(row, period), colour) for _, row in side.iterrows()
        }

    def unmatched_node(label: str, topics: pd.DataFrame, period: str, other: str, colour: str) -> int | None:
        return (
            add_node(label, f"{len(topics)} topics of {period} with no match in {other}", colour)
            if len(topics)
            else None
        )

    node_a = topic_nodes(side_a, label_a, _NODE_A)
    new_node = unmatched_node(f"New in {label_b}", new, label_b, label_a, _NODE_NEW)
    node_b = topic_nodes(side_b, label_b, _NODE_B)
    gone_node = unmatched_node(f"Vanished after {label_a}", gone, label_a, label_b, _NODE_GONE)

    degree_a = pairs["topic_a"].value_counts().to_dict()
    degree_b = pairs["topic_b"].value_counts().to_dict()
    source, target, value, link_colour, link_data = [], [], [], [], []
    for _, p in pairs.iterrows():
        if min_similarity is not None and p["similarity"] < min_similarity:
            continue
        source.append(node_a[p["topic_a"]])
        target.append(node_b[p["topic_b"]])
        value.append((_size(p["size_a"]) / degree_a[p["topic_a"]] + _size(p["size_b"]) / degree_b[p["topic_b"]]) / 2)
        link_colour.append(_LINK_COLOURS.get(p["relation"], _LINK_COLOURS["matched"]))
        link_data.append(
            f"{label_a}: {p['label_a']} → {label_b}: {p['label_b']}<br>{p['relation']}, "
            f"similarity {p['similarity']:.2f} (centroids {p['centroid_similarity']:.2f}, "
            f"keywords {p['keyword_similarity']:.2f})"
        )
    for rows, status in ((new, "new"), (gone, "vanished")):
        for _, r in rows.iterrows():
            if status == "new":
                source.append(new_node)
                target.append(node_b[r["topic"]])
            else:
                source.append(node_a[r["topic"]])
                target.append(gone_node)
            value.append(_size(r["size"]))
            link_colour.append(_LINK_COLOURS[status])
            closest = (
                ""
                if pd.isna(r["best_similarity"])
                else (f"<br>closest: topic {r['best_match']}, similarity {r['best_similarity']:.2f}")
            )
            link_data.append(f"{status}: {r['label']}{closest}")

    counts = alignment.counts() if hasattr(alignment, "counts") else {}
    count_text = ", ".join(f"{v} {k}" for k, v in counts.items())
    fig = go.Figure(
        go.Sankey(
            arrangement="snap",
            node={
                "label": labels,
                "color": colours,
                "customdata": hover,
                "pad": 12,
                "thickness": 14,
                "hovertemplate": "%{customdata}<extra></extra>",
                "line": {"width": 0.5, "color": "#666"},
            },
            link={
                "source": source,
                "target": target,
                "value": value,
                "color": link_colour,
                "customdata": link_data,
                "hovertemplate": "%{customdata}<extra></extra>",
            },
        )
    )
    layout = base_layout(
        title or f"Topic alignment {label_a} → {label_b}<br><sup>{count_text}</sup>",
        height=max(450, 120 + 22 * max(len(side_a), len(side_b))),
    )
    layout["font"] = {**layout["font"], "size": 11}
    fig.update_layout(**layout)
    return fig
