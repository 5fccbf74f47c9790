"""Names as specific as their papers (issue 49): a node whose papers say "KV cache" is not named "cache", nor
speculative-decoding papers "decoding" (both were ICLR 2025 headlines so named). The nodes are real ICLR 2025
submissions of ../shared/data selected by title words, siblings under the efficiency theme, as the tree put
them; ``name_defects`` flags the bare words for those nodes and not the names given."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from conftest import SHARED_DATA, require

from icml_topics.evaluate.name_papers import longer_phrase
from icml_topics.evaluate.names import name_defects
from icml_topics.stages.naming import name_key
from icml_topics.stages.sibling_names import sibling_names

THEME = "Efficiency (compression & quantization)"
#: node -> a regex its papers' titles match (each paper in the first node it matches)
NODES = {
    "kv cache": r"\bcach|long.context (llm )?inference",
    "speculative decoding": r"speculative (decoding|sampling)|(token|parallel|lookahead).{0,30}decoding"
    r"|decoding.{0,60}(inference|acceleration|faster)",
    "sparse attention": r"sparse attention|attention sparsity|linear attention",
    "mixture of experts": r"mixture.of.experts|\bmoe\b",
    "quantization": r"quantiz",
}


@pytest.fixture(scope="module")
def nodes() -> dict[str, tuple[list[str], list[str]]]:
    """node -> (its papers' titles, their texts: title and abstract)."""
    iclr = pd.read_json(require(SHARED_DATA / "iclr-2024-2025-areas.jsonl.gz"), lines=True)
    iclr = iclr[iclr["year"] == 2025]
    taken: set[int] = set()
    out = {}
    for node, pattern in NODES.items():
        rows = [i for i, t in zip(iclr.index, iclr["title"], strict=True) if re.search(pattern, t, re.I)]
        rows = [i for i in rows if i not in taken]
        taken.update(rows)
        titles = iclr.loc[rows, "title"].tolist()
        out[node] = (titles, (iclr.loc[rows, "title"] + ". " + iclr.loc[rows, "abstract"]).tolist())
    return out


@pytest.fixture(scope="module")
def names(nodes) -> dict[str, str]:
    return sibling_names(THEME, {node: titles for node, (titles, _) in nodes.items()})


def _defects(name: str, node: str, nodes) -> list[str]:
    siblings = [texts for other, (_, texts) in nodes.items() if other != node]
    return name_defects(name, parent=THEME, papers=nodes[node][1], sibling_papers=siblings)


@pytest.mark.parametrize(("node", "words", "bare"), [("kv cache", "KV cache", "cache"), ("speculative decoding",
                                                     "speculative decoding", "decoding")])  # fmt: skip
def test_a_node_gets_the_longer_phrase_its_papers_say(node, words, bare, nodes, names):
    assert len(nodes[node][0]) >= 20, f"too few ICLR 2025 papers for {node!r}"
    assert name_key(words) <= name_key(names[node]), (node, names[node])  # its words, and maybe more
    assert "bare word" not in _defects(names[node], node, nodes)
    assert "bare word" in _defects(bare, node, nodes)  # the name it had: flagged for these papers
    assert name_key(longer_phrase(bare, nodes[node][1])) >= name_key(words)


def test_a_bare_word_stays_where_its_papers_say_no_longer_phrase(nodes):
    """ "quantization" is said by quantization papers in many phrases, none nearly as often as the word."""
    assert "bare word" not in _defects("quantization", "quantization", nodes)


@pytest.mark.parametrize("name", ["mixture-of-experts", "MoE"])
def test_a_term_or_an_acronym_is_no_bare_word(name, nodes):
    assert "bare word" not in _defects(name, "mixture of experts", nodes)


def test_a_longer_phrase_counts_where_its_words_stand_in_a_row():
    """Abstracts hold most words of any phrase somewhere: "image-based rendering" said by 2 of 10 papers whose
    abstracts all hold "image", "based" and "rendering" is no better name than "rendering"."""
    subjects = ["scenes", "faces", "cities", "hands", "cars", "rooms", "trees", "robots"]
    papers = [f"Neural rendering of {s}. Based on image features, we render {s} in real time." for s in subjects]
    papers += ["Image-based rendering revisited. We render views.", "Fast image-based rendering. Views in real time."]
    assert longer_phrase("rendering", papers) == ""
    assert longer_phrase("rendering", papers[-2:] * 4) == "image-based rendering"
