"""A node alone in its theme is the whole of its theme's papers (issue 49): judged as such by
``compare.name_checks`` (``name_defects(alone=True)``: the theme's words are its own), it is repaired as such,
the theme's own phrases tried after the node's. Real ICML papers selected by title words, one node per theme."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from conftest import SHARED_DATA, require

from icml_topics.evaluate.name_rules import title_share
from icml_topics.evaluate.names import name_defects
from icml_topics.stages.tree_names import name_levels

#: theme -> a regex its node's titles match (12 papers each, each paper in one node)
THEMES = {"Fairness": r"\bfair", "Causality": r"\bcausal", "Bandits & online learning": r"\bbandit"}


@pytest.fixture(scope="module")
def lone() -> tuple[np.ndarray, list[str], list[str], list[str]]:
    icml = pd.read_json(require(SHARED_DATA / "icml-2013-2024.jsonl.gz"), lines=True).sort_values("id")
    rows: list[int] = []
    nodes, themes = [], []
    for k, (theme, pattern) in enumerate(THEMES.items()):
        found = [i for i, t in zip(icml.index, icml["title"]) if re.search(pattern, t, re.I) and i not in rows][:12]
        rows += found
        nodes += [k] * len(found)
        themes += [theme] * len(found)
    titles = icml.loc[rows, "title"].tolist()
    texts = (icml.loc[rows, "title"] + ". " + icml.loc[rows, "abstract"]).tolist()
    return np.array([[n] for n in nodes]), themes, titles, texts


def test_a_lone_node_is_named_as_it_is_judged(lone):
    """Each node's name passes the checks it is judged by, alone in its theme, and most of its titles say it.
    On the code before, the 12 causal papers were "causal inference" ("mixed node": 3 of 12 titles): the repair
    pass never tried the theme's "causality", which titles writing "causal" did not say."""
    labels, themes, titles, texts = lone
    names = name_levels(labels, [{k: -1 for k in range(len(THEMES))}], themes, titles, texts, [{}])
    for k, theme in enumerate(THEMES):
        mine = np.flatnonzero(labels[:, 0] == k)
        said, papers = [titles[i] for i in mine], [texts[i] for i in mine]
        name = names[0][k]
        assert name_defects(name, parent=theme, alone=True, titles=said, papers=papers) == [], (theme, name)
        assert title_share(name, said) >= 0.5, (theme, name)
