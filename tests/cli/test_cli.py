"""The icml-topics command: demo, fit on every kind of input, and clear errors for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from icml_topics.cli import app

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def check_outputs(out: Path, n_rows: int) -> pd.DataFrame:
    for name in ("documents.csv", "topics.csv", "themes.csv", "report.html", "model/model.json"):
        assert (out / name).is_file(), name
    docs = pd.read_csv(out / "documents.csv")
    assert len(docs) == n_rows
    for col in ("id", "venue", "year", "title", "topic", "topic_label", "theme", "x", "y"):
        assert col in docs.columns
    topics = pd.read_csv(out / "topics.csv")
    assert list(topics.columns[:3]) == ["topic", "label", "theme"] and {"size", "keywords"} <= set(topics.columns)
    assert external_resources((out / "report.html").read_text(encoding="utf-8")) == []
    return docs


def external_resources(html: str) -> list[str]:
    """src/href attributes of the page's tags (script bodies, e.g. plotly.js, are not tags)."""
    from html.parser import HTMLParser

    found: list[str] = []

    class Collector(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.extend(
                v for k, v in attrs if k in {"src", "href"} and v and not v.startswith(("#", "data:", "tables/"))
            )

    Collector().feed(html)
    return found


def test_help_explains_the_commands():
    result = subprocess.run([sys.executable, "-m", "icml_topics", "--help"], capture_output=True, text=True, check=True)
    for command in ("demo", "fit", "compare", "fetch"):
        assert command in result.stdout


def test_demo_writes_a_report_offline(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    result = run("demo", "--out", str(tmp_path / "demo"))
    assert result.exit_code == 0, result.output
    docs = check_outputs(tmp_path / "demo", 38)
    assert (docs["theme"].fillna("") != "").mean() >= 0.9
    assert "Report:" in result.output


def test_fit_keeps_every_row_with_reasons(tmp_path, seeds_path):
    seeds = pd.read_json(seeds_path, lines=True)
    extra = pd.DataFrame(
        {"id": ["empty-1", "dup-1"], "venue": "ICML", "year": 2026, "abstract": ["   ", seeds["abstract"].iloc[0]]}
    )
    path = tmp_path / "papers.csv"
    pd.concat([seeds.drop(columns=["authors"]), extra], ignore_index=True).to_csv(path, index=False)
    result = run("fit", str(path), "--out", str(tmp_path / "out"), "-q")
    assert result.exit_code == 0, result.output
    docs = check_outputs(tmp_path / "out", len(seeds) + 2).set_index("id")
    assert docs.loc["empty-1", "status"] == "dropped" and docs.loc["empty-1", "drop_reason"] == "empty abstract"
    assert docs.loc["dup-1", "duplicate_of"] == seeds["id"].iloc[0] and docs.loc["dup-1", "status"] == "ok"


def test_fit_on_a_pmlr_bibtex_fixture(tmp_path):
    bib = FIXTURES / "datasets" / "pmlr-v235-sample.bib"
    result = run("fit", str(bib), "--out", str(tmp_path / "pmlr"), "-q")
    assert result.exit_code == 0, result.output
    docs = pd.read_csv(tmp_path / "pmlr" / "documents.csv")
    assert (docs["status"] == "ok").sum() >= 3
    assert (docs["year"] == 2024).all()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"title,body\nA,some text here\n", "no abstract column"),
        ("abstract\nr\xe9sum\xe9 fran\xe7ais ici\n".encode("latin-1"), "not valid UTF-8"),
        (b"abstract\nonly\n", "Only 0 of 1 rows have an abstract"),
    ],
)
def test_bad_input_exits_with_one_clear_line(tmp_path, content, expected):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    result = runner.invoke(app, ["fit", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert expected in result.output and "Traceback" not in result.output


def test_missing_input_file(tmp_path):
    result = runner.invoke(app, ["fit", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "not found" in result.output


def test_custom_taxonomy_file(tmp_path, seeds_path):
    taxonomy = tmp_path / "areas.yaml"
    taxonomy.write_text(
        json.dumps(
            {
                "themes": [
                    {
                        "name": "Learning to act",
                        "description": "reinforcement learning, agents, rewards and policies",
                        "seeds": ["policy optimization"],
                    },
                    {
                        "name": "Language models",
                        "description": "large language models, reasoning, prompting",
                        "seeds": ["LLM"],
                    },
                    {
                        "name": "Other methods",
                        "description": "machine learning methods and theory",
                        "seeds": ["neural networks"],
                    },
                ]
            }
        ),
        encoding="utf-8",
    )
    result = run("fit", str(seeds_path), "--out", str(tmp_path / "t"), "--taxonomy", str(taxonomy), "-q")
    assert result.exit_code == 0, result.output
    themes = pd.read_csv(tmp_path / "t" / "themes.csv")
    assert set(themes["theme"]) <= {"Learning to act", "Language models", "Other methods"} | {
        t for t in themes["theme"] if t.startswith("Other: ")
    }


def _pandas_bug(*args, **kwargs):
    """A fault inside a library the CLI uses: a KeyError raised by pandas itself, not by icml_topics."""
    return pd.DataFrame({"a": [1]})["no such column"]


def test_an_internal_bug_shows_a_traceback_and_debug_shows_all_of_it(tmp_path, seeds_path, monkeypatch):
    monkeypatch.setattr("icml_topics.workflows.read_corpus", _pandas_bug)
    args = ["fit", str(seeds_path), "--out", str(tmp_path / "o")]
    short, full = runner.invoke(app, args), runner.invoke(app, [*args, "--debug"])
    for result in (short, full):
        assert result.exit_code == 1, result.output
        assert "Traceback (most recent call last)" in result.output
        assert "internal error: KeyError" in result.output and "not a problem with your input" in result.output
    assert "_pandas_bug" in full.output and "cli/fit.py" in full.output  # the whole stack, from the command down
    assert "--debug shows all" in short.output and "--debug shows all" not in full.output
    assert not (tmp_path / "o").exists()


def test_a_library_error_stays_one_line_and_debug_adds_its_traceback(tmp_path):
    args = ["fit", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "o")]
    plain, debug = runner.invoke(app, args), runner.invoke(app, [*args, "--debug"])
    assert plain.exit_code == debug.exit_code == 2
    assert "not found" in plain.output and "Traceback" not in plain.output
    assert "Traceback (most recent call last)" in debug.output and "InputNotFoundError" in debug.output
