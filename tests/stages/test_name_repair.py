"""The repair pass of the tree names (issue 49): a node whose chosen name fails the checks of its own papers
and siblings takes the first of its own phrases that passes; a node for which none passes keeps its name.
The nodes are real ICML papers of ../shared/data selected by title words, three top nodes of one theme."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from conftest import SHARED_DATA, require

from icml_topics.evaluate.names import name_defects
from icml_topics.stages.tree_names import repair_names

THEME = "Probabilistic methods"
#: node -> a regex its papers' titles match (each paper in the first node it matches; None: any title)
NODES = {0: r"bayesian optimi[sz]ation", 1: r"gaussian process", 2: None}
#: the names chosen before the repair: the first two fail (words few of their papers say: the second is the
#: sibling's subject), the third is a mixed bag of papers that no phrase of its own names
CHOSEN = {0: "kernels", 1: "acquisition functions", 2: "optimization"}


@pytest.fixture(scope="module")
def tree() -> tuple[np.ndarray, list[str], list[str]]:
    """(labels: papers x 1 level, each paper's title, its title and abstract), 40 papers a node."""
    icml = pd.read_json(require(SHARED_DATA / "icml-2013-2024.jsonl.gz"), lines=True).sort_values("id")
    taken: set[int] = set()
    rows, nodes = [], []
    for node, pattern in NODES.items():
        wanted = pattern or "|".join(p for p in NODES.values() if p)
        found = [
            i
            for i, t in zip(icml.index, icml["title"], strict=True)
            if i not in taken and bool(re.search(wanted, t, re.I)) == (pattern is not None)
        ]
        picked = found[:: max(1, len(found) // 40)][:40]
        taken.update(picked)
        rows += picked
        nodes += [node] * len(picked)
    titles = icml.loc[rows, "title"].tolist()
    texts = (icml.loc[rows, "title"] + ". " + icml.loc[rows, "abstract"]).tolist()
    return np.array([[n] for n in nodes]), titles, texts


def _repaired(tree) -> tuple[list[dict[int, str]], list[str]]:
    labels, titles, texts = tree
    names = [dict(CHOSEN)]
    parents = [{0: -1, 1: -1, 2: -1}]
    themes_of = [{0: THEME, 1: THEME, 2: THEME}]
    repair_names(names, labels, parents, themes_of, titles, texts)
    return names, titles


def _defects(name: str, node: int, names, tree) -> list[str]:
    labels, titles, texts = tree
    kids = [k for k in NODES if k != node]
    mine = lambda k, what: [w for w, n in zip(what, labels[:, 0], strict=True) if n == k]  # noqa: E731
    return name_defects(
        name,
        parent=THEME,
        siblings=[names[0][k] for k in kids],
        titles=mine(node, titles),
        sibling_titles=[mine(k, titles) for k in kids],
        papers=mine(node, texts),
        sibling_papers=[mine(k, texts) for k in kids],
    )


def test_a_failing_name_takes_the_passing_phrase_of_its_own_papers(tree):
    assert (tree[0][:, 0] == 0).sum() >= 20, "too few ICML papers on Bayesian optimization"
    names, _ = _repaired(tree)
    for node in (0, 1):
        assert _defects(CHOSEN[node], node, [dict(CHOSEN)], tree), f"{CHOSEN[node]!r} should fail for node {node}"
    assert names[0][0] == "bayesian optimization"
    assert names[0][1].lower().startswith("gaussian process")
    for node in (0, 1):
        assert _defects(names[0][node], node, names, tree) == [], names[0][node]


def test_a_node_no_phrase_of_its_own_names_keeps_its_name(tree):
    names, _ = _repaired(tree)
    assert _defects("optimization", 2, names, tree)  # still flagged
    assert names[0][2] == "optimization"
