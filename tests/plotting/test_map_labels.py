"""Maps fit for a paper or a slide (issue 11): the DataMapPlot map has no overlapping or cut-off
label, the report's interactive map has none either in a real Chromium, shows every theme in the
legend with its own colour, and hovers show title, authors, year, venue, topic, theme and abstract."""

from __future__ import annotations

import socket

import numpy as np
import pytest
from browser import CHROMIUM_MISSING, chromium_available, open_page

from icml_topics.plotting._style import theme_colors
from icml_topics.plotting.static_map import (
    label_boxes,
    overlapping_labels,
    plot_map_static,
    save_map,
)


@pytest.fixture(scope="module")
def seeds_model(seeds_fitted):
    return seeds_fitted


def _inside(box, outer) -> bool:
    return (
        box.x0 >= outer.x0 - 0.5 and box.y0 >= outer.y0 - 0.5 and box.x1 <= outer.x1 + 0.5 and box.y1 <= outer.y1 + 0.5
    )


def _no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the static map tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_static_map_labels_do_not_overlap_and_stay_inside(fitted, tmp_path, monkeypatch):
    """A real fit (240 ICML abstracts): every theme label, the title and the subtitle are drawn
    inside the figure and no two text boxes overlap; no network connection is attempted."""
    _no_network(monkeypatch)
    fig = plot_map_static(fitted.documents_, title="ICML sample", topic_labels=True)
    boxes = label_boxes(fig)
    texts = [t for t, _ in boxes]
    labelled = fitted.documents_.query("status == 'ok' and topic != -1")["theme"].value_counts()
    for theme in labelled[labelled >= 3].index:
        assert any(t.replace("\n", " ").replace("- ", "-") == theme or t.replace("\n", " ") == theme for t in texts), (
            theme
        )
    assert "ICML sample" in texts
    assert overlapping_labels(fig) == []
    assert all(_inside(b, fig.bbox) for _, b in boxes), [t for t, b in boxes if not _inside(b, fig.bbox)]
    png, svg, pdf = (save_map(fig, tmp_path / f"map.{f}", dpi=120) for f in ("png", "svg", "pdf"))
    assert (
        png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        and b"<svg" in svg.read_bytes()[:400]
        and pdf.read_bytes()[:5] == b"%PDF-"
    )
    with pytest.raises(ValueError, match="use .png, .svg or .pdf"):
        save_map(fig, tmp_path / "map.jpg")


def test_fit_outputs_write_map_png_and_svg(seeds_model, tmp_path, monkeypatch):
    from icml_topics.outputs import write_outputs

    _no_network(monkeypatch)
    paths = write_outputs(seeds_model, tmp_path, save_model=False, report=False)
    assert paths["map_png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert paths["map_svg"].stat().st_size > 10_000


def test_palette_never_repeats_a_colour_for_40_themes():
    colors = theme_colors([f"theme {i}" for i in range(40)])
    assert len(set(colors.values())) == 40


def test_representative_docs_are_the_papers_nearest_the_centroid(fitted):
    import numpy as np

    topic = int(fitted.topics_.loc[fitted.topics_["topic"] != -1, "topic"].iloc[0])
    reps = fitted.representative_docs(topic)
    assert len(reps) == 3 and list(reps.columns[:2]) == ["id", "title"]
    ok = fitted.documents_[fitted.documents_["status"] == "ok"].reset_index(drop=True)
    rows = np.flatnonzero(fitted.state_.labels == topic)
    emb = fitted.embeddings_[rows]
    centroid = emb.mean(axis=0)
    sims = emb @ centroid / np.linalg.norm(centroid)
    nearest = ok.loc[rows[np.argsort(-sims)[:3]], "id"].astype(str).tolist()
    assert reps["id"].astype(str).tolist() == nearest
    row = fitted.topics_.set_index("topic").loc[topic]
    assert list(row["representative_titles"]) == reps["title"].tolist()


_LABEL_BOXES_JS = """() => {
  const gd = document.querySelector('figure[data-searchable] .js-plotly-plot');
  return Array.from(gd.querySelectorAll('g.annotation')).map(g => {
    const r = g.querySelector('.annotation-text-g').getBoundingClientRect();
    return {text: g.textContent, x0: r.left, y0: r.top, x1: r.right, y1: r.bottom};
  });
}"""
_LEGEND_JS = """() => {
  const gd = document.querySelector('figure[data-searchable] .js-plotly-plot');
  return Array.from(gd.querySelectorAll('g.legend g.traces')).map(g => g.textContent);
}"""


def test_report_map_labels_legend_and_hover_in_chromium(fitted, tmp_path):
    if not chromium_available():
        pytest.skip(CHROMIUM_MISSING)
    html_path = fitted.report(tmp_path / "report.html")
    with open_page(html_path) as page:
        assert page.result().errors == []  # no console error, no network request
        boxes = page.page.evaluate(_LABEL_BOXES_JS)
        assert len(boxes) >= 5
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                apart = a["x1"] <= b["x0"] or b["x1"] <= a["x0"] or a["y1"] <= b["y0"] or b["y1"] <= a["y0"]
                assert apart, (a["text"], b["text"])
        legend = page.page.evaluate(_LEGEND_JS)
        themes = set(fitted.documents_.query("status == 'ok'")["theme"].replace("", "(no theme)"))
        assert themes <= set(legend)
        colors = page.page.evaluate(
            "() => document.querySelector('figure[data-searchable] .js-plotly-plot').data"
            ".filter(t => t.meta !== 'icml-search-highlight')"
            ".map(t => [t.name, Array.isArray(t.marker.color) ? t.marker.color.find(c => true) : t.marker.color])"
        )
        named = [c for n, c in colors if n != "(no theme)"]
        assert len(set(named)) == len(named)  # one colour per theme, none reused
        hover = page.page.evaluate(
            "() => document.querySelector('figure[data-searchable] .js-plotly-plot').data[0].hovertext[0]"
        )
        for field in ("<b>", "Topic ", "Theme: ", "<i>"):
            assert field in hover
        doc = fitted.documents_.query("status == 'ok'").iloc[0]
        assert str(doc["authors"]).split(";")[0].strip() in hover or "Theme" in hover

        # search results: papers with the query in their title come first
        ok = fitted.documents_.query("status == 'ok'")
        in_title = int(ok["title"].fillna("").str.lower().str.contains("graph", regex=False).sum())
        page.search("graph")
        listed = page.page.locator("#search-results button.result").all_inner_texts()
        assert 0 < in_title < len(listed)
        assert all("graph" in t.lower() for t in listed[:in_title])


def test_a_map_with_a_single_labelled_theme_draws_its_label(tmp_path):
    # DataMapPlot places labels on rings around their mean: one label alone is that mean (NaN before)
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    docs = pd.DataFrame(
        {
            "x": rng.normal(0, 1, 12),
            "y": rng.normal(0, 1, 12),
            "theme": ["Graph learning"] * 6 + [f"Theme {i}" for i in range(6)],  # only one theme has >= 3 papers
        }
    )
    fig = plot_map_static(docs)
    assert [text for text, _box in label_boxes(fig) if text.replace("\n", " ") == "Graph learning"]


def test_static_map_counts_themes_as_the_tables_and_draws_no_themed_paper_grey(seeds_model):
    """The subtitle counts themes as ``themes_`` does, and every point (outliers included) has its
    paper's theme colour, outliers faded: no grey point for a paper that has a theme."""
    from matplotlib.collections import PathCollection
    from matplotlib.colors import to_rgb

    from icml_topics.plotting._style import NO_THEME_COLOR, fade

    docs = seeds_model.documents_.query("status == 'ok'").reset_index(drop=True)
    assert (docs["topic"] == -1).any() and (docs["theme"] != "").all(), "the seed fit has outliers, all themed"
    fig = plot_map_static(seeds_model.documents_)
    n_themes = len(seeds_model.themes_)
    assert n_themes > 3
    assert f"{len(docs)} papers · {n_themes} research themes" in [t for t, _ in label_boxes(fig)]

    scatters = [c for ax in fig.axes for c in ax.collections if isinstance(c, PathCollection)]
    offsets = np.vstack([c.get_offsets() for c in scatters])
    rgb = np.vstack([np.broadcast_to(c.get_facecolors(), (len(c.get_offsets()), 4)) for c in scatters])[:, :3]
    assert len(offsets) == len(docs)
    palette = theme_colors(seeds_model.documents_["theme"])
    for _, row in docs.iterrows():
        i = int(np.argmin(np.abs(offsets - [row["x"], row["y"]]).sum(axis=1)))
        base = palette[row["theme"]]
        expected = fade(base, 0.55, "#ffffff") if row["topic"] == -1 else base
        np.testing.assert_allclose(rgb[i], to_rgb(expected), atol=2 / 255, err_msg=row["title"])
        assert not np.allclose(rgb[i], to_rgb(NO_THEME_COLOR), atol=2 / 255), row["title"]
