"""The review-decision vocabulary: real conference labels read as accepted, rejected, withdrawn or unknown.

A label is normalised first (lower case; every run of characters other than letters and digits becomes
one space: ``"Accept (Oral)"`` -> ``"accept oral"``, ``"not_accepted"`` -> ``"not accepted"``), then
looked up in ``DECISION_LABELS``, the labels real venues publish:

* OpenReview (ICLR, NeurIPS, ICML, TMLR): ``Accept (Oral)``, ``Accept (Spotlight)``, ``Accept (Poster)``,
  ``Accept: notable-top-5%``, ``oral``, ``spotlight``, ``poster``, ``Reject``, ``rejected``,
  ``not_accepted``, ``Withdrawn Submission``, ``withdrawn``, ``Desk Rejected Submission``,
  ``desk_rejected``; ICLR 2017-2018's ``Invite to Workshop Track`` / ``Workshop`` (not accepted to the
  conference) and ``Active`` (still under review);
* CVPR / ICCV / ECCV: ``Highlight``, ``Award Candidate``, ``Best Paper``, ``Oral``, ``Poster``;
* ACL / EMNLP / NAACL: ``Main``, ``Main Conference``, ``Findings``, ``Long Paper``, ``Short Paper``,
  ``Conditional Accept``, ``Demo``.

A label not in the table is read word by word, and a negation wins over any acceptance word: a
withdrawal word (``withdrawn``, ``retracted``) gives *withdrawn*, a rejection word (``reject``, ``not``,
``declined``) *rejected* (so ``"Reject (poster session)"`` and ``"Not a poster"`` are rejected), a word
of a pending or missing decision (``pending``, ``unknown``, ``nan``, ``tbd``) *unknown*, an acceptance
word (``accept``, ``oral``, ``spotlight``, ``poster``, ``highlight``, ``award``, ``findings``, ``main``)
*accepted*; anything else is *unknown*. Unknown labels are never read as rejections: the acceptance
tables leave them out of the denominator and count them (``compare.decisions``).

    >>> decision_class(pd.Series(["Accept (Oral)", "Reject (poster session)", "Findings", "pending", None])).tolist()
    ['accepted', 'rejected', 'accepted', 'unknown', <NA>]
"""

from __future__ import annotations

import pandas as pd

from icml_topics.text import words

__all__ = [
    "ACCEPTED",
    "DECISION_CLASSES",
    "DECISION_LABELS",
    "REJECTED",
    "UNKNOWN",
    "WITHDRAWN",
    "decision_class",
    "normalise_label",
]

ACCEPTED, REJECTED, WITHDRAWN, UNKNOWN = "accepted", "rejected", "withdrawn", "unknown"
#: the classes a decision is read as
DECISION_CLASSES = (ACCEPTED, REJECTED, WITHDRAWN, UNKNOWN)

_A, _R, _W, _U = ACCEPTED, REJECTED, WITHDRAWN, UNKNOWN
#: real labels (normalised with ``normalise_label``) and their class
DECISION_LABELS: dict[str, str] = {
    # OpenReview: ICLR, NeurIPS, ICML, TMLR
    "accept": _A,
    "accepted": _A,
    "accept oral": _A,
    "accept spotlight": _A,
    "accept poster": _A,
    "accept notable top 5": _A,
    "accept notable top 25": _A,
    "oral": _A,
    "spotlight": _A,
    "poster": _A,
    "reject": _R,
    "rejected": _R,
    "not accepted": _R,
    "desk reject": _R,
    "desk rejected": _R,
    "desk rejected submission": _R,
    "withdraw": _W,
    "withdrawn": _W,
    "withdrawn submission": _W,
    "invite to workshop track": _R,  # ICLR 2017-2018: not accepted to the conference
    "workshop": _R,
    "active": _U,  # ICLR 2017-2018: still under review
    "under review": _U,
    "submitted": _U,
    "pending": _U,
    "decision pending": _U,
    "no decision": _U,
    "unknown": _U,
    "nan": _U,
    "na": _U,
    "n a": _U,
    "none": _U,
    "null": _U,
    "tbd": _U,
    # CVPR, ICCV, ECCV
    "highlight": _A,
    "award candidate": _A,
    "best paper": _A,
    "best paper honorable mention": _A,
    # ACL, EMNLP, NAACL
    "main": _A,
    "main conference": _A,
    "findings": _A,
    "long": _A,
    "long paper": _A,
    "short": _A,
    "short paper": _A,
    "conditional accept": _A,
    "demo": _A,
}

_WITHDRAWN_WORDS = frozenset("withdraw withdrawn withdrew retracted retract".split())
_REJECTED_WORDS = frozenset("reject rejected rejection not declined decline unaccepted".split())
_UNKNOWN_WORDS = frozenset("pending unknown undecided tbd nan null none review".split())
_ACCEPTED_WORDS = frozenset(
    "accept accepted acceptance oral spotlight poster highlight award findings main notable".split()
)


def normalise_label(label: object) -> str:
    """``label``'s words (``icml_topics.text.words``: lower case, letters and digits) joined by one space.

    >>> normalise_label("  Accept (Oral) ")
    'accept oral'
    """
    return " ".join(words(str(label)))


def _class_of(normalised: str) -> str:
    known = DECISION_LABELS.get(normalised)
    if known is not None:
        return known
    words = set(normalised.split())
    for vocabulary, cls in (
        (_WITHDRAWN_WORDS, _W),
        (_REJECTED_WORDS, _R),
        (_UNKNOWN_WORDS, _U),
        (_ACCEPTED_WORDS, _A),
    ):
        if words & vocabulary:
            return cls
    return _U


def decision_class(values: pd.Series) -> pd.Series:
    """The class of each decision (``DECISION_CLASSES``, pandas ``string``), ``NA`` where there is
    none (a missing value or an empty string)."""
    text = values.astype("string").str.strip()
    present = text.notna() & (text != "")
    out = pd.Series(pd.NA, index=values.index, dtype="string")
    labels = text[present]
    classes = {label: _class_of(normalise_label(label)) for label in labels.unique()}
    out[present] = labels.map(classes)
    return out
