"""PMLR BibTeX parsing: fixture with accents, maths, HTML, missing abstracts, duplicates, broken entries."""

from __future__ import annotations

import gzip
import logging
from pathlib import Path

import pandas as pd
import pytest

from icml_topics.datasets import (
    ICML_PMLR_VOLUMES,
    LoadReport,
    load_pmlr,
    load_report,
    parse_pmlr_bibtex,
    pmlr_bibtex_url,
)
from icml_topics.datasets.pmlr import format_bibtex_authors, resolve_pmlr_volume

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "datasets"
SAMPLE_BIB = FIXTURES / "pmlr-v235-sample.bib"


pytestmark = pytest.mark.usefixtures("empty_dataset_cache")


@pytest.fixture(scope="module")
def sample() -> pd.DataFrame:
    return parse_pmlr_bibtex(SAMPLE_BIB)


def test_sample_rows_in_input_order_with_corpus_columns(sample: pd.DataFrame) -> None:
    assert sample["id"].tolist() == [
        "pmlr-v235-smith24a",
        "pmlr-v235-doe24b",
        "pmlr-v235-lee24c",
        "pmlr-v235-smith24a#1",  # a repeated key is kept, renamed (the one rule of docs/architecture.md)
        "pmlr-v235-wang24e",
        "pmlr-v235-muller24f",
    ]
    assert sample.columns[:8].tolist() == [
        "id", "venue", "year", "title", "abstract", "authors", "title_clean", "abstract_clean",
    ]  # fmt: skip
    assert str(sample["year"].dtype) == "Int64"
    assert sample["year"].tolist() == [2024] * 6
    assert set(sample["venue"]) == {"ICML"}


def test_report_counts_every_entry(sample: pd.DataFrame) -> None:
    report = load_report(sample)
    assert isinstance(report, LoadReport)
    assert (report.n_read, report.n_kept) == (7, 6)
    assert report.n_read == report.n_kept + len(report.skipped)
    assert report.n_missing_abstract == 2
    assert [issue.location for issue in report.ignored] == ["entry 'ICML-2024' (line 1)"]


def test_broken_entry_is_reported_and_the_entries_after_it_survive(sample: pd.DataFrame) -> None:
    report = load_report(sample)
    assert len(report.skipped) == 1
    location, reason = report.skipped[0]
    assert location == "entry 'pmlr-v235-broken24d' (line 53)"
    assert "malformed BibTeX" in reason
    assert "pmlr-v235-broken24d" not in set(sample["id"])
    # the two entries that follow the broken one in the file are intact
    assert sample.set_index("id").loc["pmlr-v235-wang24e", "title"] == "Diffusion Models for Protein Design"
    assert sample.set_index("id").loc["pmlr-v235-muller24f", "authors"] == "Klaus Müller; José René"


def test_duplicate_key_keeps_both_entries_and_renames_the_second(sample: pd.DataFrame) -> None:
    report = load_report(sample)
    assert len(report.duplicates) == 1
    location, reason = report.duplicates[0]
    assert location == "entry 'pmlr-v235-smith24a' (line 61)"
    assert "line 10" in reason and "differs" in reason and "'pmlr-v235-smith24a#1'" in reason
    assert sample["id"].tolist().count("pmlr-v235-smith24a#1") == 1
    first = sample.set_index("id").loc["pmlr-v235-smith24a"]
    assert first["title_bibtex"] == r"Sparse {B}ayesian Regression with an $\ell_1$ Prior"  # as written
    assert first["title"] == "Sparse Bayesian Regression with an ℓ_1 Prior"  # as read


def test_original_text_kept_and_cleaned_text_added(sample: pd.DataFrame) -> None:
    row = sample.set_index("id").loc["pmlr-v235-smith24a"]
    assert r"$O(\sqrt{T})$" in row["abstract"]
    assert r"Sch{\"o}lkopf" in row["abstract"]
    assert row["title_clean"] == "Sparse Bayesian Regression with an ℓ_1 Prior"
    assert row["abstract_clean"] == (
        "We prove an O(√(T)) regret bound for Bayesian optimisation with an ℓ_1 penalty, improving "
        "prior work by 12% on average. Our analysis follows Schölkopf's kernel view and needs no tuning."
    )


def test_html_is_stripped_in_the_clean_column_only(sample: pd.DataFrame) -> None:
    row = sample.set_index("id").loc["pmlr-v235-doe24b"]
    assert row["abstract"].startswith("<p>Transformers are <em>everywhere</em>.")
    assert row["abstract_clean"] == (
        "Transformers are everywhere. We show that attention & memory trade off when n < d. Code: github."
    )


def test_unescaped_percent_and_tilde_do_not_eat_text(sample: pd.DataFrame) -> None:
    row = sample.set_index("id").loc["pmlr-v235-wang24e"]
    assert row["abstract_clean"] == (
        "Diffusion models design proteins that fold in silico; 5% of designs are validated in the lab. "
        "We release R&D notes."
    )


def test_missing_abstracts_are_kept_as_empty_strings(sample: pd.DataFrame) -> None:
    by_id = sample.set_index("id")
    assert by_id.loc["pmlr-v235-lee24c", "abstract"] == ""  # no abstract field
    assert by_id.loc["pmlr-v235-muller24f", "abstract"] == ""  # abstract = {}
    assert by_id.loc["pmlr-v235-muller24f", "title_clean"] == "Kernel Methods for Škoda Time Series"


def test_authors_are_first_last_and_decoded(sample: pd.DataFrame) -> None:
    by_id = sample.set_index("id")
    assert by_id.loc["pmlr-v235-smith24a", "authors"] == "Jane Smith; Bernhard Schölkopf; María González"
    assert by_id.loc["pmlr-v235-wang24e", "authors"] == "Li Wang; Anna van der Berg"


def test_extra_bibtex_fields_are_kept(sample: pd.DataFrame) -> None:
    row = sample.set_index("id").loc["pmlr-v235-smith24a"]
    assert row["url"] == "https://proceedings.mlr.press/v235/smith24a.html"
    assert row["pdf"].endswith("/smith24a.pdf")
    assert row["pages"] == "1--12"
    assert row["volume"] == "235"
    # an entry without a pdf field gets a missing value, not another entry's value
    assert pd.isna(sample.set_index("id").loc["pmlr-v235-muller24f", "pdf"])


def test_warning_is_logged_for_left_out_entries(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="icml_topics"):
        parse_pmlr_bibtex(SAMPLE_BIB)
    messages = [r.getMessage() for r in caplog.records if r.name.startswith("icml_topics")]
    assert len(messages) == 1
    assert "1 skipped" in messages[0] and "1 repeated id renamed" in messages[0]
    assert "pmlr-v235-broken24d" in messages[0]


def test_clean_input_logs_no_warning(caplog: pytest.LogCaptureFixture) -> None:
    text = "@InProceedings{k1, title = {T}, author = {A, B}, year = {2020}, abstract = {x}}\n"
    with caplog.at_level(logging.WARNING, logger="icml_topics"):
        df = parse_pmlr_bibtex(text)
    assert load_report(df).ok
    assert not [r for r in caplog.records if r.name.startswith("icml_topics")]


def test_broken_last_entry_is_skipped_without_losing_earlier_ones() -> None:
    text = (
        "@InProceedings{ok1, title = {Fine}, author = {A, B}, year = {2021}, abstract = {Kept.}}\n\n"
        "@InProceedings{bad2, title = {Never closed, author = {C, D}, year = {2021}\n"
    )
    df = parse_pmlr_bibtex(text)
    assert df["id"].tolist() == ["ok1"]
    report = load_report(df)
    assert [issue.location for issue in report.skipped] == ["entry 'bad2' (line 3)"]


def test_input_forms_text_bytes_path_and_gzip(tmp_path: Path) -> None:
    raw = SAMPLE_BIB.read_bytes()
    gz = tmp_path / "v235.bib.gz"
    gz.write_bytes(gzip.compress(raw))
    expected = parse_pmlr_bibtex(SAMPLE_BIB)["id"].tolist()
    for source in (raw.decode("utf-8"), raw, str(SAMPLE_BIB), gz):
        assert parse_pmlr_bibtex(source)["id"].tolist() == expected


def test_year_argument_fills_entries_without_year() -> None:
    text = (
        "@InProceedings{a, title = {A}, abstract = {x}}\n"
        "@InProceedings{b, title = {B}, year = {2019}, abstract = {y}}\n"
    )
    df = parse_pmlr_bibtex(text, venue="AISTATS", year=2020)
    assert df["year"].tolist() == [2020, 2019]
    assert df["venue"].tolist() == ["AISTATS", "AISTATS"]
    assert pd.isna(df.loc[0, "authors"])


def test_text_without_any_entry_is_an_error() -> None:
    with pytest.raises(ValueError, match="No BibTeX entries found"):
        parse_pmlr_bibtex("@comment nothing here\njust prose\n")


def test_missing_file_error_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="nope.bib"):
        parse_pmlr_bibtex(tmp_path / "nope.bib")


def test_load_pmlr_path_infers_icml_venue_and_year_from_the_entries(tmp_path: Path) -> None:
    text = "@InProceedings{pmlr-v202-x23a, title = {T}, volume = {202}, abstract = {x}}\n"
    path = tmp_path / "mine.bib"
    path.write_text(text, encoding="utf-8")
    df = load_pmlr(path=path)
    assert df.loc[0, "venue"] == "ICML"
    assert df.loc[0, "year"] == 2023


def test_load_pmlr_path_of_another_pmlr_volume_is_not_labelled_icml(tmp_path: Path) -> None:
    path = tmp_path / "aistats.bib"
    path.write_text("@InProceedings{pmlr-v238-y24a, title = {T}, volume = {238}, year = {2024}}\n", "utf-8")
    assert load_pmlr(path=path).loc[0, "venue"] == "PMLR v238"
    assert load_pmlr(path=path, venue="AISTATS").loc[0, "venue"] == "AISTATS"


def test_icml_volume_table() -> None:
    assert ICML_PMLR_VOLUMES[2013] == 28
    assert ICML_PMLR_VOLUMES[2019] == 97
    assert ICML_PMLR_VOLUMES[2023] == 202
    assert ICML_PMLR_VOLUMES[2024] == 235
    assert ICML_PMLR_VOLUMES[2025] == 267
    assert sorted(ICML_PMLR_VOLUMES) == list(range(2013, 2026))
    volumes = [ICML_PMLR_VOLUMES[year] for year in sorted(ICML_PMLR_VOLUMES)]
    assert volumes == sorted(volumes)


def test_bibtex_url_pattern() -> None:
    assert pmlr_bibtex_url(235) == "https://proceedings.mlr.press/v235/assets/bib/bibliography.bib"


@pytest.mark.parametrize(
    ("args", "kwargs", "expected"),
    [
        ((2024,), {}, (235, 2024)),
        ((235,), {}, (235, 2024)),
        (("v202",), {}, (202, 2023)),
        (("icml2019",), {}, (97, 2019)),
        (("2015",), {}, (37, 2015)),
        ((), {"volume": 238}, (238, None)),
        ((), {"year": 2025}, (267, 2025)),
        ((), {}, (None, None)),
    ],
)
def test_resolve_pmlr_volume(args: tuple, kwargs: dict, expected: tuple) -> None:
    assert resolve_pmlr_volume(*args, **kwargs) == expected


def test_resolve_rejects_unknown_year_and_contradictions() -> None:
    with pytest.raises(ValueError, match="ICML 2026 has no PMLR volume.*volume=N"):
        resolve_pmlr_volume(2026)
    with pytest.raises(ValueError, match="ICML 2024 is PMLR volume 235, not 202"):
        resolve_pmlr_volume(volume=202, year=2024)
    with pytest.raises(ValueError, match="Cannot read 'icml-twenty'"):
        resolve_pmlr_volume("icml-twenty")


def test_format_bibtex_authors_edge_cases() -> None:
    assert format_bibtex_authors(r"M{\"u}ller, Klaus and Doe, Jr, John") == "Klaus Müller; John Doe, Jr"
    assert format_bibtex_authors("{OpenAI Team} and Jane Smith") == "OpenAI Team; Jane Smith"
    assert format_bibtex_authors("  ") is None
