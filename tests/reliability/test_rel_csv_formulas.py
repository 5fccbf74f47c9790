"""CSV formulas are escaped by default (OWASP CSV injection, issue 38 case 4): a text cell or header starting
with = + - @, a tab, a carriage return or a full-width ＝ ＋ － ＠ is written with a leading ', numbers are not;
``csv_safe=False`` / ``--raw-csv`` writes raw cells. End to end: every CSV of ``icml-topics fit`` and
``icml-topics compare`` opened by LibreOffice shows the planted formula text as text."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from _reliability_helpers import SEEDS, run_cli, session_cache

from icml_topics.report import Report
from icml_topics.store.csv_files import write_csv

HYPERLINK = '=HYPERLINK("http://evil.example","s")'
PLANTED = [HYPERLINK, "+1+1", "-2+3", "@SUM(1,1)", "＝1+1"]


def cells(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


# --- the writer -------------------------------------------------------------------------------------------
ESCAPED = [  # (cell, what the CSV holds), written by hand
    ("=1+1", "'=1+1"),
    ("+1+1", "'+1+1"),
    ("-2+3", "'-2+3"),
    ("@SUM(1,1)", "'@SUM(1,1)"),
    ("\t=1+1", "'\t=1+1"),
    ("\r=1+1", "'\n=1+1"),  # a carriage return first: escaped, then written as a quoted line break
    ("\r\n=1+1", "'\n=1+1"),
    ("＝1+1", "'＝1+1"),
    ("＋1+1", "'＋1+1"),
    ("－2+3", "'－2+3"),
    ("＠SUM(1,1)", "'＠SUM(1,1)"),
]


@pytest.mark.parametrize(("value", "expected"), ESCAPED, ids=[repr(v) for v, _ in ESCAPED])
def test_every_formula_start_is_escaped_by_default(tmp_path, value, expected):
    frame = pd.DataFrame({"title": [value, "plain"], "keywords": [[value, "b"], ["a"]]})
    rows = cells(write_csv(frame, tmp_path / "t.csv"))
    assert rows[1][0] == expected and rows[2] == ["plain", "a"]
    assert rows[1][1] == "'" + value.strip() + "; b"  # a list cell: its items stripped and joined, then escaped


def test_numbers_are_not_text_and_stay_as_they_are(tmp_path):
    frame = pd.DataFrame(
        {
            "diff": [-0.25, 1.5],
            "topic": pd.array([-1, None], dtype="Int64"),
            "text_number": ["-1.5", "+3"],  # a number written as text is not a formula either
            "=total": ["-minus", "x"],  # headers are cells too
        }
    )
    rows = cells(write_csv(frame, tmp_path / "n.csv"))
    assert rows == [
        ["diff", "topic", "text_number", "'=total"],
        ["-0.25", "-1", "-1.5", "'-minus"],
        ["1.5", "", "+3", "x"],
    ]


def test_csv_safe_false_writes_raw_cells(tmp_path):
    frame = pd.DataFrame({"title": [v for v, _ in ESCAPED[:5]] + ["＝1+1"], "=h": range(6)})
    rows = cells(write_csv(frame, tmp_path / "raw.csv", csv_safe=False))
    assert rows[0] == ["title", "=h"]
    assert [r[0] for r in rows[1:]] == ["=1+1", "+1+1", "-2+3", "@SUM(1,1)", "\t=1+1", "＝1+1"]


def test_report_tables_are_escaped_by_default_and_raw_on_request(tmp_path):
    df = pd.DataFrame({"name": ["=1+1", "ok"]})
    (safe,) = Report("T").add_table(df, csv_name="t.csv").write(tmp_path / "a" / "r.html")[1:]
    (raw,) = Report("T").add_table(df, csv_name="t.csv").write(tmp_path / "b" / "r.html", csv_safe=False)[1:]
    assert cells(safe)[1] == ["'=1+1"] and cells(raw)[1] == ["=1+1"]


def test_csv_safe_and_raw_csv_together_are_refused_before_any_work(tmp_path):
    result = run_cli(
        "fit", str(SEEDS), "--out", str(tmp_path / "o"), "--raw-csv", "--csv-safe", cache=tmp_path / "c", process=False
    )
    assert result.returncode != 0
    assert "--raw-csv" in result.stderr and "--csv-safe" in result.stderr, result.stderr
    assert not (tmp_path / "o").exists()


# --- end to end, opened by LibreOffice -------------------------------------------------------------------
FIELDS = ["title", "venue", "status", "area", "id"]


@pytest.fixture(scope="module")
def planted_corpus(real_sample, tmp_path_factory) -> Path:
    """The 240 real abstracts of ``real_sample`` (2019 and 2024), each planted text in each field of 5 papers
    spread over both years (``status`` is read as the review decision, ``area`` as the area)."""
    frame = real_sample.copy()
    frame["status"] = ["Accept (poster)" if i % 3 else "Reject" for i in range(len(frame))]
    frame["area"] = ["Deep Learning" if i % 2 else "Optimization" for i in range(len(frame))]
    for f, field in enumerate(FIELDS):
        for k, text in enumerate(PLANTED):
            frame.loc[(f * len(PLANTED) + k) * 9 + 1, field] = text
    path = tmp_path_factory.mktemp("planted") / "planted.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in frame.to_dict("records")), encoding="utf-8")
    return path


def soffice_round_trip(folder: Path, work: Path) -> dict[str, Path]:
    """Every CSV under ``folder`` opened by LibreOffice Calc and saved again as CSV (formulas evaluated on
    opening, as a user opening the file gets them); returns {relative path: converted file}."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.skip("LibreOffice is not installed (make test installs it: apt-get install libreoffice-calc-nogui)")
    files = sorted(folder.rglob("*.csv"))
    assert len({f.name for f in files}) == len(files)
    outdir = work / f"lo-{folder.name}"
    result = subprocess.run(
        [
            soffice,
            f"-env:UserInstallation={(work / 'lo-profile').as_uri()}",
            "--headless",
            "--infilter=CSV:44,34,76,1",  # comma, double quote, UTF-8, from line 1
            "--convert-to",
            "csv:Text - txt - csv (StarCalc):44,34,76,1",
            "--outdir",
            str(outdir),
            *map(str, files),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return {str(f.relative_to(folder)): outdir / f.name for f in files}


def planted_counts(path: Path) -> Counter:
    """How many cells of ``path`` show each planted text (a leading ' of an escaped cell ignored)."""
    found = Counter()
    for row in cells(path):
        for cell in row:
            text = cell[1:] if cell.startswith("'") else cell
            if text in PLANTED:
                found[text] += 1
    return found


@pytest.fixture(scope="module")
def cli_outputs(planted_corpus, tmp_path_factory) -> Path:
    """``icml-topics fit`` and ``icml-topics compare --by year`` on the planted corpus (session cache), in this
    process (the files they write are the point, not the process)."""
    root = tmp_path_factory.mktemp("cli")
    fit = run_cli(
        "fit", str(planted_corpus), "--out", str(root / "fit"), "--maps", "none", cache=session_cache(), process=False
    )
    assert fit.returncode == 0, fit.stderr
    cmp = run_cli(
        "compare", str(planted_corpus), "--by", "year", "--no-align", "--out", str(root / "compare"),
        cache=session_cache(), process=False,
    )  # fmt: skip
    assert cmp.returncode == 0, cmp.stderr
    return root


@pytest.mark.parametrize("command", ["fit", "compare"])
def test_every_csv_opened_by_libreoffice_shows_the_formula_text(cli_outputs, command, tmp_path):
    folder = cli_outputs / command
    converted = soffice_round_trip(folder, tmp_path)
    assert "documents.csv" in converted
    for name, opened in converted.items():
        written = planted_counts(folder / name)
        # every cell holding a planted text shows it as text in LibreOffice (a formula shows its value: s) ...
        assert planted_counts(opened) == written, f"{command}/{name} as LibreOffice shows it"
        # ... and holds it with its leading ' (as a text editor shows the file)
        escaped = Counter(c[1:] for row in cells(folder / name) for c in row if c[:1] == "'" and c[1:] in PLANTED)
        assert escaped == written, f"{command}/{name}: unescaped formula cells"
    documents = planted_counts(folder / "documents.csv")
    assert all(documents[t] >= 4 for t in PLANTED), documents  # title, venue, decision, area, id
    if command == "compare":
        assert all(planted_counts(folder / "theme_areas.csv")[t] >= 1 for t in PLANTED)


def test_raw_csv_opt_out_writes_formulas_that_libreoffice_runs(cli_outputs, planted_corpus, tmp_path):
    """The opt-out (Python API ``csv_safe=False``; the CLI's fit again, from the session's caches) writes raw
    cells, and LibreOffice runs them: the check above would see a formula."""
    from icml_topics.outputs import write_outputs
    from icml_topics.workflows import compare

    result = compare(
        planted_corpus, by="year", align=False, out=tmp_path / "raw-compare", csv_safe=False, random_state=42
    )
    write_outputs(result.model, tmp_path / "raw-fit", csv_safe=False, report=False, save_model=False, static_map=False)
    for folder in (tmp_path / "raw-fit", tmp_path / "raw-compare"):
        rows = cells(folder / "documents.csv")
        raw = Counter(c for row in rows for c in row if c in PLANTED)
        assert all(raw[t] >= 4 for t in PLANTED), raw
        opened = soffice_round_trip(folder, tmp_path)["documents.csv"]
        shown = [c for row in cells(opened) for c in row]
        assert HYPERLINK not in shown and "s" in shown  # LibreOffice ran the formula
