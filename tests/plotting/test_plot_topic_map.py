"""Topic map, theme hierarchy, colours and static export, on a small hand-made result."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from icml_topics.plotting import StaticExportError, plot_theme_hierarchy, plot_topic_map, save_figure, theme_colors
from icml_topics.plotting._style import NO_THEME_COLOR, NO_THEME_LABEL

THEMES = ["Reinforcement learning", "Optimization", "Generative models"]
DROPPED_ID = "p29"
OUTLIER_ID = "p27"
NO_THEME_ID = "p28"


def synthetic_frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``documents_``, ``topics_``, ``themes_`` of a pretend fit: 30 rows, 3 themes, 2 years.

    p0-p9 theme 0 (topics 0/1), p10-p19 theme 1 (topics 2/3), p20-p26 theme 2 (topics 4/5),
    p27 an outlier (topic -1) given theme 2 as nearest theme, p28 in topic 6 without a theme,
    p29 dropped (empty abstract). Even rows are from 2024, odd rows from 2025.
    """
    rng = np.random.default_rng(7)
    rows = []
    for i in range(30):
        group = min(i // 10, 2)
        topic = 2 * group + (i % 2)
        theme = THEMES[group]
        if i == 27:
            topic, theme = -1, THEMES[2]
        if i == 28:
            topic, theme = 6, ""
        word = ["policy gradient", "convex descent", "diffusion sampling"][group]
        title = f"Paper {i} on {word}"
        abstract = f"We study {word} in setting {i}. " + ("Results use Diffusion priors. " if i % 7 == 3 else "")
        if i == 5:
            title = "Escaping <script> tags & other hazards"
            abstract = "An abstract with </script><script>window.__pwned = 1</script> inside and an ümlaut."
        if i == 12:
            title = None  # hover falls back to the abstract
        cx, cy = [(0, 0), (10, 0), (5, 9)][group]
        rows.append(
            {
                "id": f"p{i}",
                "venue": "ICML",
                "year": 2024 + (i % 2),
                "title": title,
                "abstract": abstract,
                "authors": "A. Author",
                "status": "ok",
                "drop_reason": "",
                "topic": topic,
                "topic_label": "Outliers" if topic == -1 else f"topic {topic} label",
                "theme": theme,
                "theme_score": 0.5 + 0.01 * i,
                "theme_reason": "topic",
                "x": cx + rng.normal(),
                "y": cy + rng.normal(),
            }
        )
    docs = pd.DataFrame(rows)
    docs.loc[29, ["status", "drop_reason", "abstract", "title"]] = [
        "dropped",
        "empty abstract",
        "",
        "A diffusion title",
    ]
    docs.loc[29, ["x", "y", "topic"]] = np.nan
    docs["year"] = docs["year"].astype("Int64")
    docs["topic"] = docs["topic"].astype("Int64")
    ok = docs[docs["status"] == "ok"]
    sizes = ok["topic"].value_counts()
    topic_theme = ok.groupby("topic")["theme"].first()
    topics = pd.DataFrame(
        {
            "topic": [int(t) for t in sorted(sizes.index)],
            "label": [("Outliers" if t == -1 else f"topic {t} label") for t in sorted(sizes.index)],
            "theme": [topic_theme[t] if t != -1 else "" for t in sorted(sizes.index)],
            "theme_score": 0.6,
            "size": [int(sizes[t]) for t in sorted(sizes.index)],
            "keywords": [[f"kw{t}a", f"kw{t}b", "shared"] for t in sorted(sizes.index)],
        }
    )
    theme_sizes = ok[ok["theme"] != ""]["theme"].value_counts()
    themes = pd.DataFrame(
        {
            "theme": THEMES,
            "description": [f"Papers about {t.lower()}" for t in THEMES],
            "size": [int(theme_sizes[t]) for t in THEMES],
            "share": [theme_sizes[t] / len(ok) for t in THEMES],
            "n_topics": [2, 2, 2],
        }
    )
    return docs, topics, themes


@pytest.fixture(scope="module")
def frames():
    return synthetic_frames()


def _drawn_ids(fig: go.Figure) -> list[str]:
    return [i for trace in fig.data for i in trace.customdata]


def test_one_trace_per_theme_and_dropped_rows_not_drawn(frames):
    docs, _, _ = frames
    fig = plot_topic_map(docs)
    names = [t.name for t in fig.data]
    assert sorted(names) == sorted([*THEMES, NO_THEME_LABEL])
    assert names[-1] == NO_THEME_LABEL  # grey "no theme" trace drawn last
    assert all(t.type == "scattergl" for t in fig.data)
    ids = _drawn_ids(fig)
    assert len(ids) == 29 and len(set(ids)) == 29
    assert DROPPED_ID not in ids
    no_theme = fig.data[names.index(NO_THEME_LABEL)]
    assert list(no_theme.customdata) == [NO_THEME_ID]
    assert no_theme.marker.color == NO_THEME_COLOR


def test_hover_shows_title_year_venue_topic_and_theme(frames):
    docs, _, _ = frames
    fig = plot_topic_map(docs)
    hover = {i: text for t in fig.data for i, text in zip(t.customdata, t.hovertext)}
    assert "Paper 0 on policy gradient" in hover["p0"]
    assert "2024 · ICML" in hover["p0"] and "topic 0 label" in hover["p0"]
    assert "Theme: Reinforcement learning (0.50)" in hover["p0"]
    assert hover["p12"].startswith("<b>We study convex descent")  # no title: abstract start instead
    assert "&lt;script&gt;" in hover["p5"] and "<script>" not in hover["p5"]  # titles are escaped
    assert f"Theme: {NO_THEME_LABEL}" in hover[NO_THEME_ID]


def test_outlier_is_smaller_and_greyer_than_its_theme(frames):
    docs, _, _ = frames
    trace = next(t for t in plot_topic_map(docs, point_size=6).data if t.name == THEMES[2])
    at = list(trace.customdata).index(OUTLIER_ID)
    sizes, colors = list(trace.marker.size), list(trace.marker.color)
    assert sizes[at] < 6 and all(s == 6 for i, s in enumerate(sizes) if i != at)
    assert colors[at] != colors[0] and len({c for i, c in enumerate(colors) if i != at}) == 1


def test_year_dropdown_selects_the_points_of_one_year(frames):
    docs, _, _ = frames
    fig = plot_topic_map(docs)
    (menu,) = fig.layout.updatemenus
    labels = [b.label for b in menu.buttons]
    assert labels == ["All years", "2024", "2025"]
    assert menu.buttons[0].args[0]["selectedpoints"] == [None] * len(fig.data)
    year_of = dict(zip(docs["id"], docs["year"]))
    for button in menu.buttons[1:]:
        update, traces = button.args
        assert list(traces) == list(range(len(fig.data)))
        for trace, selected in zip(fig.data, update["selectedpoints"]):
            chosen = {trace.customdata[i] for i in selected}
            expected = {i for i in trace.customdata if year_of[i] == int(button.label)}
            assert chosen == expected
    assert fig.data[0].unselected.marker.opacity < 0.2  # other years fade, they do not vanish


def test_year_dropdown_only_when_asked_or_useful(frames):
    docs, _, _ = frames
    assert not plot_topic_map(docs, by_year=False).layout.updatemenus
    one_year = docs.assign(year=pd.array([2024] * len(docs), dtype="Int64"))
    assert not plot_topic_map(one_year).layout.updatemenus
    with pytest.raises(ValueError, match="by_year=True needs a 'year' column"):
        plot_topic_map(docs.drop(columns="year"), by_year=True)


def test_theme_names_are_placed_over_their_papers_without_leader_lines(frames):
    docs, _, _ = frames
    fig = plot_topic_map(docs)
    notes = {a.text: a for a in fig.layout.annotations}
    assert "Optimization" in notes and "Reinforcement learning" in notes
    for name, note in notes.items():
        papers = docs[(docs["theme"] == name) & (docs["status"] == "ok")]
        assert note.showarrow is False
        assert papers["x"].min() <= note.x <= papers["x"].max() and papers["y"].min() <= note.y <= papers["y"].max()
    layers = fig.layout.meta["label_layers"]  # the names the report redraws at every zoom
    assert [lay["level"] for lay in layers] == ["theme", "topic"]
    assert {lab["text"] for lab in layers[0]["labels"]} >= set(notes)
    assert not plot_topic_map(docs, label_themes=False).layout.annotations


def test_max_points_samples_deterministically(frames):
    docs, _, _ = frames
    a, b = plot_topic_map(docs, max_points=12), plot_topic_map(docs, max_points=12)
    assert len(_drawn_ids(a)) == 12 and _drawn_ids(a) == _drawn_ids(b)
    assert "showing 12 of 29" in a.layout.title.text


def test_color_by_topic_greys_the_outliers(frames):
    docs, _, _ = frames
    fig = plot_topic_map(docs, color="topic")
    assert len(fig.data) == 8  # topics 0..6 and -1
    assert fig.data[-1].name.startswith("-1") and list(fig.data[-1].customdata) == [OUTLIER_ID]


def test_clear_errors_for_bad_input(frames):
    docs, _, _ = frames
    with pytest.raises(ValueError, match="needs columns 'x' and 'y'"):
        plot_topic_map(docs.drop(columns=["x"]))
    with pytest.raises(ValueError, match="not a column"):
        plot_topic_map(docs, color="colour")


def test_theme_colours_are_stable_across_calls_orders_and_figures(frames):
    docs, topics, _ = frames
    names = ["Optimization", "Generative models", "Reinforcement learning", "Theory", ""]
    first = theme_colors(names)
    assert first == theme_colors(list(reversed(names))) == theme_colors(names + names)
    assert len({first[n] for n in names if n}) == 4  # distinct colours for distinct themes
    assert first[""] == NO_THEME_COLOR
    many = theme_colors([f"theme {i}" for i in range(40)])
    assert len(set(many.values())) == 40
    map_colors = {t.name: t.marker.color for t in plot_topic_map(docs).data if isinstance(t.marker.color, str)}
    reversed_docs = docs.iloc[::-1].reset_index(drop=True)
    again = {t.name: t.marker.color for t in plot_topic_map(reversed_docs).data if isinstance(t.marker.color, str)}
    assert map_colors == again
    hierarchy = plot_theme_hierarchy(topics).data[0]
    node_color = dict(zip(hierarchy.ids, hierarchy.marker.colors))
    assert node_color["theme:Optimization"] == theme_colors(docs["theme"])["Optimization"]


@pytest.mark.parametrize("kind", ["sunburst", "treemap"])
def test_hierarchy_labels_values_and_no_outlier_topic(frames, kind):
    _, topics, _ = frames
    trace = plot_theme_hierarchy(topics, kind=kind).data[0]
    assert trace.type == kind
    nodes = dict(zip(trace.ids, zip(trace.labels, trace.parents, trace.values)))
    assert "topic:-1" not in nodes
    assert nodes["topic:2"] == ("topic 2 label", "theme:Optimization", 5)
    assert nodes["theme:Optimization"] == ("Optimization", "", 10)
    assert nodes["theme:Generative models"][2] == 7  # outlier p27 not counted
    assert nodes[f"theme:{NO_THEME_LABEL}"][2] == 1
    hover = dict(zip(trace.ids, trace.hovertext))
    assert "kw2a, kw2b, shared" in hover["topic:2"]
    with pytest.raises(ValueError, match="kind must be"):
        plot_theme_hierarchy(topics, kind="pie")


def test_save_figure_html_is_self_contained(tmp_path, frames):
    docs, _, _ = frames
    path = save_figure(plot_topic_map(docs), tmp_path / "map.html")
    text = path.read_text(encoding="utf-8")
    assert "Plotly.newPlot" in text and "* plotly.js v" in text  # plotly.js inlined
    assert not re.findall(r"<(?:script|link|img)\b[^>]*\b(?:src|href)\s*=", text, flags=re.I)
    with pytest.raises(ValueError, match="use one of"):
        save_figure(go.Figure(), tmp_path / "map.bmp")
    assert not list(tmp_path.glob(".*tmp"))  # atomic write left no temp file


def test_save_figure_png_has_png_magic_bytes(tmp_path, frames):
    _, topics, _ = frames
    try:
        path = save_figure(plot_theme_hierarchy(topics), tmp_path / "themes.png", width=500, height=400)
    except StaticExportError as exc:
        pytest.skip(f"static export unavailable here: {exc}")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_static_export_without_kaleido_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "kaleido", None)  # as if not installed
    with pytest.raises(StaticExportError, match=r"pip install 'kaleido>=1'.*\.html always works"):
        save_figure(go.Figure(), tmp_path / "fig.svg")
    assert not (tmp_path / "fig.svg").exists()


def test_one_colour_mapping_can_be_shared_by_every_figure(frames):
    docs, topics, _ = frames
    shared = {"Optimization": "#123456", "Reinforcement learning": "#654321", "Generative models": "#abcdef"}
    traces = {t.name: t for t in plot_topic_map(docs, colors=shared).data}
    assert traces["Optimization"].marker.color == "#123456"
    assert traces[NO_THEME_LABEL].marker.color == NO_THEME_COLOR
    sunburst = plot_theme_hierarchy(topics, colors=shared).data[0]
    node = dict(zip(sunburst.ids, sunburst.marker.colors))
    assert node["theme:Optimization"] == "#123456" and node[f"theme:{NO_THEME_LABEL}"] == NO_THEME_COLOR


def test_nothing_drawable_gives_an_empty_map_not_an_error(frames):
    docs, _, _ = frames
    fig = plot_topic_map(docs.assign(status="dropped"))
    assert len(fig.data) == 0 and not fig.layout.updatemenus and not fig.layout.annotations


def test_float_years_and_topics_read_as_integers_and_minimal_columns_work(frames):
    docs, _, _ = frames
    floaty = docs.assign(year=docs["year"].astype("float64"), topic=docs["topic"].astype("float64"))
    hover = plot_topic_map(floaty).data[0].hovertext[0]
    assert "2024 · ICML" in hover and re.search(r"Topic \d+: ", hover) and ".0" not in hover
    bare = plot_topic_map(docs[["x", "y", "theme"]])
    assert sum(len(t.x) for t in bare.data) == 29  # NA coordinates of the dropped row are skipped
