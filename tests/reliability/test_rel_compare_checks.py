"""A comparison needs papers, and every check comes before the fit (issue 38, cases 8, 12, 13, 14, 16).

Real ICML abstracts: 120 of 2019 and 120 of 2024 (the session's sample), one relabelled 2013 and one
2025 (a year of one paper at each end), and for the CLI run 24 of them (10%) without a year."""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
import pytest
from _reliability_helpers import SEEDS, run_cli, session_cache

from icml_topics.compare import read_trend_info, theme_movers, topic_status
from icml_topics.workflows import compare


def _one_paper_years(real_sample: pd.DataFrame) -> pd.DataFrame:
    corpus = real_sample.reset_index(drop=True).copy()
    corpus["year"] = corpus["year"].astype("Int64")
    corpus.loc[0, "year"] = 2013  # one paper of 2013, one of 2025, 119 in 2019 and in 2024
    corpus.loc[120, "year"] = 2025
    return corpus


def _write_jsonl(frame: pd.DataFrame, path) -> str:
    with open(path, "w", encoding="utf-8") as handle:
        for row in frame.to_dict("records"):
            clean = {k: (None if v is pd.NA or (isinstance(v, float) and np.isnan(v)) else v) for k, v in row.items()}
            handle.write(json.dumps(clean, default=int) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def one_paper_years(real_sample):
    corpus = _one_paper_years(real_sample)
    return corpus, compare(corpus, by="year", align=False, random_state=0)


def test_a_one_paper_year_is_reported_not_compared(one_paper_years):
    corpus, result = one_paper_years
    assert result.periods == (2019, 2024)  # not 2013 vs 2024 (nor 2013 vs 2025)
    assert result.plan.skipped == {2013: 1, 2025: 1}
    movers = result.movers
    assert set(movers["total_a"]) == {119} and set(movers["total_b"]) == {119}
    status = result.topics.status
    assert read_trend_info(status).latest == 2024 and set(status["total_latest"]) == {119}
    assert read_trend_info(result.trends).latest == 2024  # the trend table's status is 2024's, not 2025's one paper
    # asked for explicitly, a one-paper period is refused with its count, the rule and the fix
    with pytest.raises(ValueError, match=r"--a 2013 has 1 modelled paper; .* at least 30 .*--min-papers"):
        compare(corpus, by="year", a=2013, b=2024, model=result.model)


def test_too_many_by_values_are_refused_and_max_periods_overrides(one_paper_years):
    corpus, result = one_paper_years
    with pytest.raises(ValueError, match=r"--by year has 4 distinct values, more than max_periods=3.*--max-periods 4"):
        compare(corpus, by="year", model=result.model, max_periods=3, align=False)
    assert compare(corpus, by="year", model=result.model, max_periods=4, align=False).periods == (2019, 2024)
    for name, bad, error in (
        ("max_periods", 1, ValueError),
        ("min_papers", 0, ValueError),
        ("min_papers", 2.5, TypeError),
    ):
        with pytest.raises(error, match=rf"{name}={bad} is not allowed: use an integer >= "):
            compare(corpus, by="year", model=result.model, align=False, **{name: bad})


@pytest.mark.parametrize("top", [-1, 0, 1.5, True])
def test_whats_new_top_must_be_a_positive_count(one_paper_years, top):
    model = one_paper_years[1].model
    with pytest.raises((ValueError, TypeError), match=rf"top={top!r} is not allowed: use None .* integer >= 1"):
        model.whats_new(2024, top=top)
    assert len(model.whats_new(2024, top=None)) >= len(model.whats_new(2024, top=1))


def test_messages_show_plain_values_not_numpy_reprs(one_paper_years):
    docs = one_paper_years[1].model.documents_
    with pytest.raises(ValueError) as info:
        topic_status(docs, latest=np.int64(2031))
    assert "latest=2031 is not a year" in str(info.value) and "np." not in str(info.value)


def test_movers_list_each_theme_once(one_paper_years):
    from icml_topics.cli.compare import movers_text  # what `icml-topics compare` prints

    docs = one_paper_years[1].model.documents_.assign(theme="Optimization")
    lines = movers_text(theme_movers(docs, a=2019, b=2024), "2019", "2024").splitlines()
    assert lines[0] == "Biggest movers from 2019 to 2024 (baseline: 2019):"
    assert len(lines) == 2 and "Optimization (stable)" in lines[1]


def test_null_years_are_fitted_counted_and_left_out_of_the_comparison(real_sample, tmp_path):
    corpus = _one_paper_years(real_sample)
    corpus.loc[list(range(1, 13)) + list(range(121, 133)), "year"] = pd.NA  # 24 of 240 papers: 10%
    empty = corpus.iloc[[20]].assign(id="icml2019-empty", abstract="")  # read, not modelled: flagged once (issue 50)
    corpus = pd.concat([corpus, empty], ignore_index=True)
    out = tmp_path / "out"
    result = run_cli(
        "compare", _write_jsonl(corpus, tmp_path / "c.jsonl"), "--no-align", "--out", str(out), cache=session_cache(),
        process=False,  # the CLI in this process: what it prints and writes is the point, not the process
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert "24 papers have no year: fitted with the others, left out of the comparison" in result.stderr
    assert result.stderr.count("1 of 241 rows are not modelled") == 1  # the plan and the fit flag the rows once
    assert "2013 (1 paper), 2025 (1 paper)" in result.stderr  # reported, with the count and why
    assert "Biggest movers from 2019 to 2024 (baseline: 2019):" in result.stdout
    assert "np." not in result.stdout + result.stderr
    assert "Resetting positions" not in result.stdout + result.stderr  # pylabeladjust's print is kept quiet
    documents = pd.read_csv(out / "documents.csv")
    assert documents["year"].isna().sum() == 24 and (documents["status"] == "ok").sum() == 240  # all fitted
    trends = pd.read_csv(out / "topic_trends.csv")
    assert trends["period"].notna().all() and set(trends["total"]) <= {1, 107}
    wording = pd.read_csv(out / "topic_wording.csv")
    assert wording["period"].notna().all()


def _two_years(real_sample: pd.DataFrame, tmp_path, n: int = 40) -> str:
    frame = pd.concat([real_sample[real_sample["year"] == y].head(n) for y in (2019, 2024)], ignore_index=True)
    return _write_jsonl(frame, tmp_path / "two-years.jsonl")


def _refused_before_embedding(args: list[str], tmp_path, expected: list[str]) -> str:
    started = time.monotonic()
    result = run_cli("compare", *args, "--out", str(tmp_path / "o"), cache=tmp_path / "c", process=False)
    assert result.returncode == 2, result.stderr[-3000:]
    assert not (tmp_path / "c" / "embeddings").exists(), "embedded before reporting the error"
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr[-3000:]
    for text in expected:
        assert text in errors[0], errors[0]
    assert "np." not in errors[0] and "Traceback" not in result.stderr
    assert not (tmp_path / "o").exists()
    assert time.monotonic() - started < 60
    return errors[0]


def test_a_corpus_of_one_year_is_refused_before_the_fit(tmp_path):
    _refused_before_embedding(
        [str(SEEDS)], tmp_path, ["needs at least two year values with at least 30", "2026 (38 papers)", "--a"]
    )


def test_a_period_not_in_the_data_is_refused_before_the_fit(real_sample, tmp_path):
    path = _two_years(real_sample, tmp_path)
    _refused_before_embedding(
        [path, "--a", "2031", "--b", "2024"], tmp_path, ["--a 2031 is not a year", "2019 (40 papers), 2024 (40 papers)"]
    )


def test_equal_periods_are_refused_before_the_fit(real_sample, tmp_path):
    path = _two_years(real_sample, tmp_path)
    _refused_before_embedding([path, "--a", "2024", "--b", "2024"], tmp_path, ["--a and --b share the year", "2024"])


def test_a_by_column_of_ids_is_refused_before_the_fit(real_sample, tmp_path):
    path = _two_years(real_sample, tmp_path)
    _refused_before_embedding(
        [path, "--by", "id"], tmp_path, ["--by id has 80 distinct values, more than max_periods=50", "--max-periods 80"]
    )


def test_a_one_theme_map_prints_nothing(one_paper_years, capfd):
    from icml_topics.plotting.static_map import plot_map_static

    docs = one_paper_years[1].model.documents_.assign(theme="Optimization")  # one label: pylabeladjust places it
    fig = plot_map_static(docs, title="One theme")
    assert fig is not None
    out, err = capfd.readouterr()
    assert "Resetting positions" not in out + err and out == ""
