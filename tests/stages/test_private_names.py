"""Each private name of ``stages/private_names.py`` has its fallback: the library's own code when the name is
missing or its parameters differ; and the docs page lists every one."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from icml_topics.embedding import embed
from icml_topics.stages import private_names
from icml_topics.stages.bertopic_import import import_bertopic
from icml_topics.stages.represent import represent_topics

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / "icml_topics" / "data" / "icml-2026-seed-abstracts.jsonl"


@pytest.fixture(scope="module")
def seeds():
    texts = [json.loads(line)["abstract"] for line in SEEDS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return texts, embed(texts, precision="fp32"), np.array([i % 3 for i in range(len(texts))], dtype=np.int64)


def _fp32(batch: list[str]) -> np.ndarray:
    return embed(batch, precision="fp32")


def test_representative_docs_step_is_skipped_only_where_bertopic_has_it(seeds, monkeypatch, caplog):
    texts, emb, labels = seeds
    BERTopic = import_bertopic().BERTopic
    original = BERTopic._save_representative_docs
    calls = []

    def counted(self, documents):
        calls.append(len(documents))
        return original(self, documents)

    monkeypatch.setattr(BERTopic, "_save_representative_docs", counted)
    skipped = represent_topics(texts, emb, labels, _fp32, min_df=1)
    assert calls == []  # the step BERTopic names so is skipped

    def renamed_parameters(self, documents, nr_docs=3):  # a release that changes the method's parameters
        calls.append(len(documents))
        return original(self, documents)

    monkeypatch.setattr(BERTopic, "_save_representative_docs", renamed_parameters)
    private_names.TOLD.clear()
    with caplog.at_level(logging.INFO, logger="icml_topics"):
        own = represent_topics(texts, emb, labels, _fp32, min_df=1)
    assert calls == [len(texts)]  # BERTopic's own method ran
    assert "_save_representative_docs" in caplog.text and "its own code runs" in caplog.text
    assert own.keywords == skipped.keywords and np.array_equal(own.labels, skipped.labels)


def test_a_missing_private_method_is_none_and_told_once(caplog):
    class Model:
        def _step(self, documents):
            return documents

    private_names.TOLD.clear()
    with caplog.at_level(logging.INFO, logger="icml_topics"):
        assert private_names.private_method(Model(), "_step", ("documents",)) is not None
        assert private_names.private_method(Model(), "_gone", ("documents",)) is None
        assert private_names.private_method(Model(), "_gone", ("documents",)) is None
    assert caplog.text.count("Model._gone is missing") == 1


def test_unannounced_joined_topics_give_the_same_keyphrases(seeds):
    """The n-gram counter's joined-documents path (a mirrored BERTopic behaviour) against its fallback."""
    texts, emb, labels = seeds
    announced = represent_topics(texts, emb, labels, _fp32, min_df=1)
    private_names.SWITCHED_OFF.add(private_names.JOINED_DOCUMENTS)
    try:
        unannounced = represent_topics(texts, emb, labels, _fp32, min_df=1)
    finally:
        private_names.SWITCHED_OFF.discard(private_names.JOINED_DOCUMENTS)
    assert unannounced.keywords == announced.keywords


def test_docs_page_lists_every_private_name():
    page = (REPO / "docs" / "how-to" / "bertopic-internals.md").read_text(encoding="utf-8")
    for entry in private_names.PRIVATE_NAMES:
        assert entry.name in page and entry.test.split("::")[0].split(" ")[0] in page, entry.name
