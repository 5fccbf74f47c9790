"""Property tests of the readers: random Unicode, random bytes and random quoting never raise anything but a
CorpusError, and every input record is accounted for (kept as one row, or listed in the load report)."""

from __future__ import annotations

import string

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icml_topics.corpus import CorpusError, read_corpus, read_file
from icml_topics.corpus.validation import flag_rows

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# cells: any Unicode (zero-width, emoji, ideograms, controls) with quotes, commas and tabs mixed in
CELL = st.text(alphabet=st.one_of(st.characters(blacklist_categories=["Cs"]), st.sampled_from('"",\t\'')), max_size=30)


def _cells_without(chars: str):
    return CELL.map(lambda c: "".join(ch for ch in c if ch not in chars))


@SETTINGS
@given(
    st.lists(
        st.tuples(
            _cells_without("\t\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"),
            _cells_without("\t\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"),
        ),
        min_size=1,
        max_size=25,
    )
)
def test_every_line_of_a_tsv_is_one_row(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("tsv") / "p.tsv"
    path.write_text("title\tabstract\n" + "".join(f"{t}\t{a}\n" for t, a in rows), encoding="utf-8")
    lines = [r for r in rows if any(c.strip() for c in r)]
    try:
        table = read_file(path)
    except CorpusError:
        assert not lines  # only an input without a single record is an error
        return
    report = table.attrs["load_report"]
    assert len(table) + len(report.skipped) == report.n_read == len(lines)
    assert not report.skipped  # no quote swallows or splits a line: quotes are text in a TSV
    assert len(flag_rows(table)) == len(table)  # documents_: one row per row


@SETTINGS
@given(st.lists(st.tuples(CELL, CELL), min_size=1, max_size=25))
def test_every_record_of_a_csv_is_kept_or_reported(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("csv") / "p.csv"
    path.write_text("title,abstract\n" + "".join(f"{t},{a}\n" for t, a in rows), encoding="utf-8")
    try:
        table = read_file(path)
    except CorpusError:
        return
    report = table.attrs["load_report"]
    assert report.n_read == len(table) + len(report.skipped)
    # every physical line is in exactly one record; records spanning lines are listed when they look swallowed
    assert len(flag_rows(table)) == len(table)


@SETTINGS
@given(st.binary(max_size=400), st.sampled_from(["p.csv", "p.tsv", "p.jsonl", "p.json", "p.gz", "p"]))
def test_random_bytes_read_or_raise_a_corpus_error(tmp_path_factory, raw, name):
    path = tmp_path_factory.mktemp("bytes") / name
    path.write_bytes(raw)
    try:
        table = read_file(path)
    except CorpusError:
        return
    report = table.attrs["load_report"]
    assert report.n_read == len(table) + len(report.skipped)


VALUE = st.one_of(
    st.none(),
    st.text(max_size=20),
    st.binary(max_size=20),
    st.lists(st.text(alphabet=string.ascii_letters + " ", max_size=8), max_size=3),
    st.integers(),
    st.floats(allow_nan=True),
)


@SETTINGS
@given(st.lists(st.tuples(VALUE, VALUE), min_size=1, max_size=20))
def test_every_dataframe_row_is_kept_or_reported(rows):
    frame = pd.DataFrame({"title": [t for t, _ in rows], "abstract": [a for _, a in rows]})
    try:
        table = read_corpus(frame)
    except CorpusError:
        return
    undecodable = sum(
        any(isinstance(v, bytes) and not _utf8(v) for v in row) for row in rows
    )  # the only cells a row is skipped for: bytes that are not UTF-8
    assert len(table) == len(rows) - undecodable
    assert not table["abstract"].str.startswith("b'").any()  # bytes decoded, never their repr
    flagged = flag_rows(table)
    assert len(flagged) == len(table)


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    return True
