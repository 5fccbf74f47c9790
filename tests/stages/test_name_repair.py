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


def test_the_level_chooses_in_one_order_across_sibling_groups(tree):
    """Two nodes of different sibling groups want the same phrase: the one with the lower id takes it, whatever
    the order of the groups (the repair pass indexes one group at a time but judges the level's nodes in id
    order). Group "Probabilistic methods" holds nodes 0 (Gaussian processes) and 2 (half the Bayesian
    optimization papers), group "Bayesian optimization" (a theme, so its words are no broader theme's) holds
    nodes 1 (the other half) and 3 (the mixed bag)."""
    labels, titles, texts = tree
    old = labels[:, 0]
    bo = np.flatnonzero(old == 0)
    new = np.select([old == 1, old == 2], [0, 3], default=2)
    new[bo[1::2]] = 1
    themes = {0: THEME, 1: "Learning theory", 2: THEME, 3: "Learning theory"}
    names = [{0: "acquisition functions", 1: "kernels", 2: "kernels", 3: "optimization"}]
    repair_names(names, new[:, None], [{k: -1 for k in themes}], [themes], titles, texts)
    assert names[0][1] == "bayesian optimization"  # node 1 chooses before node 2, though its group comes second
    assert names[0][2] != "bayesian optimization"


def test_each_node_reads_its_papers_phrases_once_however_many_names_it_judges(monkeypatch):
    """The repair pass reads a node's papers' phrases (``name_papers.longer_phrase``, for a one-word name its
    papers carry) once, not once for every name it judges: "cache" names KV-cache papers less well than "KV
    cache" (``bare word``), and so does each one-word phrase of theirs the pass tries (on old main each read
    the node's texts again: benchmarks/results/names_cost.md)."""
    import icml_topics.stages.name_phrases as name_phrases

    read: list[str] = []  # each read's first text: which node's papers were read
    real = name_phrases.phrase_counts
    monkeypatch.setattr(name_phrases, "phrase_counts", lambda texts: read.append(texts[0]) or real(texts))
    fields = "robotics chemistry finance biology climate traffic energy medicine vision speech astronomy games"
    said = [f"KV cache eviction for {f} agents" for f in fields.split()]
    said += [f"Speculative decoding for {f} agents" for f in fields.split()]
    labels = np.array([[0]] * 12 + [[1]] * 12)
    names = [{0: "cache", 1: "decoding"}]
    repair_names(names, labels, [{0: -1, 1: -1}], [{0: THEME, 1: THEME}], said, said)
    assert names[0] == {0: "cache eviction", 1: "speculative decoding"}  # each its papers' longer phrase
    assert len(read) >= 2, "the one-word names were not judged by their papers' phrases"
    assert len(read) == len(set(read)), f"a node's papers' phrases were read more than once: {read}"


def test_a_sibling_saying_the_name_by_its_acronym_still_counts():
    """The pass compares a name only with the siblings whose papers may carry it, found by the name's claims
    (its words, or its acronym): node 1's "gaussian processes" is carried as often by node 0's papers, which
    write "GP", so it is flagged ``carried by a sibling`` and renamed by its own phrase."""
    gp = ["Sparse GP regression for {}", "Deep GP priors for {}", "GP posterior sampling in {}"]
    bandit = "Gaussian processes for contextual bandits in {}"
    fields = "robotics chemistry finance biology climate traffic energy medicine vision speech astronomy games"
    said = [gp[i % 3].format(f) for i, f in enumerate(fields.split())] + [bandit.format(f) for f in fields.split()]
    labels = np.array([[0]] * 12 + [[1]] * 12)
    names = [{0: "sparse GP regression", 1: "gaussian processes"}]
    mine = [said[12:], said[:12]]
    assert "carried by a sibling" in name_defects(
        "gaussian processes", parent=THEME, siblings=["sparse GP regression"], titles=mine[0],
        sibling_titles=[mine[1]], papers=mine[0], sibling_papers=[mine[1]],
    )  # fmt: skip
    repair_names(names, labels, [{0: -1, 1: -1}], [{0: THEME, 1: THEME}], said, said)
    assert names[0][1] == "contextual bandits"
