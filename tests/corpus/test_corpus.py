"""Reading inputs and flagging rows: every input row is kept, bad input gets a message with the fix."""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest

from icml_topics.corpus import CorpusError, clean_text, flag_rows, read_corpus, read_file


def write_jsonl(path, records):
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


RECORDS = [
    {
        "id": "a",
        "venue": "ICML",
        "year": 2024,
        "title": "Graph nets",
        "abstract": "We study graph neural networks.",
        "authors": ["A B", "C D"],
        "status": "Oral",
    },
    {
        "id": "b",
        "venue": "ICML",
        "year": 2024,
        "title": "Diffusion",
        "abstract": "Score-based diffusion models generate images.",
        "authors": [],
        "status": "Poster",
    },
]


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz", ".json", ".csv", ".parquet"])
def test_reads_every_format_into_the_corpus_table(tmp_path, suffix):
    path = tmp_path / f"papers{suffix}"
    frame = pd.DataFrame(RECORDS)
    if suffix == ".jsonl":
        write_jsonl(path, RECORDS)
    elif suffix == ".jsonl.gz":
        path.write_bytes(gzip.compress("\n".join(json.dumps(r) for r in RECORDS).encode()))
    elif suffix == ".json":
        path.write_text(json.dumps(RECORDS), encoding="utf-8")
    elif suffix == ".csv":
        frame.assign(authors=frame["authors"].map("; ".join)).to_csv(path, index=False)
    else:
        frame.to_parquet(path)
    corpus = read_corpus(path)
    assert list(corpus.columns[:6]) == ["id", "venue", "year", "title", "abstract", "authors"]
    assert corpus["id"].tolist() == ["a", "b"]
    assert corpus["year"].tolist() == [2024, 2024]
    assert corpus.loc[0, "authors"] == "A B; C D"
    # the input's Poster/Oral "status" must not collide with the model's status column: it is the decision
    assert corpus["decision"].tolist() == ["Oral", "Poster"] and "status" not in corpus.columns


def test_dataframe_list_of_strings_and_column_mapping():
    corpus = read_corpus(["first abstract about kernels", "second abstract about bandits"])
    assert corpus["abstract"].tolist() == ["first abstract about kernels", "second abstract about bandits"]
    assert corpus["id"].tolist() == ["doc-0", "doc-1"]
    frame = pd.DataFrame({"summary": ["x y z"], "pub_year": ["2019"], "paper": ["P"]})
    mapped = read_corpus(frame, columns={"title": "paper"})
    assert mapped.loc[0, "abstract"] == "x y z" and mapped.loc[0, "year"] == 2019 and mapped.loc[0, "title"] == "P"


def test_several_inputs_are_combined_with_unique_ids(tmp_path):
    a = write_jsonl(tmp_path / "a.jsonl", RECORDS)
    corpus = read_corpus([a, a])
    assert len(corpus) == 4
    assert corpus["id"].is_unique


def test_missing_abstract_column_names_the_columns_found(tmp_path):
    path = tmp_path / "p.csv"
    pd.DataFrame({"name": ["x"], "body_text": ["y"]}).to_csv(path, index=False)
    with pytest.raises(CorpusError) as err:
        read_corpus(path)
    message = str(err.value)
    assert "no abstract column" in message and "body_text" in message and "columns={'abstract'" in message


def test_mapped_column_that_does_not_exist(tmp_path):
    with pytest.raises(CorpusError, match="'summary'.*Columns found"):
        read_corpus(pd.DataFrame({"abstract": ["x"]}), columns={"abstract": "summary"})


def test_non_utf8_file_says_how_to_convert(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("abstract\nun r\xe9sum\xe9 fran\xe7ais\n".encode("latin-1"))
    with pytest.raises(CorpusError, match="not valid UTF-8.*iconv"):
        read_corpus(path)


def test_broken_jsonl_line_is_skipped_and_named(tmp_path, caplog):
    # the one rule for unreadable records (docs/architecture.md): skipped, named in a warning and the load report
    path = tmp_path / "bad.jsonl"
    path.write_text('{"abstract": "ok"}\n{"abstract": broken\n{"abstract": "fine too"}\n', encoding="utf-8")
    corpus = read_corpus(path)
    assert corpus["abstract"].tolist() == ["ok", "fine too"]
    assert corpus["id"].tolist() == ["bad-0", "bad-2"]  # generated ids keep the record's number
    report = read_file(path).attrs["load_report"]  # read_corpus's table carries no attrs (they would reach Parquet)
    assert [issue.location for issue in report.skipped] == ["line 2"] and "invalid JSON" in report.skipped[0].reason
    assert "line 2" in caplog.text and not corpus.attrs
    only_broken = tmp_path / "worse.jsonl"
    only_broken.write_text('{"abstract": broken\n', encoding="utf-8")
    with pytest.raises(CorpusError, match="no readable record.*line 1"):
        read_corpus(only_broken)


def test_repeated_ids_are_kept_renamed_and_reported(tmp_path, caplog):
    path = write_jsonl(tmp_path / "p.jsonl", [RECORDS[0], RECORDS[1], RECORDS[0]])
    corpus = read_corpus(path)
    assert corpus["id"].tolist() == ["a", "b", "a#1"]
    assert "line 3: repeats the id 'a' of line 1" in caplog.text
    (issue,) = read_file(path).attrs["load_report"].duplicates
    assert issue.location == "line 3" and "line 1" in issue.reason and "identical copy" in issue.reason


def test_missing_file_and_empty_file(tmp_path):
    with pytest.raises(CorpusError, match="not found"):
        read_corpus(tmp_path / "nope.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(CorpusError, match="empty"):
        read_corpus(empty)


def test_bad_year_values_are_reported():
    with pytest.raises(CorpusError, match="not years.*'twenty'"):
        read_corpus(pd.DataFrame({"abstract": ["a b c"], "year": ["twenty"]}))


def test_flag_rows_drops_empty_and_flags_duplicates():
    corpus = read_corpus(
        pd.DataFrame(
            {
                "id": ["p1", "p2", "p3", "p4", "p5"],
                "title": ["Bandits", None, "Bandits", None, None],
                "abstract": [
                    "Regret bounds for bandits.",
                    "   \n ",
                    "Regret bounds for bandits.",
                    "<p></p>",
                    "Only two",
                ],
            }
        )
    )
    flagged = flag_rows(corpus)
    assert flagged["status"].tolist() == ["ok", "dropped", "ok", "dropped", "dropped"]
    assert flagged["drop_reason"].tolist()[1] == "empty abstract"
    assert flagged["drop_reason"].tolist()[3] == "empty abstract"  # markup only
    assert "shorter than" in flagged["drop_reason"].tolist()[4]
    assert flagged["duplicate_of"].tolist() == ["", "", "p1", "", ""]
    assert flagged["text"].iloc[0] == "Bandits. Regret bounds for bandits."


def test_clean_text_strips_markup_and_latex_but_keeps_words():
    assert clean_text("We bound the <i>regret</i> by $O(\\sqrt{T})$ in Erd{\\H{o}}s graphs.") == (
        "We bound the regret by O(√(T)) in Erdős graphs."
    )
    assert clean_text("an $\\ell_1$-penalty &amp; 50\\% gains\n\nnext") == "an ℓ_1-penalty and 50% gains next"
    assert clean_text("broken $ math \\frac{ unbalanced") == "broken math unbalanced"
    assert clean_text(None) == "" and clean_text(float("nan")) == ""


def test_real_corpora_read_completely(icml_path, seeds_path):
    icml = read_corpus(icml_path)
    assert len(icml) == 5630 and icml["id"].is_unique
    flagged = flag_rows(read_corpus([icml_path, seeds_path]))
    assert len(flagged) == 5630 + 38
    assert (flagged["status"] == "ok").all()
    # LaTeX from real abstracts is gone from the modelled text
    assert not flagged["text"].str.contains(r"\$|\\[a-z]+\{", regex=True).any()


def test_neurips_file_with_paragraph_separators_reads_every_row():
    from conftest import NEURIPS, require

    corpus = read_corpus(require(NEURIPS))
    assert len(corpus) == 8057


def test_json_and_jsonl_with_the_wrong_suffix_are_still_read(tmp_path):
    lines = tmp_path / "papers.json"  # JSON lines under a .json name
    write_jsonl(lines, RECORDS)
    pretty = tmp_path / "papers.jsonl"  # one pretty-printed JSON document under a .jsonl name
    pretty.write_text(json.dumps({"results": RECORDS}, indent=2), encoding="utf-8")
    assert read_corpus(lines)["id"].tolist() == read_corpus(pretty)["id"].tolist() == ["a", "b"]


def test_a_mapped_column_keeps_the_input_column_it_replaces():
    frame = pd.DataFrame({"abstract": ["short"], "summary": ["the longer summary of the paper"]})
    corpus = read_corpus(frame, columns={"abstract": "summary"})
    assert corpus.loc[0, "abstract"] == "the longer summary of the paper"
    assert corpus.loc[0, "original_abstract"] == "short"  # nothing the input held is lost


def test_a_row_whose_title_is_a_list_keeps_its_row_and_a_mapping_is_unreadable(tmp_path, caplog):
    path = write_jsonl(tmp_path / "p.jsonl", [RECORDS[0], {**RECORDS[1], "title": ["two", "parts"]}])
    corpus = read_corpus(path)
    assert corpus["id"].tolist() == ["a", "b"] and corpus["title"].iloc[1] == "two parts"  # joined, never dropped
    path = write_jsonl(tmp_path / "q.jsonl", [RECORDS[0], {**RECORDS[1], "title": {"not": "text"}}])
    assert read_corpus(path)["id"].tolist() == ["a"]
    assert "line 2: 'title' is a dict, expected text" in caplog.text


def test_the_input_s_own_text_columns_are_pandas_string_as_in_documents(tmp_path):
    """``decision`` (an input ``status``), ``source`` and any other column of text get the ``string`` dtype
    that ``documents_`` gives them (they were ``object`` here and ``string`` there); other columns keep theirs."""
    from icml_topics import tables

    rows = [
        {"id": "a", "abstract": "Graph networks pass messages between nodes.", "status": "oral", "source": "pmlr",
         "pages": 12, "keywords": ["graphs", "gnn"]},
        {"id": "b", "abstract": "Bandits explore and exploit.", "status": None, "source": "openreview",
         "pages": 8, "keywords": ["bandits"]},
    ]  # fmt: skip
    path = tmp_path / "papers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    corpus = read_corpus(path)
    assert str(corpus["decision"].dtype) == "string" and str(corpus["source"].dtype) == "string"
    assert corpus["decision"].isna().tolist() == [False, True]
    assert corpus["pages"].dtype.kind == "i" and corpus["keywords"].dtype == object
    for frame in (read_corpus(pd.DataFrame(rows)), read_corpus([path, path])):
        assert str(frame["decision"].dtype) == "string" and str(frame["source"].dtype) == "string"
    assert "_holds_text" not in dir(tables)  # one owner of the rule: schema.with_text_dtypes
