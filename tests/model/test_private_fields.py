"""Nothing outside ``model.py`` reads or writes a ``TopicMap``'s private attributes (checked on the source)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import icml_topics
from icml_topics.model import TopicMap

REPO = Path(icml_topics.__file__).resolve().parents[1]
#: a TopicMap held in a variable of one of its usual names, then ``._something``
BY_NAME = re.compile(r"\b(?:model|tm|self\.model|topic_map|fitted|estimator)\._[a-z]\w*")
#: any of TopicMap's own private methods or fields, whatever the variable is called
OWN = sorted(n for n in vars(TopicMap) if n.startswith("_") and not n.startswith("__"))
BY_MEMBER = re.compile(r"\.(?:" + "|".join(map(re.escape, OWN)) + r")\b")


def _sources() -> list[Path]:
    files = [*(REPO / "icml_topics").rglob("*.py"), *(REPO / "benchmarks").rglob("*.py")]
    return [p for p in files if p != REPO / "icml_topics" / "model.py"]


def _violations(text: str) -> list[str]:
    return [m.group(0) for pattern in (BY_NAME, BY_MEMBER) for m in pattern.finditer(text)]


@pytest.mark.parametrize(
    "line",
    ["labels = model._labels", "tm._embed = fake", "x = self.model._refresh_themes()", "obj._set_state(s)"],
)
def test_the_check_catches_private_access(line):
    assert _violations(line), f"the pattern misses {line!r}"


def test_the_check_lets_public_access_pass():
    assert _violations("tm.state_.labels; model.documents_; tm.get_params(); df._append") == []


def test_no_module_outside_model_touches_topicmap_private_attributes():
    files = _sources()
    assert len(files) > 50 and any(p.name == "edits.py" for p in files)  # the scan sees the package
    assert {"_set_state", "_config"} <= set(OWN)
    bad = {
        f"{p.relative_to(REPO)}:{n}": hits
        for p in files
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if (hits := _violations(line))
    }
    assert not bad, f"private TopicMap attributes used outside model.py: {bad}"
