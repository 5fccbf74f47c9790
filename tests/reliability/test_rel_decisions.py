"""Review decisions are read with a documented vocabulary (issue 38 case 10): negation wins, CVPR's and
ACL's accepted labels are accepted, and unknown labels are counted and reported, never read as rejections.

Every expected class below is written out by hand from what the venue's label means.
"""

from __future__ import annotations

import logging

import pandas as pd
import pytest

from icml_topics.compare.decisions import acceptance_shares, is_accepted, node_acceptance

#: the labels issue 38 found misread, with what they mean
ISSUE_LABELS = [
    ("Reject (poster session)", False),
    ("Not a poster", False),
    ("Highlight", True),
    ("Award Candidate", True),
    ("Conditional Accept", True),
    ("Findings", True),
    ("unknown", None),
    ("pending", None),
    ("NaN", None),
]

#: real labels of OpenReview (ICLR, NeurIPS, ICML), CVPR and ACL/EMNLP, as published, and their class
REAL_LABELS = [
    # OpenReview venue decisions
    ("Accept (Oral)", "accepted"),
    ("Accept (Spotlight)", "accepted"),
    ("Accept (Poster)", "accepted"),
    ("Accept: notable-top-5%", "accepted"),
    ("Accept: notable-top-25%", "accepted"),
    ("Reject", "rejected"),
    ("Withdrawn Submission", "withdrawn"),
    ("Desk Rejected Submission", "rejected"),
    # the shared ICLR 2024-2025 and 2017-2018 files, ICML and NeurIPS files
    ("oral", "accepted"),
    ("spotlight", "accepted"),
    ("poster", "accepted"),
    ("rejected", "rejected"),
    ("not_accepted", "rejected"),
    ("withdrawn", "withdrawn"),
    ("desk_rejected", "rejected"),
    ("Poster", "accepted"),
    ("Oral", "accepted"),
    ("Spotlight", "accepted"),
    ("Withdraw", "withdrawn"),
    ("Workshop", "rejected"),  # ICLR 2018: invited to the workshop track, not accepted to the conference
    ("Invite to Workshop Track", "rejected"),
    ("Active", "unknown"),  # ICLR 2018: still under review
    # CVPR / ICCV
    ("Highlight", "accepted"),
    ("Award Candidate", "accepted"),
    ("Best Paper Honorable Mention", "accepted"),
    # ACL / EMNLP / NAACL
    ("Main", "accepted"),
    ("Main Conference", "accepted"),
    ("Findings", "accepted"),
    ("Findings of ACL", "accepted"),
    ("Long Paper", "accepted"),
    ("Short Paper", "accepted"),
    ("Conditional Accept", "accepted"),
    # negations and variants of case and punctuation
    ("ACCEPT (ORAL)", "accepted"),
    ("accept-poster", "accepted"),
    ("  accepted  ", "accepted"),
    ("Reject (poster session)", "rejected"),
    ("Not a poster", "rejected"),
    ("Rejected after rebuttal", "rejected"),
    ("Declined", "rejected"),
    ("Retracted", "withdrawn"),
    # no decision yet, or none known
    ("pending", "unknown"),
    ("Decision pending", "unknown"),
    ("Under review", "unknown"),
    ("unknown", "unknown"),
    ("NaN", "unknown"),
    ("N/A", "unknown"),
    ("TBD", "unknown"),
    ("maybe", "unknown"),
]


@pytest.mark.parametrize(("label", "accepted"), ISSUE_LABELS)
def test_the_labels_of_the_issue_are_read_as_they_mean(label, accepted):
    value = is_accepted(pd.Series([label])).iloc[0]
    assert (None if value is pd.NA else bool(value)) is accepted


@pytest.mark.parametrize(("label", "expected"), REAL_LABELS)
def test_real_conference_labels_have_their_documented_class(label, expected):
    from icml_topics.compare.decision_labels import decision_class

    assert decision_class(pd.Series([label])).iloc[0] == expected
    value = is_accepted(pd.Series([label])).iloc[0]
    want = {"accepted": True, "rejected": False, "withdrawn": False, "unknown": None}[expected]
    assert (None if value is pd.NA else bool(value)) is want


def test_unknown_decisions_are_counted_and_reported_not_rejected(caplog):
    docs = pd.DataFrame(
        {
            "theme": ["RL"] * 6 + ["GNN"] * 4,
            "decision": ["poster", "Reject", "pending", "NaN", "Highlight", None]
            + ["Findings", "unknown", "Not a poster", "withdrawn"],
        }
    )
    with caplog.at_level(logging.WARNING, logger="icml_topics"):
        table = acceptance_shares(docs).set_index("theme")
    # RL: poster, Highlight accepted; Reject rejected; pending, NaN unknown; None no decision -> 2 of 3
    assert table.loc["RL", ["accepted", "n", "unknown"]].tolist() == [2, 3, 2]
    # GNN: Findings accepted; Not a poster rejected; withdrawn; unknown -> 1 of 3
    assert table.loc["GNN", ["accepted", "n", "unknown"]].tolist() == [1, 3, 1]
    assert table.loc["RL", "share"] == pytest.approx(2 / 3)
    assert table.attrs["unknown_decisions"] == {"NaN": 1, "pending": 1, "unknown": 1}
    assert "3 papers have a decision" in caplog.text and "'pending'" in caplog.text
    nodes = node_acceptance(docs.assign(topic_0=[0] * 5 + [1] * 5))
    assert nodes[["topic", "accepted", "n", "unknown"]].values.tolist() == [[0, 2, 3, 2], [1, 1, 3, 1]]
    assert nodes.attrs["unknown_decisions"] == {"NaN": 1, "pending": 1, "unknown": 1}


def test_one_outcome_only_is_refused_with_the_reason():
    docs = pd.DataFrame({"theme": ["RL", "GNN", "RL"], "decision": ["Poster", "Oral", "pending"]})
    with pytest.raises(ValueError, match=r"all 2 papers with a known decision .* are accepted"):
        acceptance_shares(docs)
    with pytest.raises(ValueError, match="one outcome only"):
        node_acceptance(docs.assign(topic_0=[0, 1, 0]))
    refused = pd.DataFrame({"theme": ["RL", "GNN"], "decision": ["Reject", "Withdrawn Submission"]})
    with pytest.raises(ValueError, match=r"all 2 papers .* are not accepted"):
        acceptance_shares(refused)
    with pytest.raises(ValueError, match="none of the 2 papers has a known decision"):
        acceptance_shares(refused.assign(decision=["pending", "NaN"]))
