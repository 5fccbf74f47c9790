"""The representation stage embeds its keyphrase candidates in one call and its topic texts in one, never the documents."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from icml_topics.embedding import embed
from icml_topics.stages.represent import represent_topics

SEEDS = Path(__file__).resolve().parents[2] / "icml_topics" / "data" / "icml-2026-seed-abstracts.jsonl"


def test_keyphrase_candidates_are_embedded_in_one_call_and_documents_not_at_all():
    texts = [json.loads(line)["abstract"] for line in SEEDS.read_text(encoding="utf-8").splitlines() if line.strip()]
    embeddings = embed(texts, precision="fp32")
    labels = np.array([i % 3 for i in range(len(texts))], dtype=np.int64)
    calls: list[list[str]] = []

    def counting(batch: list[str]) -> np.ndarray:
        calls.append(list(batch))
        return embed(batch, precision="fp32")

    rep = represent_topics(texts, embeddings, labels, counting, min_df=1)
    # one call for KeyBERT's candidates, one for the topic texts MMR compares them with (one per topic)
    assert len(calls) == 2, [len(c) for c in calls]
    assert len(calls[0]) > 20 and not set(calls[0]) & set(texts)  # phrases, not the documents again
    assert len(calls[1]) == 3 and all(len(t.split()) > 5 for t in calls[1])
    assert sorted(rep.keywords) == [0, 1, 2] and all(rep.keywords[t] for t in rep.keywords)


def test_a_large_corpus_level_embeds_at_most_max_candidates_and_a_small_one_all(monkeypatch):
    """With ``vocabulary_from`` (a large corpus's levels) the candidates embedded are bounded by ``MAX_CANDIDATES``
    and every keyphrase is one of them; MMR keeps a node's few phrases. Without it nothing is bounded."""
    from icml_topics.stages import represent

    texts = [json.loads(line)["abstract"] for line in SEEDS.read_text(encoding="utf-8").splitlines() if line.strip()]
    embeddings = embed(texts, precision="fp32")
    labels = np.array([i % 3 for i in range(len(texts))], dtype=np.int64)

    def run(cap: int | None, **kwargs) -> tuple[list[list[str]], dict[int, list[str]]]:
        monkeypatch.setattr(represent, "MAX_CANDIDATES", cap)
        calls: list[list[str]] = []

        def counting(batch: list[str]) -> np.ndarray:
            calls.append(list(batch))
            return embed(batch, precision="fp32")

        rep = represent_topics(texts, embeddings, labels, counting, min_df=1, **kwargs)
        return calls, rep.keywords

    unbounded, _ = run(None, vocabulary_from=texts)
    assert len(set(unbounded[0]) - {""}) > 60  # the candidates of 3 nodes, 100 a node, more than the bound
    calls, keywords = run(25, vocabulary_from=texts)
    phrases = set(calls[0]) - {""}
    assert 3 <= len(phrases) <= 25
    assert sorted(keywords) == [0, 1, 2] and all(keywords[t] and set(keywords[t]) <= phrases for t in keywords)
    small, small_keywords = run(25)  # no vocabulary_from: every candidate, as KeyBERTInspired
    assert len(set(small[0]) - {""}) > 60
    assert small_keywords == run(None)[1]
