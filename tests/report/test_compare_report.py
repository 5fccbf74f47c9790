"""The comparison report (icml_topics.report.compare_report) on a hand-made three-year result."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from browser import CHROMIUM_MISSING, chromium_available, render_in_browser

from icml_topics.compare import align_topics, theme_movers, theme_shares, topic_status, year_theme_table
from icml_topics.compare.topic_tables import TopicTables
from icml_topics.report import Report
from icml_topics.report.compare_report import build_compare_report

RL, OPT, GEN, GRAPH = "Reinforcement learning", "Optimization", "Generative models", "Graph learning"
THEMES = [RL, OPT, GEN, GRAPH]
# Papers per (year, theme); "" = no theme. 2023 is a deliberately small year.
COUNTS = {
    2022: {RL: 20, OPT: 15, GEN: 5, GRAPH: 8, "": 2},
    2023: {RL: 4, OPT: 3, GEN: 4, GRAPH: 1},
    2024: {RL: 12, OPT: 10, GEN: 30, GRAPH: 6, "": 2},
}
N_MODELLED = sum(sum(c.values()) for c in COUNTS.values())  # 122
DROPPED_ID = "dropped-0"
A, B = 2022, 2024
EXPECTED_HEADINGS = [
    "Map of papers",
    "Theme shares by year",
    "Rising and declining themes",
    "Topic alignment",
    "Themes and topics",
]
TABLES = ["metrics", "papers_per_period", "theme_shares", "theme_table", "movers", "themes", "topics"]


def synthetic_result() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``documents_``, ``topics_``, ``themes_`` of a pretend joint fit of 2022-2024 (contract of docs/architecture.md).

    Theme k owns topics 2k and 2k+1 (every 9th paper of a theme is an outlier, topic -1, that kept
    the nearest theme); papers without a theme are in topic 8. One extra row is dropped.
    """
    rng = np.random.default_rng(3)
    centres = {RL: (0, 0), OPT: (10, 0), GEN: (5, 9), GRAPH: (-6, 8), "": (3, 3)}
    rows = []
    for year, counts in COUNTS.items():
        for theme, n in counts.items():
            for j in range(n):
                k = THEMES.index(theme) if theme else None
                topic = 8 if k is None else (-1 if j % 9 == 8 else 2 * k + j % 2)
                i = len(rows)
                rows.append(
                    {
                        "id": f"p{i}",
                        "venue": "ICML",
                        "year": year,
                        "title": f"Paper {i} on {theme or 'something else'}",
                        "abstract": f"We study {(theme or 'misc').lower()} in setting {i}.",
                        "authors": "A. Author",
                        "status": "ok",
                        "drop_reason": "",
                        "is_duplicate": False,
                        "duplicate_of": "",
                        "topic": topic,
                        "topic_label": "Outliers" if topic == -1 else f"topic {topic}",
                        "theme": theme,
                        "theme_score": 0.6,
                        "theme_reason": "" if k is None else ("nearest theme" if topic == -1 else "topic"),
                        "x": centres[theme][0] + rng.normal(),
                        "y": centres[theme][1] + rng.normal(),
                    }
                )
    rows.append(
        {
            **rows[0],
            "id": DROPPED_ID,
            "abstract": "",
            "status": "dropped",
            "drop_reason": "empty abstract",
            "topic": None,
            "topic_label": "",
            "theme": "",
            "theme_reason": "not modelled",
            "x": None,
            "y": None,
        }
    )
    docs = pd.DataFrame(rows)
    docs["year"] = docs["year"].astype("Int64")
    docs["topic"] = docs["topic"].astype("Int64")
    docs[["x", "y"]] = docs[["x", "y"]].astype(float)

    ok = docs[docs["status"] == "ok"]
    sizes = ok["topic"].value_counts().sort_index()
    topic_theme = {t: ("" if t in (-1, 8) else THEMES[t // 2]) for t in sizes.index}
    topics = pd.DataFrame(
        {
            "topic": [int(t) for t in sizes.index],
            "label": ["Outliers" if t == -1 else f"topic {t}" for t in sizes.index],
            "theme": [topic_theme[t] for t in sizes.index],
            "theme_score": 0.6,
            "size": [int(n) for n in sizes],
            "keywords": [[f"kw{t}", "shared"] for t in sizes.index],
        }
    )
    theme_sizes = ok["theme"].value_counts()
    themes = pd.DataFrame(
        {
            "theme": THEMES,
            "description": [f"Papers about {t.lower()}" for t in THEMES],
            "size": [int(theme_sizes[t]) for t in THEMES],
            "share": [theme_sizes[t] / len(ok) for t in THEMES],
            "n_topics": 2,
        }
    )
    return docs, topics, themes


def hand_made_alignment():
    """2022 vs 2024 fitted alone: RL and Optimization match, Graph splits in two, Kernels vanished, two new."""
    topics_a = pd.DataFrame(
        {
            "topic": [0, 1, 2, 3],
            "label": ["RL", "Optimization", "Graphs", "Kernels"],
            "size": [20, 15, 8, 5],
            "keywords": [["policy"], ["convex"], ["graph"], ["kernel"]],
        }
    )
    topics_b = pd.DataFrame(
        {
            "topic": [0, 1, 2, 3, 4, 5],
            "label": ["RL", "Optimization", "Diffusion", "GANs", "GNN theory", "GNN apps"],
            "size": [12, 10, 20, 10, 3, 3],
            "keywords": [["policy"], ["convex"], ["diffusion"], ["gan"], ["gnn"], ["gnn"]],
        }
    )
    eye = np.eye(8)
    emb_a = np.vstack([eye[0], eye[1], eye[2], eye[3] + 0.5 * eye[1]])  # Kernels: closest to Optimization
    emb_b = np.vstack([eye[0], eye[1], eye[4], eye[5], eye[2] + 0.3 * eye[6], eye[2] + 0.3 * eye[7]])
    return align_topics(topics_a, emb_a, topics_b, emb_b, keyword_weight=0.0, threshold=0.7)


@pytest.fixture(scope="module")
def frames():
    return synthetic_result()


@pytest.fixture(scope="module")
def trends(frames):
    docs, _, _ = frames
    return theme_shares(docs, by="year"), theme_movers(docs, by="year", a=A, b=B)


@pytest.fixture(scope="module")
def alignment():
    al = hand_made_alignment()
    assert al.counts() == {"matched": 2, "split": 1, "merged": 0, "finer": 0, "coarser": 0, "vanished": 1, "new": 2}
    return al


@pytest.fixture(scope="module")
def report(frames, trends, alignment) -> Report:
    shares, movers = trends
    return build_compare_report(*frames, shares=shares, movers=movers, alignment=alignment, by="year", periods=(A, B))


@pytest.fixture(scope="module")
def page(report) -> str:
    return report.to_html()


@pytest.fixture(scope="module")
def written(report, tmp_path_factory) -> Path:
    html_path = tmp_path_factory.mktemp("compare") / "report.html"
    paths = report.write(html_path)
    assert paths[0] == html_path
    return html_path


def _figure_types(page: str) -> list[str]:
    """The first trace type of each plotly figure, in page order."""
    chunks = page.split('class="plotly-graph-div"')[1:]
    trace = re.compile(r'"type":"(scattergl|scatter|heatmap|bar|sankey|sunburst|treemap)"')
    return [trace.search(chunk).group(1) for chunk in chunks]


def _metric(name: str, value: str) -> str:
    return f'<span class="metric-value">{value}</span><span class="metric-name">{name}</span>'


def test_sections_in_order_and_one_figure_each(page):
    positions = [page.index(f">{h}</h2>") for h in EXPECTED_HEADINGS]
    assert positions == sorted(positions)
    # map, shares with intervals, heatmap, movers, alignment Sankey, theme hierarchy
    assert _figure_types(page) == ["scattergl", "scatter", "heatmap", "bar", "sankey", "sunburst"]
    assert page.count('data-searchable="true"') == 1 and 'id="search-index"' in page
    assert "Research themes by year" in page and "comparing year 2022 with 2024" in page


def test_key_numbers(page):
    expected = {
        "documents": "123",
        "modelled": "122",
        "dropped": "1",
        "years": "3",
        "topics": "9",
        "themes": "4",
        "without theme": "3.3%",
        "venues": "ICML",
    }
    for name, value in expected.items():
        assert _metric(name, value) in page, name


def test_texts_name_periods_intervals_and_movers(page, trends):
    _, movers = trends
    assert "95% Wilson score intervals" in page
    assert "year 2023 has 12 papers and year 2024 60" in page  # the small year is called out
    top = movers.iloc[0]
    assert top["theme"] == GEN and top["direction"] == "rising"
    assert f"Largest rise: <strong>{GEN}</strong> (10.0% → 50.0%, +40.0 pp)" in page
    assert "from year 2022 (50 papers) to 2024 (60 papers)" in page
    assert "2 matched, 1 split, 0 merged, 1 vanished and 2 new; 0 merges and 0 splits are only" in page
    assert "Topic alignment was skipped" not in page


def test_every_table_is_written_as_csv_next_to_the_report(written, page):
    folder = written.parent / "tables"
    for name in [*TABLES, "alignment"]:
        assert (folder / f"{name}.csv").is_file(), name
        assert f'href="tables/{name}.csv"' in page, name


def test_csv_numbers_equal_the_frames_passed_in(written, frames, trends, alignment):
    docs, topics, _ = frames
    shares, movers = trends
    folder = written.parent / "tables"

    saved = pd.read_csv(folder / "movers.csv")
    assert saved["theme"].tolist() == movers["theme"].tolist()
    np.testing.assert_allclose(saved["2022 (%)"], 100 * movers["share_a"])
    np.testing.assert_allclose(saved["2024 (%)"], 100 * movers["share_b"])
    np.testing.assert_allclose(saved["change (pp)"], 100 * movers["diff"])
    np.testing.assert_allclose(saved["95% lower (pp)"], 100 * movers["diff_lower"])
    np.testing.assert_allclose(saved["95% upper (pp)"], 100 * movers["diff_upper"])
    assert saved["direction"].tolist() == movers["direction"].tolist()
    assert saved["papers 2022"].tolist() == movers["n_a"].tolist()

    saved = pd.read_csv(folder / "theme_shares.csv")
    assert (
        saved[["year", "theme", "papers", "papers in year"]].values.tolist()
        == shares[["year", "theme", "n", "total"]].astype(object).values.tolist()
    )
    for column, source in (("share (%)", "share"), ("95% lower (%)", "lower"), ("95% upper (%)", "upper")):
        np.testing.assert_allclose(saved[column], 100 * shares[source])

    saved = pd.read_csv(folder / "theme_table.csv").set_index("theme")
    expected = year_theme_table(docs, by="year") * 100
    assert saved.index.tolist() == expected.index.tolist()
    np.testing.assert_allclose(saved.to_numpy(), expected.to_numpy())

    saved = pd.read_csv(folder / "papers_per_period.csv")
    totals = shares.drop_duplicates("year")
    assert saved["year"].tolist() == totals["year"].tolist() == [2022, 2023, 2024]
    assert saved["papers"].tolist() == totals["total"].tolist() == [50, 12, 60]

    saved = pd.read_csv(folder / "alignment.csv")
    frame = alignment.to_frame()
    assert saved["status"].tolist() == frame["status"].tolist()
    assert saved["topic_a"].astype("Int64").tolist() == frame["topic_a"].tolist()
    np.testing.assert_allclose(saved["similarity"], frame["similarity"].astype(float))
    kernels = saved[saved["label_a"] == "Kernels"].iloc[0]
    assert kernels["status"] == "vanished" and kernels["closest topic"] == 1  # Optimization of 2024
    assert kernels["closest similarity"] == pytest.approx(0.5 / np.sqrt(1.25))
    assert saved.loc[saved["status"].isin(["matched", "split"]), "closest similarity"].isna().all()

    saved = pd.read_csv(folder / "topics.csv").sort_values("topic")
    assert saved["size"].tolist() == topics.sort_values("topic")["size"].tolist()
    assert sum(saved["size"]) == N_MODELLED

    metrics = dict(pd.read_csv(folder / "metrics.csv").values.tolist())
    assert metrics["modelled"] == str(N_MODELLED) and metrics["dropped"] == "1"


def test_without_alignment_a_note_explains_why(frames, trends, tmp_path):
    shares, movers = trends
    report = build_compare_report(*frames, shares=shares, movers=movers, periods=(A, B))
    page = report.to_html()
    assert "Topic alignment was skipped (2022: 50 papers, 2024: 60 papers)" in page
    assert "MIN_ALIGN_DOCS" in page
    assert _figure_types(page) == ["scattergl", "scatter", "heatmap", "bar", "sunburst"]
    report.write(tmp_path / "report.html")
    assert not (tmp_path / "tables" / "alignment.csv").exists()
    files = {p.name for p in (tmp_path / "tables").iterdir()}
    assert "manifest.json" in files  # the folder's proof of ownership (report() follows --out's folder rules)
    assert sorted(Path(f).stem for f in files - {"manifest.json"}) == sorted(TABLES)

    custom = build_compare_report(
        *frames,
        shares=shares,
        movers=movers,
        periods=(A, B),
        alignment_note="Alignment was turned off with --no-align.",
    ).to_html()
    assert "Alignment was turned off with --no-align." in custom and "Topic alignment was skipped" not in custom


def test_pooled_period_and_periods_taken_from_the_movers_table(frames, trends):
    docs, _, _ = frames
    shares, _ = trends
    movers = theme_movers(docs, a=range(2022, 2024), b=2024)
    page = build_compare_report(*frames, shares=shares, movers=movers, title="Pooled").to_html()
    assert "comparing year 2022–2023 with 2024" in page
    assert "from year 2022–2023 (62 papers) to 2024 (60 papers)" in page
    assert "<title>Pooled</title>" in page


def test_inconsistent_or_wrong_inputs_are_errors_that_say_what_to_pass(frames, trends):
    shares, movers = trends
    with pytest.raises(ValueError, match=r"periods 2023 → 2024 do not match the movers table, computed for 2022"):
        build_compare_report(*frames, shares=shares, movers=movers, periods=(2023, B))
    with pytest.raises(ValueError, match=r"shares is missing columns \['lower', 'upper'\].*theme_shares"):
        build_compare_report(*frames, shares=shares.drop(columns=["lower", "upper"]), movers=movers)
    with pytest.raises(ValueError, match=r"pass periods=\(a, b\)"):
        bare = movers.copy()
        bare.attrs = {}
        build_compare_report(*frames, shares=shares, movers=bare)
    with pytest.raises(TypeError, match=r"topics must be a pandas DataFrame"):
        build_compare_report(frames[0], None, frames[2], shares=shares, movers=movers)


def test_a_theme_table_passed_in_is_shown_instead_of_computed_again(frames, trends):
    docs, _, _ = frames
    shares, movers = trends
    computed = build_compare_report(*frames, shares=shares, movers=movers).to_html()
    given = build_compare_report(*frames, shares=shares, movers=movers, table=year_theme_table(docs)).to_html()
    assert given == computed
    marked = year_theme_table(docs).rename(index={RL: "Marked row"})
    page = build_compare_report(*frames, shares=shares, movers=movers, table=marked).to_html()
    assert "Marked row" in page and "Marked row" not in computed


def test_interval_texts_and_headers_follow_the_confidence_the_tables_record(frames):
    docs, _, _ = frames
    shares, movers = theme_shares(docs, confidence=0.9), theme_movers(docs, a=A, b=B, confidence=0.9)
    page = build_compare_report(*frames, shares=shares, movers=movers).to_html()
    assert "90% Wilson score intervals" in page and "90% lower (%)" in page and "90% upper (pp)" in page
    assert "the 90% interval of the change" in page and "95%" not in page.split("Map of papers")[1]


def _topic_docs(docs: pd.DataFrame) -> pd.DataFrame:
    return docs.assign(topic_0=docs["topic"].fillna(-1).astype(int))


def test_topic_sections_read_the_status_tables_record(frames, trends):
    docs, topics, themes = frames
    shares, movers = trends
    status = topic_status(_topic_docs(docs), confidence=0.9, fdr=0.1)
    page = build_compare_report(
        _topic_docs(docs), topics, themes, shares=shares, movers=movers, topic_tables=TopicTables(status=status)
    ).to_html()
    assert "What is new in 2024" in page and "the false-discovery rate is held at 10%" in page
    assert "90% interval (%)" in page and "baseline, 2022–2023 pooled?" in page
    bare = status.copy()
    bare.attrs = {}
    with pytest.raises(ValueError, match=r"status does not record latest.*topic_status returned"):
        build_compare_report(*frames, shares=shares, movers=movers, topic_tables=TopicTables(status=bare))


def test_search_index_holds_modelled_papers_only(page):
    found = re.search(r'<script type="application/json" id="search-index">(.*?)</script>', page, flags=re.S)
    ids = [row[0] for row in json.loads(found.group(1))]
    assert len(ids) == N_MODELLED and DROPPED_ID not in ids


@pytest.mark.browser
def test_report_renders_offline_in_chromium(written, tmp_path):
    if not chromium_available():
        pytest.skip(CHROMIUM_MISSING)
    shot = tmp_path / "compare.png"
    result = render_in_browser(written, shot)
    assert result.plot_count == 6 and result.rendered_plot_count == 6
    assert result.external_requests == []
    assert result.errors == [], result.errors
    assert result.title == "Research themes by year"
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def _numeric_columns(page: str) -> list[tuple[str, list[str]]]:
    """(header, cells) of every right-aligned (numeric) column of every table on the page."""
    out = []
    for table in re.findall(r"<table>(.*?)</table>", page, flags=re.S):
        headers = re.findall(r"<th scope=\"col\"( class=num)?>(.*?)</th>", table)
        rows = [re.findall(r"<td( class=num)?>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", table)[1:]]
        for i, (num, header) in enumerate(headers):
            if num:
                out.append((html.unescape(header), [row[i][1] for row in rows if i < len(row) and row[i][1]]))
    return out


def test_every_numeric_column_is_written_in_one_format(page):
    """A column's numbers read alike: one count of decimals per column (not "0.262" beside "8"), thousands
    separated from 1,000 (not "2194" under a "2,194" header) except in year columns."""
    columns = _numeric_columns(page)
    assert len(columns) > 5
    for header, cells in columns:
        decimals = {len(c.split(".")[1]) if "." in c else 0 for c in cells}
        assert len(decimals) <= 1, (header, cells)
        if "%" in header or "(pp)" in header:
            assert decimals <= {1}, (header, cells)
        if "year" not in header.lower():
            assert not [c for c in cells if re.fullmatch(r"-?\d{4,}(\.\d+)?", c)], (header, cells)


def test_the_report_counts_one_theme_in_the_singular():
    from icml_topics.report.compare_parts import movers_text

    docs = pd.DataFrame({"year": [2019] * 10 + [2024] * 10, "theme": ["GNN"] * 20})
    text = movers_text(theme_movers(docs, a=2019, b=2024), "theme", "2019", "2024")
    assert "of 1 theme changed" in text and "among 1 theme about" in text and "1 themes" not in text
