"""The self-contained HTML report: structure and escaping here, rendering in a real Chromium below."""

from __future__ import annotations

import json
import re

import pandas as pd
import plotly.graph_objects as go
import pytest
from browser import CHROMIUM_MISSING, chromium_available, match_count, open_page
from plotly.offline import get_plotlyjs
from test_plot_topic_map import DROPPED_ID, synthetic_frames

from icml_topics.plotting import plot_topic_map
from icml_topics.report import Report, build_fit_report

HAZARD = "</script><script>window.__pwned = 1</script>"


@pytest.fixture(scope="module")
def frames():
    return synthetic_frames()


@pytest.fixture(scope="module")
def fit_html(frames) -> str:
    return build_fit_report(*frames).to_html()


def _plotlyjs_marker() -> str:
    js = get_plotlyjs()
    marker = js[len(js) // 2 : len(js) // 2 + 200]
    assert js.count(marker) == 1
    return marker


def _without_plotlyjs(page: str) -> str:
    js = get_plotlyjs()
    assert page.count(js) == 1
    return page.replace(js, "")


def _search_index(page: str) -> list[list[str]]:
    found = re.search(r'<script type="application/json" id="search-index">(.*?)</script>', page, flags=re.S)
    assert found, "search index missing"
    return json.loads(found.group(1))


def test_plotlyjs_inlined_exactly_once_and_no_urls_anywhere_else(frames):
    docs, topics, _ = frames
    report = Report("Three figures")
    for _ in range(3):
        report.add_figure(plot_topic_map(docs, by_year=False))
    page = report.to_html()
    assert page.count(_plotlyjs_marker()) == 1
    rest = _without_plotlyjs(page)
    assert "http://" not in rest and "https://" not in rest and "//cdn" not in rest
    assert not re.findall(r"<(?:script|link|img|iframe)\b[^>]*\bsrc\s*=", page, flags=re.I)
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert page.count('class="plotly-graph-div"') == 3


def test_no_plotlyjs_without_figures():
    page = Report("Tables only").add_table(pd.DataFrame({"a": [1]})).to_html()
    assert "Plotly" not in page and "<table>" in page


def test_script_end_tag_in_an_abstract_cannot_break_the_page(fit_html, frames):
    docs, _, _ = frames
    assert HAZARD in docs["abstract"].tolist()[5]
    assert "window.__pwned" in fit_html  # the text is there, escaped ...
    assert HAZARD not in fit_html and "<script>window.__pwned" not in fit_html  # ... never as markup
    opened = len(re.findall(r"<script\b", fit_html))
    assert fit_html.count("</script>") == opened  # every </script> closes a script we opened
    index = {row[0]: row for row in _search_index(fit_html)}
    assert index["p5"][4] == docs.loc[5, "abstract"]  # JSON round-trips the original text
    assert index["p5"][1] == "Escaping <script> tags & other hazards"


def test_search_index_holds_modelled_papers_only(fit_html, frames):
    docs, _, _ = frames
    ids = [row[0] for row in _search_index(fit_html)]
    assert DROPPED_ID not in ids and len(ids) == (docs["status"] == "ok").sum()
    assert 'type="search"' in fit_html and 'data-searchable="true"' in fit_html


def test_fit_report_sections_metrics_and_tables(fit_html):
    for heading in ("Map of papers", "Themes and topics", "Dropped rows"):
        assert f">{heading}</h2>" in fit_html
    for name, value in (
        ("documents", "30"),
        ("modelled", "29"),
        ("dropped", "1"),
        ("themes", "3"),
        ("without theme", "3.4%"),
    ):
        assert f'<span class="metric-value">{value}</span><span class="metric-name">{name}</span>' in fit_html
    assert "<td>empty abstract</td>" in fit_html
    assert "kw2a; kw2b; shared" in fit_html
    assert fit_html.count('class="plotly-graph-div"') == 2  # topic map and hierarchy


def test_fit_report_without_dropped_rows_has_no_dropped_section(frames):
    docs, topics, themes = frames
    page = build_fit_report(docs[docs["status"] == "ok"], topics, themes, metrics={"NPMI": 0.1234}).to_html()
    assert "Dropped rows" not in page
    assert '<span class="metric-value">0.123</span><span class="metric-name">NPMI</span>' in page


def test_tables_are_escaped_truncated_and_saved_whole_as_csv(tmp_path):
    df = pd.DataFrame({"name": [f"<b>row {i}</b>" for i in range(60)], "score": [i / 7 for i in range(60)]})
    report = Report("T", subtitle="<i>sub</i>").add_table(df, caption="Scores & <more>", csv_name="tables/scores.csv")
    page = report.to_html()
    assert "&lt;b&gt;row 0&lt;/b&gt;" in page and "<b>row" not in page
    assert "&lt;i&gt;sub&lt;/i&gt;" in page and "Scores &amp; &lt;more&gt;" in page
    assert "Showing 50 of 60 rows" in page and "row 50" not in page
    assert "<td class=num>0.14</td>" in page and "<td class=num>7.00</td>" in page  # one format per column
    written = report.write(tmp_path / "out" / "report.html")
    assert written == [tmp_path / "out" / "report.html", tmp_path / "out" / "tables" / "scores.csv"]
    saved = pd.read_csv(written[1])
    assert len(saved) == 60 and saved["name"].iloc[59] == "<b>row 59</b>"


def test_report_tables_are_written_like_every_other_csv(tmp_path):
    """Report CSVs go through store.csv_files.write_csv: list cells joined, a bare carriage return kept inside its
    record, formulas neutralised with csv_safe."""
    df = pd.DataFrame({"name": ["first\rsecond", "=1+1"], "keywords": [["a", "b"], []]})
    (path,) = Report("T").add_table(df, csv_name="t.csv").write(tmp_path / "r.html", csv_safe=True)[1:]
    saved = pd.read_csv(path, keep_default_na=False)
    assert saved["name"].tolist() == ["first\nsecond", "'=1+1"] and saved["keywords"].tolist() == ["a; b", ""]


def test_add_text_is_markdownish_and_escaped():
    page = Report("T").add_text("Intro with **bold** and `code` <script>x</script>\n\n- one\n- *two*").to_html()
    assert "<p>Intro with <strong>bold</strong> and <code>code</code> &lt;script&gt;x&lt;/script&gt;</p>" in page
    assert "<ul><li>one</li><li><em>two</em></li></ul>" in page


@pytest.mark.parametrize("name", ["../escape.csv", "/abs/x.csv", "table.txt"])
def test_bad_csv_names_are_refused_with_the_fix(name):
    with pytest.raises(ValueError, match="relative path ending in .csv"):
        Report("T").add_table(pd.DataFrame({"a": [1]}), csv_name=name)


def test_duplicate_csv_name_and_missing_search_index_are_errors():
    report = Report("T").add_table(pd.DataFrame({"a": [1]}), csv_name="a.csv")
    with pytest.raises(ValueError, match="already used"):
        report.add_table(pd.DataFrame({"b": [1]}), csv_name="a.csv")
    report.add_figure(go.Figure(), searchable=True)
    with pytest.raises(ValueError, match=r"set_search_index\(documents\)"):
        report.to_html()


@pytest.mark.browser
def test_fit_report_renders_offline_in_chromium_and_search_counts_matches(tmp_path, frames):
    if not chromium_available():
        pytest.skip(CHROMIUM_MISSING)
    docs, _, _ = frames
    html_path = build_fit_report(*frames).write(tmp_path / "report.html")[0]
    shot = tmp_path / "report.png"
    with open_page(html_path) as page:
        result = page.result(shot)
        assert result.plot_count >= 2 and result.rendered_plot_count == result.plot_count
        assert result.errors == [], result.errors
        assert result.title == "Topic map"
        data = shot.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000

        modelled = docs[docs["status"] == "ok"]
        for query in ("Diffusion", "convex descent", "no such phrase"):
            text = (modelled["title"].fillna("") + "\n" + modelled["abstract"].fillna("")).str.lower()
            expected = int(text.str.contains(query.lower(), regex=False).sum())
            assert match_count(page.search(query)) == expected, query
            assert len(page.highlighted_ids()) == expected  # every match is marked on the map
        assert expected == 0 and match_count(page.search("diffusion")) == 12  # sanity: the frame has 12

        page.search("</script>")  # a query matching the hazardous abstract is shown as text
        assert page.page.evaluate("() => window.__pwned") is None
        assert (
            page.page.locator("#search-results button.result").inner_text() == "Escaping <script> tags & other hazards"
        )

        # the year menu restyles in the real plotly.js without errors
        page.page.click("#figure-1 .updatemenu-header-group")
        page.page.locator("#figure-1 .updatemenu-item-text", has_text="2025").click()
        page.page.wait_for_function("() => Array.isArray(document.getElementById('figure-1').data[0].selectedpoints)")
        selected = page.page.evaluate("() => document.getElementById('figure-1').data.map(t => t.selectedpoints)")
        assert sum(len(s) for s in selected if s) == int((modelled["year"] == 2025).sum())
        assert page.result().errors == []


def test_search_index_keeps_ids_verbatim_and_can_truncate_abstracts():
    docs = pd.DataFrame(
        {"id": [12345, "a-1"], "title": ["T", None], "abstract": ["x" * 500, "short"], "year": [2024.0, None]}
    )
    report = Report("T").add_figure(go.Figure(), searchable=True).set_search_index(docs, abstract_chars=100)
    index = _search_index(report.to_html())
    assert index == [["12345", "T", "2024", "", "x" * 100], ["a-1", "", "", "", "short"]]


def test_a_table_writes_each_numeric_column_in_one_format():
    from icml_topics.report._render import table_html

    frame = pd.DataFrame(
        {
            "year": [2019, 2024],
            "papers": [2194, 8],
            "share (%)": [0.262, 8.0],
            "score": [0.262, 8.0],
            "similarity": [0.91234, 0.5],
        }
    )
    cells = re.findall(r"<td class=num>(.*?)</td>", table_html(frame, 10))
    assert cells == ["2019", "2,194", "0.3", "0.26", "0.912", "2024", "8", "8.0", "8.00", "0.500"]
