"""Source strings (pmlr:235, icml:2019-2025, *.bib), fetch_icml and the `icml-topics fetch` command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from icml_topics.datasets import (
    DatasetUnavailableError,
    fetch_icml,
    is_source_spec,
    load_report,
    load_source,
    pmlr_cache_path,
)
from icml_topics.datasets.sources import parse_years

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "datasets"
SAMPLE_BIB = FIXTURES / "pmlr-v235-sample.bib"


pytestmark = pytest.mark.usefixtures("empty_dataset_cache")


def _bib_for(year: int, volume: int, n: int) -> str:
    return "\n".join(
        f"@InProceedings{{pmlr-v{volume}-p{i}{year % 100}a, title = {{Paper {i} of {year}}}, "
        f"author = {{Doe, Jane}}, year = {{{year}}}, volume = {{{volume}}}, abstract = {{Abstract {i}.}}}}"
        for i in range(n)
    )


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    """A cache holding ICML 2023 (3 papers) and ICML 2024 (the 5-paper fixture), nothing else."""
    root = tmp_path / "cache"
    pmlr_cache_path(202, root).parent.mkdir(parents=True)
    pmlr_cache_path(202, root).write_text(_bib_for(2023, 202, 3), encoding="utf-8")
    shutil.copy(SAMPLE_BIB, pmlr_cache_path(235, root))
    return root


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("pmlr:235", True),
        ("PMLR:v235", True),
        ("pmlr:icml2024", True),
        ("icml:2024", True),
        ("icml:2019-2025", True),
        ("openreview:notes.json", True),
        ("proceedings.bib", True),
        ("proceedings.bib.gz", True),
        ("papers.jsonl", False),
        ("data/icml-2024.csv", False),
        ("", False),
    ],
)
def test_is_source_spec(spec: str, expected: bool) -> None:
    assert is_source_spec(spec) is expected


def test_is_source_spec_rejects_non_strings() -> None:
    assert is_source_spec(Path("x.bib")) is False
    assert is_source_spec(235) is False


@pytest.mark.parametrize("spec", ["pmlr:235", "pmlr:v235", "pmlr:icml2024", "pmlr:2024", "icml:2024", " ICML:2024 "])
def test_specs_for_one_volume_load_it_from_the_cache(spec: str, cache: Path) -> None:
    df = load_source(spec, offline=True)
    assert len(df) == 6  # the sample's repeated key is kept, renamed
    assert set(df["year"]) == {2024}


def test_year_range_spec_combines_years(cache: Path) -> None:
    df = load_source("icml:2023-2024", offline=True)
    assert df.groupby("year").size().to_dict() == {2023: 3, 2024: 6}
    assert df["id"].is_unique
    report = load_report(df)
    assert (report.n_read, report.n_kept) == (3 + 7, 9)


def test_bib_path_specs(tmp_path: Path) -> None:
    for spec in (str(SAMPLE_BIB), f"pmlr:{SAMPLE_BIB}"):
        df = load_source(spec)
        assert len(df) == 6 and set(df["venue"]) == {"ICML"} and set(df["year"]) == {2024}


def test_openreview_spec() -> None:
    df = load_source(f"openreview:{FIXTURES / 'openreview-icml2024-notes.json'}")
    assert len(df) == 6 and "primary_area" in df.columns


def test_missing_year_offline_names_the_file_to_download(cache: Path) -> None:
    with pytest.raises(DatasetUnavailableError, match=r"v97/assets/bib/bibliography\.bib"):
        load_source("icml:2019", offline=True)


def test_bad_specs_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="not a source string"):
        load_source("papers.jsonl")
    with pytest.raises(ValueError, match="names nothing after 'pmlr:'"):
        load_source("pmlr:")
    with pytest.raises(ValueError, match="No PMLR volume is known for ICML 2026, 2027, 2028, 2029, 2030 "):
        load_source("icml:2024-2030")


def test_parse_years() -> None:
    assert parse_years("2019-2021") == [2019, 2020, 2021]
    assert parse_years("2024,2019") == [2019, 2024]
    assert parse_years(range(2019, 2022)) == [2019, 2020, 2021]
    assert parse_years(2024) == [2024]
    with pytest.raises(ValueError, match="ends before it starts"):
        parse_years("2025-2019")


def test_fetch_icml_writes_one_file_per_year(cache: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    df = fetch_icml([2024, 2023], out=out, offline=True)
    assert sorted(p.name for p in out.iterdir()) == ["icml-2023.jsonl", "icml-2024.jsonl"]
    lines = (out / "icml-2023.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["title"] for r in records] == ["Paper 0 of 2023", "Paper 1 of 2023", "Paper 2 of 2023"]
    assert records[0]["authors"] == ["Jane Doe"] and records[0]["venue"] == "ICML"
    assert df["year"].tolist() == [2023] * 3 + [2024] * 6  # years in increasing order


def test_fetch_icml_downloads_only_what_is_missing(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def fake_get(url: str, **kwargs: object) -> bytes:
        calls.append(url)
        return _bib_for(2019, 97, 2).encode("utf-8")

    monkeypatch.setattr("icml_topics.datasets.cache.http_get", fake_get)
    df = fetch_icml(range(2019, 2020), cache_dir=cache)
    assert calls == ["https://proceedings.mlr.press/v97/assets/bib/bibliography.bib"]
    assert len(df) == 2
    fetch_icml([2019, 2023, 2024], cache_dir=cache)
    assert len(calls) == 1  # everything is cached now


def test_fetch_icml_lists_every_missing_year_at_once(cache: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(DatasetUnavailableError) as info:
        fetch_icml([2019, 2020, 2024], out=out, offline=True)
    message = str(info.value)
    assert "2 ICML year(s) could not be loaded" in message
    assert str(cache / "pmlr" / "v97.bib") in message and str(cache / "pmlr" / "v119.bib") in message
    assert (out / "icml-2024.jsonl").is_file()  # the available year was still written


def test_read_corpus_accepts_bib_files_and_source_strings(cache: Path) -> None:
    from icml_topics import read_corpus

    for source in (SAMPLE_BIB, str(SAMPLE_BIB), "pmlr:235"):
        df = read_corpus(source)
        assert len(df) == 6  # the sample's repeated key is kept, renamed
        assert "pmlr-v235-smith24a" in set(df["id"])


# --- the `icml-topics fetch` command -------------------------------------------------------------


def _cli() -> typer.Typer:
    """A Typer app holding the real `fetch` command (plus one more, so typer keeps subcommands)."""
    from icml_topics.cli.fetch import fetch

    cli = typer.Typer()
    cli.command("fetch")(fetch)
    cli.command("noop")(lambda: None)
    return cli


def test_fetch_is_registered_on_the_package_app() -> None:
    import icml_topics.cli.fetch  # noqa: F401
    from icml_topics.cli.app import app

    assert "fetch" in [command.name for command in app.registered_commands]


def test_cli_fetch_years_range_writes_files(cache: Path, tmp_path: Path) -> None:
    out = tmp_path / "data"
    result = CliRunner().invoke(
        _cli(), ["fetch", "icml", "--years", "2023", "2024", "--out", str(out), "--cache-dir", str(cache), "--offline"]
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["icml-2023.jsonl", "icml-2024.jsonl"]
    assert "ICML 2023: 3 papers" in result.output
    assert "ICML 2024: 6 papers, 2 without abstract, 1 broken entries skipped, 1 repeated ids renamed" in result.output
    assert "Wrote 9 papers in 2 file(s)" in result.output


def test_cli_fetch_offline_missing_year_exits_1_with_instructions(cache: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        _cli(), ["fetch", "icml", "--year", "2019", "--year", "2024", "--out", str(tmp_path / "o"), "--offline"]
    )
    assert result.exit_code == 1
    assert "ICML 2024: 6 papers" in result.output
    assert "https://proceedings.mlr.press/v97/assets/bib/bibliography.bib" in result.output
    assert str(cache / "pmlr" / "v97.bib") in result.output


def test_cli_fetch_pmlr_volume(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def fake_get(url: str, **kwargs: object) -> bytes:
        assert url == "https://proceedings.mlr.press/v238/assets/bib/bibliography.bib"
        return _bib_for(2024, 238, 4).encode("utf-8")

    monkeypatch.setattr("icml_topics.datasets.cache.http_get", fake_get)
    result = CliRunner().invoke(_cli(), ["fetch", "pmlr", "--volume", "238", "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    records = [json.loads(x) for x in (tmp_path / "o" / "pmlr-v238.jsonl").read_text("utf-8").splitlines()]
    assert len(records) == 4 and records[0]["venue"] == "PMLR v238"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["fetch", "icml"], "say which years"),
        (["fetch", "icml", "--years", "2026", "2027"], "No PMLR volume is known for ICML 2026"),
        (["fetch", "icml", "--years", "2024", "2019"], "the last year comes before the first"),
        (["fetch", "neurips", "--year", "2020"], "unknown collection"),
        (["fetch", "pmlr"], "say which volumes"),
    ],
)
def test_cli_fetch_usage_errors(args: list[str], message: str) -> None:
    result = CliRunner().invoke(_cli(), args)
    assert result.exit_code == 2
    assert message in " ".join(result.output.replace("│", " ").split())
