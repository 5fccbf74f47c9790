"""What is new in a year, end to end on real ICML abstracts: a planted subject, a removed one, random years.

The corpus: ICML 2016-2018 (100 random papers a year plus that year's bandit papers) and a final year
2024 of 100 random papers plus 50 papers about large language models, a subject absent from every
earlier year, and without any bandit paper. One fit; the statistical checks reuse its node assignments.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import one_worker_at_a_time, plain_icml

from icml_topics.compare.topic_trends import node_counts, topic_status
from icml_topics.compare.wording import topic_wording

EARLY = (2016, 2017, 2018)


def _text(frame: pd.DataFrame) -> pd.Series:
    return (frame["title"].fillna("") + " " + frame["abstract"].fillna("")).str.lower()


@pytest.fixture(scope="module")
def planted(icml_frame):
    bandit = _text(icml_frame).str.contains("bandit")
    plain = plain_icml(icml_frame)  # the 2016-2018 draws are tests/stages/test_new_subjects.py's too
    parts = []
    for year in EARLY:
        parts.append(plain[plain["year"] == year].sample(n=100, random_state=year).assign(subject="other"))
        parts.append(icml_frame[bandit & (icml_frame["year"] == year)].assign(subject="bandit"))
    parts.append(plain[plain["year"] == 2024].sample(n=100, random_state=1).assign(subject="other"))
    llm = icml_frame[(icml_frame["year"] == 2024) & icml_frame["title"].str.lower().str.contains("language model")]
    parts.append(llm.sample(n=50, random_state=2).assign(subject="llm"))
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module")
def planted_model(planted):
    from icml_topics import TopicMap

    with one_worker_at_a_time("planted_model"):
        return TopicMap(random_state=0).fit(planted)


def _node_subject_share(documents: pd.DataFrame, status: pd.DataFrame, subject: str) -> pd.Series:
    """For each node of ``status``: the share of its papers (all years) that are ``subject`` papers."""
    shares = []
    for row in status.itertuples(index=False):
        column = f"topic_{row.level}" if f"topic_{row.level}" in documents.columns else "topic"
        members = documents[pd.to_numeric(documents[column], errors="coerce") == row.topic]
        shares.append(float((members["subject"] == subject).mean()) if len(members) else 0.0)
    return pd.Series(shares, index=status.index)


def test_a_planted_subject_is_new_and_a_removed_one_declines(planted_model):
    docs = planted_model.documents_
    status = planted_model.topic_status(by="year")
    assert set(status["status"]) <= {"new", "emerging", "stable", "declining", "vanished"}
    llm_share = _node_subject_share(docs, status, "llm")
    rising = status["status"].isin(["new", "emerging"])
    assert (rising & (llm_share > 0.5) & (status["n_latest"] >= 10)).any(), status.assign(llm=llm_share).head(20)
    bandit_share = _node_subject_share(docs, status, "bandit")
    falling = status["status"].isin(["declining", "vanished"])
    assert (falling & (bandit_share > 0.5)).any(), status.assign(bandit=bandit_share).tail(20)
    # the facade's what's-new lists the planted node first among the rising ones
    # (or holds it back, named, when its name fails the checks of names: issue 49, item 4)
    new = planted_model.whats_new(2024)
    assert new["status"].isin(["new", "emerging"]).all()
    held = pd.DataFrame(new.attrs.get("held_back") or [], columns=["level", "topic", "label", "name_defects"])
    assert (held["name_defects"] != "").all()
    shown = pd.concat([new[["level", "topic"]].head(3), held[["level", "topic"]]], ignore_index=True)
    assert len(shown) and _node_subject_share(docs, shown, "llm").max() > 0.5
    # intervals hold their estimate
    assert ((status["change_lower"] <= status["change"]) & (status["change"] <= status["change_upper"])).all()


def test_years_split_at_random_from_one_pool_flag_nothing_after_fdr(planted_model):
    docs = planted_model.documents_.copy()
    tree = None
    years = docs["year"].to_numpy()
    flagged = 0
    n_seeds = 100
    for seed in range(n_seeds):
        docs["year"] = np.random.default_rng(seed).permutation(years)
        status = topic_status(node_counts(docs, tree, by="year"))
        flagged += int((status["status"] != "stable").any())
    assert flagged <= 0.05 * n_seeds, f"{flagged} of {n_seeds} random splits flagged a node"


def test_no_look_ahead_year_words_papers_and_status_ignore_later_years(planted_model):
    docs = planted_model.documents_
    texts = np.asarray(planted_model.state_.texts, dtype=object)
    emb = planted_model.state_.embeddings
    ok = (docs["status"] == "ok").to_numpy()
    modelled = docs[ok]
    early = (modelled["year"] < 2024).to_numpy()
    full = topic_wording(modelled, texts, emb, by="year")
    cut = topic_wording(modelled[early], texts[early], emb[early], by="year")
    full_2018 = full[full["period"] == 2018].reset_index(drop=True)
    cut_2018 = cut[cut["period"] == 2018].reset_index(drop=True)
    assert len(full_2018) > 0
    pd.testing.assert_frame_equal(full_2018, cut_2018)
    assert full_2018["keywords"].map(len).gt(0).all()
    # the status of 2018 against 2016-2017 does not read 2024
    with_later = topic_status(modelled, by="year", latest=2018).drop(columns=["label", "parent", "theme"])
    without = topic_status(modelled[early], by="year", latest=2018).drop(columns=["label", "parent", "theme"])
    key = ["level", "topic"]
    merged = with_later.merge(without, on=key, suffixes=("", "_cut"))
    assert len(merged) == len(without)
    for column in ("n_before", "n_latest", "p_value", "status", "growth"):
        assert merged[column].equals(merged[f"{column}_cut"]), column
    # novelty of 2017 and 2018 papers is the same without 2024
    from icml_topics.compare.novelty import paper_novelty

    years = modelled["year"].tolist()
    alone = paper_novelty(emb[early], [y for y, e in zip(years, early) if e])
    together = paper_novelty(emb, years)[early].reset_index(drop=True)
    pd.testing.assert_series_equal(alone["novelty"], together["novelty"])
    pd.testing.assert_series_equal(alone["novelty_percentile"], together["novelty_percentile"])
    nov_full = planted_model.paper_novelty()
    assert nov_full.loc[nov_full["year"] == 2016, "novelty"].isna().all()
    assert nov_full.loc[nov_full["year"] > 2016, "novelty"].notna().all()
    pct = nov_full.groupby("year")["novelty_percentile"].agg(["min", "max"]).dropna()
    assert (pct["min"] == 0).all() and (pct["max"] == 100).all()


def test_trend_methods_before_fit_raise_the_librarys_not_fitted_error():
    from icml_topics import TopicMap
    from icml_topics.errors import IcmlTopicsError, NotFittedError

    with pytest.raises(NotFittedError, match="not fitted yet") as caught:
        TopicMap().topic_status()
    assert isinstance(caught.value, IcmlTopicsError)  # the CLI shows it as a user error, not a bug
