"""Generic paper lists: CSV / JSON / JSONL (.gz) with configurable field names; JSONL writer."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from icml_topics.datasets import load_paper_list, load_report, parse_pmlr_bibtex, write_paper_list

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "datasets"
SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
CSV_FIELDS = {
    "id": "paper_id",
    "venue": "conference",
    "year": "yr",
    "title": "paper_title",
    "abstract": "summary",
    "authors": "author_names",
}
JSON_FIELDS = {"id": "uid", "title": "name", "abstract": "text", "authors": "people", "year": "yr"}


def test_csv_with_other_field_names() -> None:
    df = load_paper_list(FIXTURES / "paper-list-other-names.csv", fields=CSV_FIELDS, year=2023)
    assert df["id"].tolist() == ["p-001", "p-002", "p-003", "p-001#1", "paper-list-other-names-5"]
    assert df.columns[:6].tolist() == ["id", "venue", "year", "title", "abstract", "authors"]
    assert df["year"].tolist() == [2023] * 5  # the last row has no year: filled from the argument
    assert df.loc[0, "abstract"] == (
        'We revisit robust optimisation, with commas, "quotes" and a\nline break inside the abstract.'
    )
    assert df.loc[0, "authors"] == "Alice Example; Bob Example"
    assert df.loc[1, "title_clean"] == "Learning with Noisy Labels"
    assert df.loc[1, "abstract_clean"] == "Labels are noisy & plentiful."
    assert df.loc[2, "abstract"] == ""  # empty summary: kept
    assert df["track"].tolist() == ["main", "main", "position", "main", "main"]  # extra column kept
    assert "summary" not in df.columns and "paper_id" not in df.columns


def test_csv_report_lists_the_broken_row_and_the_renamed_duplicate() -> None:
    df = load_paper_list(FIXTURES / "paper-list-other-names.csv", fields=CSV_FIELDS)
    report = load_report(df)
    assert (report.n_read, report.n_kept) == (6, 5)
    assert [issue.location for issue in report.skipped] == ["line 6"]
    assert "has 10 fields, the header has 7" in report.skipped[0].reason
    assert [issue.location for issue in report.duplicates] == ["line 7"]
    assert "lines 2-3" in report.duplicates[0].reason
    assert df.set_index("id").loc["p-001", "title"] == "Robust Optimisation, Revisited"  # first copy keeps its id
    assert df.set_index("id").loc["p-001#1", "title"] == "Robust Optimisation Again"  # the repeat is kept, renamed


def test_json_object_with_paper_list_and_other_names() -> None:
    df = load_paper_list(FIXTURES / "paper-list-other-names.json", fields=JSON_FIELDS, venue="NeurIPS")
    assert df["id"].tolist() == ["x1", "x2", "x3", "paper-list-other-names-4"]
    assert df["year"].tolist() == [2022, 2022, 2022, 2021]  # "2022" (a string) is read as a year
    assert set(df["venue"]) == {"NeurIPS"}
    assert df.loc[0, "authors"] == "Erwin Example; Max Example"
    assert pd.isna(df.loc[1, "authors"])  # empty list
    assert df.loc[0, "title_clean"] == "Schrödinger Bridges for ℝ^d Generative Models"
    assert df.loc[0, "abstract_clean"] == "We solve Schrödinger bridges in ℝ^d with O(n log n) cost."
    assert df.loc[2, "abstract"] == ""
    assert df.loc[0, "award"] == "outstanding paper"
    report = load_report(df)
    assert (report.n_read, report.n_kept) == (6, 4)
    assert [issue.location for issue in report.skipped] == ["item 2", "item 5"]
    assert "'title' is a dict" in report.skipped[1].reason


def test_jsonl_in_shared_format_skips_a_truncated_line() -> None:
    df = load_paper_list(FIXTURES / "paper-list.jsonl")
    assert df["id"].tolist() == ["icml2024-0000", "icml2024-0001", "icml2024-0003"]
    assert pd.isna(df.loc[1, "title"])  # a null title is kept as missing
    assert df.loc[0, "authors"] == "Ann Example; Ben Example"
    assert df["status"].tolist() == ["Poster", "Oral", "Poster"]
    report = load_report(df)
    assert [issue.location for issue in report.skipped] == ["line 3"]
    assert report.n_missing_abstract == 1


def test_gzip_and_tsv(tmp_path: Path) -> None:
    gz = tmp_path / "papers.jsonl.gz"
    gz.write_bytes(gzip.compress((FIXTURES / "paper-list.jsonl").read_bytes()))
    assert load_paper_list(gz)["id"].tolist() == ["icml2024-0000", "icml2024-0001", "icml2024-0003"]
    tsv = tmp_path / "papers.tsv"
    tsv.write_text("id\ttitle\tabstract\na1\tT, with comma\tAn abstract.\n", encoding="utf-8")
    df = load_paper_list(tsv)
    assert (df.loc[0, "id"], df.loc[0, "title"]) == ("a1", "T, with comma")


def test_line_separator_characters_inside_strings_do_not_split_records(tmp_path: Path) -> None:
    path = tmp_path / "papers.jsonl"
    rows = [{"id": "a", "abstract": "first\u2029paragraph\x0cbreak"}, {"id": "b", "abstract": "second"}]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    df = load_paper_list(path)
    assert df["id"].tolist() == ["a", "b"]
    assert load_report(df).ok


def test_unknown_field_names_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"\['summary'\] are not corpus names"):
        load_paper_list(FIXTURES / "paper-list.jsonl", fields={"summary": "abstract"})
    with pytest.raises(ValueError, match=r"Column 'summary' \(given for 'abstract'\) is not in the input"):
        load_paper_list(FIXTURES / "paper-list.jsonl", fields={"abstract": "summary"})


def test_usual_other_field_names_are_found_and_a_file_without_abstracts_asks_for_a_mapping(tmp_path: Path) -> None:
    df = load_paper_list(FIXTURES / "paper-list-other-names.csv")  # read_corpus's column contract: aliases
    assert df.loc[1, "abstract"] == "Labels are <b>noisy</b> &amp; plentiful." and df.loc[0, "id"] == "p-001"
    path = tmp_path / "no-abstracts.csv"
    path.write_text("id,body\na,some text\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"no abstract column.*\{'abstract': 'summary'\}"):
        load_paper_list(path)


def test_unknown_format_names_the_supported_ones(tmp_path: Path) -> None:
    path = tmp_path / "papers.xlsx"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match=r"\.json, \.jsonl.*load_pmlr"):
        load_paper_list(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="absent.jsonl"):
        load_paper_list(tmp_path / "absent.jsonl")


def test_write_then_load_round_trip(tmp_path: Path) -> None:
    original = parse_pmlr_bibtex(FIXTURES / "pmlr-v235-sample.bib")
    path = write_paper_list(original, tmp_path / "out" / "icml-2024.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    assert len(lines) == 6  # the repeated key too
    assert first["authors"] == ["Jane Smith", "Bernhard Schölkopf", "María González"]
    assert first["year"] == 2024
    assert "title_clean" not in first and "abstract_clean" not in first
    again = load_paper_list(path)
    pd.testing.assert_frame_equal(
        again[original.columns].reset_index(drop=True), original.reset_index(drop=True), check_dtype=False
    )


def test_write_gzip_and_reject_non_corpus_tables(tmp_path: Path) -> None:
    df = load_paper_list(FIXTURES / "paper-list.jsonl")
    path = write_paper_list(df, tmp_path / "x.jsonl.gz")
    assert load_paper_list(path)["id"].tolist() == df["id"].tolist()
    with pytest.raises(ValueError, match="Not a corpus table"):
        write_paper_list(pd.DataFrame({"text": ["a"]}), tmp_path / "bad.jsonl")


@pytest.mark.parametrize(
    "name", ["icml-2026-seed-abstracts.jsonl", "icml-2013-2024.jsonl.gz", "neurips-1987-2018.jsonl.gz"]
)
def test_shared_paper_lists_load_completely(name: str) -> None:
    path = SHARED_DATA / name
    if not path.is_file():
        pytest.skip(f"shared corpus {path} is not present (it lives next to the repository, not in it)")
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", newline="") as fh:  # records end at "\n" only
        raw = [json.loads(line) for line in fh.read().split("\n") if line.strip()]
    df = load_paper_list(path)
    assert df["id"].tolist() == [r["id"] for r in raw]
    report = load_report(df)
    assert report.ok and report.n_read == len(raw)
    assert df["year"].tolist() == [r["year"] for r in raw]
    # control characters are dropped at read time (NeurIPS has C1 bytes of mis-decoded quotes: "\x80\x99")
    controls = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
    assert df["abstract"].tolist() == [controls.sub("", r["abstract"] or "") for r in raw]
    for row, record in zip(df.head(200).itertuples(), raw[:200]):
        names = record.get("authors") or []
        assert (row.authors if isinstance(row.authors, str) else None) == ("; ".join(names) or None)
