"""OpenReview notes (API v2 nested values, API v1 flat values) -> corpus table."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd
import pytest

from icml_topics.datasets import load_openreview, load_report
from icml_topics.datasets.openreview import openreview_status

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "datasets"
V2_JSON = FIXTURES / "openreview-icml2024-notes.json"
V1_JSONL = FIXTURES / "openreview-iclr2019-v1.jsonl"


@pytest.fixture(scope="module")
def notes() -> pd.DataFrame:
    return load_openreview(V2_JSON)


def test_v2_notes_rows_and_report(notes: pd.DataFrame) -> None:
    # a repeated id is kept, renamed (the one rule of docs/architecture.md)
    assert notes["id"].tolist() == ["aB3xYz01", "cD4eFg02", "hI5jKl03", "mN6oPq04", "aB3xYz01#1", "wX8yZa07"]
    report = load_report(notes)
    assert (report.n_read, report.n_kept) == (8, 6)
    assert [issue.location for issue in report.skipped] == ["note 4", "note 5"]
    assert "has no 'id'" in report.skipped[0].reason
    assert "has no 'content' object" in report.skipped[1].reason
    assert [issue.location for issue in report.duplicates] == ["note 6"]
    assert "note 0" in report.duplicates[0].reason and "'aB3xYz01#1'" in report.duplicates[0].reason


def test_nested_values_are_unwrapped(notes: pd.DataFrame) -> None:
    first = notes.set_index("id").loc["aB3xYz01"]
    assert first["title"] == r"Scaling Laws for $\epsilon$-Private Language Models"
    assert first["title_clean"] == "Scaling Laws for ϵ-Private Language Models"
    assert first["authors"] == "Ada Lovelace; Alan Turing"
    assert first["keywords"] == "differential privacy; scaling laws; language models"
    assert first["primary_area"] == "Social Aspects->Privacy"
    assert first["abstract_clean"] == "We measure how the privacy budget ϵ changes scaling laws of language models."
    assert first["TLDR"] == "Privacy changes the exponent."
    assert first["authorids"] == "~Ada_Lovelace1; ~Alan_Turing1"


def test_venue_year_and_links_come_from_the_note(notes: pd.DataFrame) -> None:
    named = notes[notes["id"] != "aB3xYz01#1"]  # the repeated note names no venue
    assert set(named["venue"]) == {"ICML"}
    assert named["year"].tolist() == [2024] * 5
    first = notes.set_index("id").loc["aB3xYz01"]
    assert first["url"] == "https://openreview.net/forum?id=aB3xYz01"
    assert first["pdf"] == "https://openreview.net/pdf/0123456789abcdef.pdf"
    assert first["openreview_venue"] == "ICML 2024 Oral"
    assert first["venueid"] == "ICML.cc/2024/Conference"
    assert first["number"] == 101
    assert first["cdate"] == 1706745600000
    assert str(notes["cdate"].dtype) == "Int64"  # integers stay integers despite missing values
    assert "readers" not in notes.columns and "signatures" not in notes.columns


def test_status_and_decision(notes: pd.DataFrame) -> None:
    status = dict(zip(notes["id"], notes["status"]))
    assert status == {
        "aB3xYz01": "Oral",
        "cD4eFg02": "Poster",
        "hI5jKl03": "Rejected",
        "mN6oPq04": "Poster",
        "aB3xYz01#1": None,
        "wX8yZa07": "Accept (spotlight)",
    }
    decisions = notes.set_index("id")["decision"]
    assert decisions["wX8yZa07"] == "Accept (spotlight)"
    assert pd.isna(decisions["aB3xYz01"])


def test_note_without_abstract_is_kept_with_empty_abstract(notes: pd.DataFrame) -> None:
    row = notes.set_index("id").loc["mN6oPq04"]
    assert row["abstract"] == "" and row["abstract_clean"] == ""
    assert row["title"] == "A Submission Without an Abstract"
    assert pd.isna(row["keywords"])  # an empty keyword list is missing, not ""
    assert load_report(notes).n_missing_abstract == 1


def test_v1_jsonl_with_pages_and_broken_lines() -> None:
    df = load_openreview(V1_JSONL)
    assert df["id"].tolist() == ["HkV1note1", "HkV1note3"]
    assert df["venue"].tolist() == ["ICLR", "ICLR"]
    assert df["year"].tolist() == [2019, 2019]
    assert df.loc[0, "keywords"] == "representation learning"
    assert df.loc[0, "authors"] == "Yann Example"
    report = load_report(df)
    assert (report.n_read, report.n_kept) == (4, 2)
    assert [issue.location for issue in report.skipped] == ["line 2", "line 4"]
    assert "invalid JSON" in report.skipped[0].reason


def test_in_memory_forms_give_the_same_table(notes: pd.DataFrame) -> None:
    payload = json.loads(V2_JSON.read_text(encoding="utf-8"))
    for source in (payload, payload["notes"], json.dumps(payload)):
        assert load_openreview(source)["id"].tolist() == notes["id"].tolist()


def test_gzipped_jsonl_of_notes(tmp_path: Path, notes: pd.DataFrame) -> None:
    payload = json.loads(V2_JSON.read_text(encoding="utf-8"))["notes"]
    path = tmp_path / "notes.jsonl.gz"
    path.write_bytes(gzip.compress("\n".join(json.dumps(n) for n in payload).encode("utf-8")))
    df = load_openreview(path)
    assert df["id"].tolist() == notes["id"].tolist()
    assert [issue.location for issue in load_report(df).skipped] == ["line 5", "line 6"]


def test_venue_and_year_arguments_fill_notes_that_do_not_name_them() -> None:
    df = load_openreview(
        [{"id": "n1", "content": {"title": {"value": "T"}, "abstract": {"value": "A"}}}], venue="TMLR", year=2023
    )
    assert (df.loc[0, "venue"], df.loc[0, "year"]) == ("TMLR", 2023)


def test_wrongly_typed_content_field_is_skipped() -> None:
    df = load_openreview(
        {
            "notes": [
                {"id": "ok", "content": {"title": {"value": "Fine"}}},
                {"id": "bad", "content": {"title": {"value": ["a", "list"]}}},
            ]
        }
    )
    assert df["id"].tolist() == ["ok"]
    assert "content.title is a list" in load_report(df).skipped[0].reason


def test_not_notes_at_all_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="Expected OpenReview notes"):
        load_openreview({"count": 0, "groups": []})


def test_invalid_json_file_suggests_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "notes.json"
    path.write_text('{"notes": [', encoding="utf-8")
    with pytest.raises(ValueError, match=r"not valid JSON.*\.jsonl"):
        load_openreview(path)


@pytest.mark.parametrize(
    ("venue", "venueid", "expected"),
    [
        ("ICLR 2024 poster", "ICLR.cc/2024/Conference", "Poster"),
        ("ICLR 2024 Conference Withdrawn Submission", "ICLR.cc/2024/Conference/Withdrawn_Submission", "Withdrawn"),
        ("Submitted to ICLR 2024", "ICLR.cc/2024/Conference/Desk_Rejected_Submission", "Desk Rejected"),
        ("Submitted to ICLR 2024", "ICLR.cc/2024/Conference/Submission", "Submitted"),
        ("ICML 2024", "ICML.cc/2024/Conference", "Accepted"),
        (None, None, None),
    ],
)
def test_openreview_status(venue: str | None, venueid: str | None, expected: str | None) -> None:
    assert openreview_status(venue, venueid) == expected
