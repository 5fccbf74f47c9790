"""Delimited files are read as their dialect (TSV: quotes are text; CSV: standard quoting), no quote
swallows lines silently, cells of any size are read, and encodings / compressions are recognised by
their bytes, not guessed from the file name."""

from __future__ import annotations

import bz2
import logging
import lzma

import pandas as pd
import pytest

from icml_topics.corpus import CorpusError, read_file


def hand_written(path, sep: str, abstracts: dict[int, str], n: int = 200):
    lines = [sep.join(["id", "title", "abstract"])]
    for i in range(n):
        lines.append(sep.join([f"p{i}", f"Title {i}", abstracts.get(i, f"We study problem {i} and report results.")]))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_tsv_with_an_unmatched_quote_keeps_every_paper_and_its_quotes(tmp_path, caplog):
    odd = '"Why Should I Trust You?" explains classifiers. A "quote that never closes'
    path = hand_written(tmp_path / "papers.tsv", "\t", {10: odd, 11: '"opening only', 58: 'ends with 12"'})
    with caplog.at_level(logging.WARNING):
        table = read_file(path)
    report = table.attrs["load_report"]
    assert len(table) == 200 and report.ok and report.n_read == 200
    assert table["abstract"].iloc[10] == odd and table["abstract"].iloc[11] == '"opening only'
    assert table["abstract"].str.len().max() < 100  # nothing swallowed
    assert not caplog.records


def test_a_quote_in_a_tsv_title_keeps_every_paper(tmp_path):
    path = tmp_path / "papers.tsv"
    rows = ["id\ttitle\tabstract"] + [f"p{i}\tTitle {i}\tWe study problem {i} here." for i in range(200)]
    rows[5] = 'p4\t"Why Should I Trust You?\tWe explain classifiers.'
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    table = read_file(path)
    assert len(table) == 200 and table.attrs["load_report"].ok
    assert table["title"].iloc[4] == '"Why Should I Trust You?'


def test_a_csv_with_an_unmatched_quote_keeps_every_paper_and_says_where(tmp_path, caplog):
    path = hand_written(tmp_path / "papers.csv", ",", {10: '"An opening quote that never closes', 58: 'a "X" here'})
    with caplog.at_level(logging.WARNING):
        table = read_file(path)
    report = table.attrs["load_report"]
    assert len(table) == 200 and report.n_kept == 200 and not report.skipped
    assert table["abstract"].iloc[10] == '"An opening quote that never closes'
    assert [issue.location for issue in report.quoting] == ["line 12"]
    assert "line 12" in caplog.text and "quoting problem" in caplog.text


def test_a_csv_quote_that_swallows_whole_records_is_warned_with_the_exact_lines(tmp_path, caplog):
    # the quote opened on line 12 closes at the end of line 61 (an inches mark): standard quoting reads
    # lines 12-61 as one record; the other 49 lines look like records of their own and are counted
    path = hand_written(tmp_path / "papers.csv", ",", {10: '"Opening quote', 59: 'a 12"'})
    with caplog.at_level(logging.WARNING):
        table = read_file(path)
    report = table.attrs["load_report"]
    assert len(table) == 151 and report.n_read == 151
    (issue,) = report.quoting
    assert issue.location == "lines 12-61" and "50 lines, 49 of which look like records" in issue.reason
    assert "lines 12-61" in caplog.text


def test_a_pandas_written_tsv_reads_back_exactly(tmp_path):
    frame = pd.DataFrame(
        {
            "id": ["a", "b", "c"],
            "title": ['He said "hi"', "tab\tinside", "plain"],
            "abstract": ['two\nlines "quoted"', '"whole" cell', "We study things."],
        }
    )
    frame.to_csv(tmp_path / "p.tsv", sep="\t", index=False)
    table = read_file(tmp_path / "p.tsv")
    assert table["title"].tolist() == frame["title"].tolist()
    assert table["abstract"].tolist() == frame["abstract"].tolist()
    assert table.attrs["load_report"].ok


def test_a_csv_cell_of_187600_characters_is_read(tmp_path):
    text = ("word " * 37_520).strip() + "!"
    assert len(text) == 187_600
    pd.DataFrame({"id": ["a", "b"], "abstract": [text, "short one here"]}).to_csv(tmp_path / "big.csv", index=False)
    table = read_file(tmp_path / "big.csv")
    assert table["abstract"].tolist() == [text, "short one here"]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_utf16_with_a_byte_order_mark_is_read(tmp_path, encoding):
    text = "id,abstract\n1,Café networks learn.\n"
    raw = text.encode(encoding) if encoding == "utf-16" else b"\xfe\xff" + text.encode(encoding)
    (tmp_path / "u.csv").write_bytes(raw)
    assert read_file(tmp_path / "u.csv")["abstract"].tolist() == ["Café networks learn."]


def test_utf16_without_a_byte_order_mark_is_named(tmp_path):
    (tmp_path / "u.csv").write_bytes("id,abstract\n1,Caf\u00e9 networks.\n".encode("utf-16-le"))
    with pytest.raises(CorpusError, match="UTF-16"):
        read_file(tmp_path / "u.csv")


@pytest.mark.parametrize(("name", "pack"), [("p.jsonl.gz", bz2.compress), ("p.jsonl.xz", lzma.compress)])
def test_compressed_data_is_recognised_by_its_bytes(tmp_path, name, pack):
    (tmp_path / name).write_bytes(pack(b'{"id": "1", "abstract": "We compress things."}\n'))
    assert read_file(tmp_path / name, kind=".jsonl")["abstract"].tolist() == ["We compress things."]


def test_a_zip_archive_is_named(tmp_path):
    import zipfile

    with zipfile.ZipFile(tmp_path / "p.csv", "w") as archive:
        archive.writestr("p.csv", "id,abstract\n1,x\n")
    with pytest.raises(CorpusError, match="zip archive"):
        read_file(tmp_path / "p.csv")
