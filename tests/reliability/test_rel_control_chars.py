"""Control characters never reach an output file; ids keep their identity (issue 48).

Before, a NUL inside an id and an ANSI escape in a title were written raw into ``documents.csv``: pandas read
the id ``id\\x00with\\x00nul`` back as ``id`` (joins broke) and ``cat documents.csv`` recoloured the terminal.
Now an id holding a control character is refused when the corpus is read (a ``CorpusError`` naming the row and
the fix: an id is never rewritten), and text fields lose their control characters and escape sequences.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

from icml_topics import read_corpus
from icml_topics.corpus.errors import CorpusError
from icml_topics.report import Report
from icml_topics.store.csv_files import write_csv

ESC_RED = "\x1b[31m"
CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # every C0 / C1 control but tab and line breaks


def _frame(**column) -> pd.DataFrame:
    base = {"id": ["a", "b"], "title": ["One", "Two"], "abstract": ["We study bandits.", "We study graphs."]}
    return pd.DataFrame({**base, **column})


@pytest.mark.parametrize(
    "bad", ["id\x00with\x00nul", "id\x1b[31mred", "tab\there", "line\nbreak", "del\x7f", "c1\x85mid"]
)
def test_an_id_with_a_control_character_is_refused_naming_the_row(bad):
    with pytest.raises(CorpusError, match=r"control character.*row 1 .*remove those characters"):
        read_corpus(_frame(id=["fine", bad]))


def test_an_id_with_a_control_character_is_refused_in_a_csv_file(tmp_path):
    path = tmp_path / "papers.csv"
    path.write_bytes(b'id,abstract\nok,We study bandits.\n"id\x00with\x00nul",We study graphs.\n')
    with pytest.raises(CorpusError, match=r"control character"):
        read_corpus(path)


def test_text_fields_lose_control_characters_and_escape_sequences():
    corpus = read_corpus(
        _frame(
            title=[f"{ESC_RED}Red title\x1b[0m", "Bell\x07 and \x00nul"],
            authors=["Ada\x1b]0;pwned\x07 Lovelace", "B\x9b1mob"],
            note=["mine\x1b[2J", "plain"],  # a column of the user's, passed through
        )
    )
    assert corpus["title"].tolist() == ["Red title", "Bell and nul"]
    # an 8-bit C1 introducer is dropped alone (the rest is inert text): real abstracts hold C1 bytes of
    # mis-decoded quotes, and taking one to start a sequence swallowed the text after it
    assert corpus["authors"].tolist() == ["Ada Lovelace", "B1mob"]
    assert corpus["note"].tolist() == ["mine", "plain"]
    assert corpus["abstract"].tolist() == ["We study bandits.", "We study graphs."]


def test_mis_decoded_quotes_lose_their_control_bytes_and_keep_the_text_after_them():
    """NeurIPS 2015 has 'a limited \xe2\x80\x9cblack box\xe2\x80\x9d interpretation' (UTF-8 quotes read as
    Latin-1): \x9d is also the 8-bit OSC introducer, which once swallowed the rest of the abstract."""
    text = "only a limited \xe2\x80\x9cblack box\xe2\x80\x9d interpretation of the scene."
    corpus = read_corpus(_frame(abstract=[f"We study {text}", "We study graphs."]))
    assert corpus["abstract"].tolist()[0] == "We study only a limited \xe2black box\xe2 interpretation of the scene."


def test_the_one_csv_writer_never_writes_a_control_character(tmp_path):
    frame = pd.DataFrame({"na\x1bme": ["x\x00y", f"{ESC_RED}=SUM(A1)", "keep\ttab\nand line"], "n": [1, 2, 3]})
    for safe in (True, False):
        path = write_csv(frame, tmp_path / f"t{safe}.csv", csv_safe=safe)
        raw = path.read_text(encoding="utf-8")
        assert not CONTROLS.search(raw)
        back = pd.read_csv(path)
        assert back.columns[0] == "name"
        assert back.iloc[0, 0] == "xy" and back.iloc[2, 0] == "keep\ttab\nand line"
        assert back.iloc[1, 0] == ("'=SUM(A1)" if safe else "=SUM(A1)")  # stripped first, then escaped


def test_a_report_page_shows_no_control_character(tmp_path):
    frame = pd.DataFrame({"theme\x1b[1m": [f"{ESC_RED}Graph learning"]})
    page = Report("T").add_text(f"A {ESC_RED}note\x00.").add_table(frame, caption="c").to_html()
    body = page[page.index("<body>") :]
    body = body[: body.index("<script") if "<script" in body else len(body)]
    assert not CONTROLS.search(body)
    assert "Graph learning" in body


def test_a_fit_writes_no_control_character_and_keeps_its_ids(seeds_path, tmp_path):
    """End to end: a title with an ANSI colour and a NUL in a seed corpus; documents.csv holds no control byte
    and every id reads back as fitted (the join key)."""
    from icml_topics import TopicMap
    from icml_topics.outputs import write_outputs

    frame = read_corpus(seeds_path).head(80).copy()
    frame["title"] = frame["title"].astype(object)
    frame.loc[frame.index[0], "title"] = f"{ESC_RED}Coloured\x00 title\x1b[0m"
    tm = TopicMap(random_state=0).fit(frame)
    write_outputs(tm, tmp_path / "out", report=False, static_map=False, save_model=False)
    raw = (tmp_path / "out" / "documents.csv").read_text(encoding="utf-8")
    assert not CONTROLS.search(raw) and "Coloured title" in raw
    back = pd.read_csv(tmp_path / "out" / "documents.csv", dtype={"id": str}, keep_default_na=False)
    assert back["id"].tolist() == tm.documents_["id"].astype(str).tolist()
