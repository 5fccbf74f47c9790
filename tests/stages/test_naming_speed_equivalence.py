"""The indexes and caches behind topic naming (issue 39 speed-up) answer as the plain scans did: a phrase's
papers whichever way the index was filled, cached clean-ups that callers cannot spoil, fresh sets."""

from __future__ import annotations

import numpy as np

from icml_topics.evaluate.name_rules import parent_stems
from icml_topics.stages import naming
from icml_topics.stages.keyphrases import Phrase, clean_keyphrases, merge_keyphrases
from icml_topics.stages.stem_index import StemIndex

DOCS = [
    "Graph neural networks for molecules",
    "Neural graph models",
    "Message passing in graph neural networks",
    "Graphs",
    "GNNs for chemistry",
]
GNN = Phrase(["graph", "neural", "networks"], "GNNs")


def _where(mask: np.ndarray) -> list[int]:
    return np.flatnonzero(mask).tolist()


def test_hits_finds_the_words_in_order_in_any_form_or_the_acronym():
    index = StemIndex(DOCS)
    assert _where(index.hits(Phrase(["graph", "neural", "networks"]))) == [0, 2]  # not "neural graph"
    assert _where(index.hits(GNN)) == [0, 2, 4]
    assert _where(index.hits(Phrase(["graph"]))) == [0, 1, 2, 3]  # "graphs" too
    assert _where(index.hits(Phrase(["transformers"]))) == []
    assert _where(index.hits(Phrase(["graph"]))) == [0, 1, 2, 3]  # asked again: the same, from the memo


def test_an_index_filled_in_one_pass_answers_as_one_filled_phrase_by_phrase():
    asked = StemIndex(DOCS)
    for word in ["molecules", "chemistry", "message", "passing", "models", "for", "in", "neural", "networks"]:
        asked.hits(Phrase([word]))  # a pass over the papers each
    assert _where(asked.hits(GNN)) == [0, 2, 4]
    assert _where(asked.hits(Phrase(["message", "passing"]))) == [2]
    prefetched = StemIndex(DOCS)
    prefetched.prefetch([GNN, Phrase(["message", "passing"]), Phrase(["transformers"])])  # one pass for all
    assert _where(prefetched.hits(GNN)) == [0, 2, 4]
    assert _where(prefetched.hits(Phrase(["message", "passing"]))) == [2]
    assert _where(prefetched.hits(Phrase(["transformers"]))) == []


def test_a_changed_mask_or_phrase_list_does_not_change_the_next_answer():
    index = StemIndex(DOCS)
    index.hits(Phrase(["graph"]))[:] = False
    assert _where(index.hits(Phrase(["graph"]))) == [0, 1, 2, 3]
    first = merge_keyphrases(["federated learning fl", "federated learning"])
    first[0].words.append("x")
    first[0].variants.clear()
    first[0].acronym = None
    again = merge_keyphrases(["federated learning fl", "federated learning"])
    assert [(p.words, p.acronym, p.variants) for p in again] == [
        (["federated", "learning"], "FL", ["federated learning fl", "federated learning"])
    ]


def test_clean_keyphrases_takes_any_iterable_and_drops_covered_phrases():
    phrases = ["reinforcement", "reinforcement learning", "component analysis", "principal component analysis"]
    assert clean_keyphrases(p for p in phrases) == ["reinforcement learning", "principal component analysis"]
    # the same words in another order and no more words: neither covers the other
    assert clean_keyphrases(["graph learning", "learning graph"]) == ["graph learning", "learning graph"]
    assert clean_keyphrases(["graph neural", "graph neural networks"]) == ["graph neural networks"]


def test_parent_stems_are_a_fresh_set_each_time():
    stems = parent_stems("reinforcement learning")
    assert stems == {"reinforcement", "learn", "rl"}
    stems.add("x")
    assert parent_stems("reinforcement learning") == {"reinforcement", "learn", "rl"}


def test_a_topic_is_named_the_same_when_named_twice():
    keywords = {0: ["graph neural networks", "message passing"], 1: ["graph neural networks", "molecules"]}
    texts = {0: DOCS[:3], 1: DOCS[3:] + DOCS[:1]}
    first = naming.name_topics(keywords, texts, distinct=naming.name_key)
    assert first == naming.name_topics(keywords, texts, distinct=naming.name_key)
    assert first[0] != first[1]


def test_claim_sets_are_the_claims_as_a_tuple():
    from icml_topics.evaluate.name_rules import claim_sets

    parent = "reinforcement learning (RL)"
    assert claim_sets("offline reinforcement learning", parent) == (frozenset({"offlin"}), frozenset({"orl"}))
    assert claim_sets("offline reinforcement learning", parent) == (frozenset({"offlin"}), frozenset({"orl"}))
    assert claim_sets("reinforcement learning", parent) == ()  # nothing of its own under its parent
