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
    MAP_EXTENT,
    drawn_coordinates,
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


def test_fit_outputs_write_a_screen_png_by_default_and_print_files_when_asked(seeds_model, tmp_path, monkeypatch):
    import struct

    from icml_topics.outputs import write_outputs

    _no_network(monkeypatch)
    paths = write_outputs(seeds_model, tmp_path / "screen", save_model=False, report=False)
    png = paths["map_png"].read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and "map_svg" not in paths
    assert not (tmp_path / "screen" / "map.svg").exists()
    width = struct.unpack(">I", png[16:20])[0]  # IHDR: 12 in at 100 dpi
    assert width == 1200
    paths = write_outputs(
        seeds_model, tmp_path / "print", save_model=False, report=False, maps=("png", "svg", "pdf"), map_dpi=300
    )
    assert struct.unpack(">I", paths["map_png"].read_bytes()[16:20])[0] == 3600
    assert paths["map_svg"].stat().st_size > 10_000
    assert paths["map_pdf"].read_bytes()[:5] == b"%PDF-"


def test_map_options_are_checked_with_the_fix():
    from icml_topics.plotting.static_map import check_map_dpi, parse_map_formats

    assert parse_map_formats("pdf,PNG") == ("png", "pdf") and parse_map_formats("none") == ()
    with pytest.raises(ValueError, match="unknown format 'jpg'.*png, svg, pdf"):
        parse_map_formats("png,jpg")
    with pytest.raises(ValueError, match="50 to 1200"):
        check_map_dpi(20)


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


_LABEL_BOXES_JS = """() => Array.from(document.querySelectorAll('figure[data-searchable] .icml-map-label.shown'))
  .map(d => { const r = d.getBoundingClientRect();
              return {text: d.textContent, layer: +d.dataset.layer, x0: r.left, y0: r.top, x1: r.right, y1: r.bottom}; })"""
_PLOT_AREA_JS = """() => { const gd = document.querySelector('figure[data-searchable] .js-plotly-plot');
  const b = gd.getBoundingClientRect(), xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  return {x0: b.left + xa._offset, y0: b.top + ya._offset, x1: b.left + xa._offset + xa._length,
          y1: b.top + ya._offset + ya._length, xr: xa.range, yr: ya.range,
          layers: gd.layout.meta.label_layers.map(l => ({level: l.level, min_zoom: l.min_zoom, labels: l.labels}))}; }"""
_ZOOM_JS = """([x, y, zoom, base]) => { const gd = document.querySelector('figure[data-searchable] .js-plotly-plot');
  const w = (base.xr[1] - base.xr[0]) / zoom / 2, h = (base.yr[1] - base.yr[0]) / zoom / 2;
  return Plotly.relayout(gd, {'xaxis.range': [x - w, x + w], 'yaxis.range': [y - h, y + h]}); }"""


def _apart(boxes) -> list[tuple[str, str]]:
    """Pairs of label boxes that overlap."""
    return [
        (a["text"], b["text"])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if not (a["x1"] <= b["x0"] or b["x1"] <= a["x0"] or a["y1"] <= b["y0"] or b["y1"] <= a["y0"])
    ]


def _visible_labels(page) -> list[dict]:
    page.page.wait_for_timeout(150)  # the overlay is redrawn on the next animation frame
    page.page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    return page.page.evaluate(_LABEL_BOXES_JS)


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
        boxes = _visible_labels(page)
        assert len(boxes) >= 5 and {b["layer"] for b in boxes} == {0}  # theme names at first
        assert _apart(boxes) == []
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


def test_report_map_names_follow_the_zoom_without_overlaps(fitted, tmp_path):
    """Zoomed out the report's map names themes; zoomed in past each layer's threshold it names the
    (coarser, then finer) topics of that layer instead, over their papers; at every zoom no two names
    overlap and every name lies inside the plot; no console error and no network request (offline)."""
    if not chromium_available():
        pytest.skip(CHROMIUM_MISSING)
    html_path = fitted.report(tmp_path / "report.html")
    with open_page(html_path) as page:
        area = page.page.evaluate(_PLOT_AREA_JS)
        layers = area["layers"]
        assert len(layers) >= 2 and layers[0]["level"] == "theme"
        assert [lay["min_zoom"] for lay in layers] == sorted(lay["min_zoom"] for lay in layers)
        # a theme switched off in the legend loses its name (and gets it back)
        shown = {b["text"] for b in _visible_labels(page)}
        theme = max(layers[0]["labels"], key=lambda lab: lab["size"])["text"]
        assert theme in shown
        toggle = (
            "v => { const gd = document.querySelector('figure[data-searchable] .js-plotly-plot');"
            " return Plotly.restyle(gd, {visible: v}, [gd.data.findIndex(t => t.name === %r)]); }" % theme
        )
        page.page.evaluate(toggle, "legendonly")
        assert theme not in {b["text"] for b in _visible_labels(page)}
        page.page.evaluate(toggle, True)
        assert theme in {b["text"] for b in _visible_labels(page)}

        seen = []
        zooms = [1.0] + [lay["min_zoom"] * 1.1 for lay in layers[1:]] + [layers[-1]["min_zoom"] * 2.5]
        for zoom in zooms:
            expected = max(k for k, lay in enumerate(layers) if zoom >= lay["min_zoom"])
            biggest = max(layers[expected]["labels"], key=lambda lab: lab["size"])
            centre = (biggest["x"], biggest["y"]) if zoom > 1 else (sum(area["xr"]) / 2, sum(area["yr"]) / 2)
            page.page.evaluate(_ZOOM_JS, [*centre, zoom, area])
            boxes = _visible_labels(page)
            assert boxes, f"no name shown at zoom {zoom:.2f}"
            assert {b["layer"] for b in boxes} == {expected}, (zoom, boxes)
            assert _apart(boxes) == [], f"overlapping names at zoom {zoom:.2f}"
            now = page.page.evaluate(_PLOT_AREA_JS)
            assert all(
                b["x0"] >= now["x0"] - 0.5
                and b["x1"] <= now["x1"] + 0.5
                and b["y0"] >= now["y0"] - 0.5
                and b["y1"] <= now["y1"] + 0.5
                for b in boxes
            )
            if zoom > 1:  # the largest node of the layer is named where the view is centred: on its papers
                assert biggest["text"] in {b["text"] for b in boxes}
            seen.append(expected)
        assert seen[0] == 0 and seen[-1] == len(layers) - 1 and len(set(seen)) == len(layers) >= 2

        # a zoom by mouse (drag a box over the middle third of the plot, plotly's zoom) switches layers too
        page.page.evaluate(
            "() => Plotly.relayout(document.querySelector('figure[data-searchable] .js-plotly-plot'), "
            "{'xaxis.autorange': true, 'yaxis.autorange': true})"
        )
        assert {b["layer"] for b in _visible_labels(page)} == {0}
        page.page.evaluate("() => document.querySelector('figure[data-searchable]').scrollIntoView()")
        area = page.page.evaluate(_PLOT_AREA_JS)  # in the viewport now, where the mouse is
        w, h = area["x1"] - area["x0"], area["y1"] - area["y0"]
        k3 = max(k for k, lay in enumerate(layers) if 3 >= lay["min_zoom"])  # the layer at a zoom of 3
        target = max(layers[k3]["labels"], key=lambda lab: lab["size"])
        (xr0, xr1), (yr0, yr1) = area["xr"], area["yr"]
        px = area["x0"] + (target["x"] - xr0) / (xr1 - xr0) * w
        py = area["y0"] + (yr1 - target["y"]) / (yr1 - yr0) * h
        left = min(max(px - w / 6, area["x0"] + 1), area["x1"] - w / 3 - 1)  # a third of the plot, around it
        top = min(max(py - h / 6, area["y0"] + 1), area["y1"] - h / 3 - 1)
        mouse = page.page.mouse
        mouse.move(left, top)
        mouse.down()
        mouse.move(left + w / 6, top + h / 6, steps=4)
        mouse.move(left + w / 3, top + h / 3, steps=4)
        mouse.up()
        boxes = _visible_labels(page)
        assert boxes and {b["layer"] for b in boxes} == {k3}
        assert target["text"] in {b["text"] for b in boxes}
        assert _apart(boxes) == []
        assert page.result().errors == []


def test_static_map_counts_themes_as_the_tables_and_draws_no_themed_paper_grey(seeds_model):
    """The subtitle counts themes as ``themes_`` does, and every point has its paper's theme colour (a
    paper without a topic, as in an older table, faded): no grey point for a paper that has a theme."""
    from matplotlib.collections import PathCollection
    from matplotlib.colors import to_rgb

    from icml_topics.plotting._style import NO_THEME_COLOR, fade

    docs = seeds_model.documents_.query("status == 'ok'").reset_index(drop=True)
    assert (docs["topic"] >= 0).all() and (docs["theme"] != "").all(), "every seed paper has a topic and a theme"
    older = seeds_model.documents_.copy()  # a table whose first 5 papers have no topic: drawn lighter
    older.loc[older.index[:5], "topic"] = -1
    docs = older.query("status == 'ok'").reset_index(drop=True)
    fig = plot_map_static(older)
    n_themes = len(seeds_model.themes_)
    assert n_themes > 3
    # the subtitle goes on with the lighter dots' count: " · lighter dots: 5 papers in no topic"
    assert any(t.startswith(f"{len(docs)} papers · {n_themes} research themes ·") for t, _ in label_boxes(fig))

    scatters = [c for ax in fig.axes for c in ax.collections if isinstance(c, PathCollection)]
    offsets = np.vstack([c.get_offsets() for c in scatters])
    rgb = np.vstack([np.broadcast_to(c.get_facecolors(), (len(c.get_offsets()), 4)) for c in scatters])[:, :3]
    assert len(offsets) == len(docs)
    palette = theme_colors(seeds_model.documents_["theme"])
    for (_, row), xy in zip(docs.iterrows(), drawn_coordinates(docs)):
        i = int(np.argmin(np.abs(offsets - xy).sum(axis=1)))
        base = palette[row["theme"]]
        expected = fade(base, 0.55, "#ffffff") if row["topic"] == -1 else base
        np.testing.assert_allclose(rgb[i], to_rgb(expected), atol=2 / 255, err_msg=row["title"])
        assert not np.allclose(rgb[i], to_rgb(NO_THEME_COLOR), atol=2 / 255), row["title"]


def test_a_tsne_scale_map_is_drawn_at_umaps_scale_with_its_shape_and_a_umap_map_as_it_is(seeds_model, fitted):
    """A t-SNE map hundreds of units across is drawn scaled to MAP_EXTENT units, one factor for both axes;
    the 240-paper UMAP map is drawn in its own coordinates. The seed fit's t-SNE map is from about 10 to over
    100 units wide depending on the last digits of the vectors (one CPU's int8 kernels against another's), so the
    test plants the width: the seed fit's own map, stretched to 300 units with its shape kept."""
    docs = seeds_model.documents_.query("status == 'ok'").copy()
    xy = docs[["x", "y"]].to_numpy(dtype=np.float64)
    docs[["x", "y"]] = (xy - xy.mean(axis=0)) * (300.0 / np.ptp(xy, axis=0).max())
    raw = docs[["x", "y"]].to_numpy(dtype=np.float64)
    np.testing.assert_allclose(np.ptp(raw, axis=0).max(), 300.0)
    drawn = drawn_coordinates(docs)
    np.testing.assert_allclose(np.ptp(drawn, axis=0).max(), MAP_EXTENT)
    factor = raw / drawn
    np.testing.assert_allclose(factor, factor[0, 0], rtol=1e-9)
    umap = fitted.documents_.query("status == 'ok'")
    np.testing.assert_array_equal(drawn_coordinates(umap), umap[["x", "y"]].to_numpy(dtype=np.float64))
    # DataMapPlot's glow under each colour's papers: a kernel 0.25 units wide, patches padded 8 widths,
    # so every glow lies within 2 drawn units of the papers (in raw units, it would be a needle on the map)
    from matplotlib.contour import ContourSet

    fig = plot_map_static(docs)
    ax = fig.axes[0]
    glows = [c for c in ax.collections if isinstance(c, ContourSet)]
    assert len(glows) >= 10, f"{len(glows)} glows for {docs['theme'].nunique()} themes"
    for glow in glows:
        box = glow.get_datalim(ax.transData)
        assert box.width > 0.2 and box.height > 0.2, box  # visible around a paper, not a needle
        assert box.x0 >= drawn[:, 0].min() - 2.01 and box.x1 <= drawn[:, 0].max() + 2.01, box
        assert box.y0 >= drawn[:, 1].min() - 2.01 and box.y1 <= drawn[:, 1].max() + 2.01, box


def _leaders(fig) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``(text, text position, anchor)`` of every theme label with a leader line, in map units (once each:
    DataMapPlot may draw a label twice)."""
    from matplotlib.text import Annotation

    out, seen = [], set()
    for ax in fig.axes:
        for artist in ax.texts:
            if isinstance(artist, Annotation) and artist.arrow_patch is not None and artist.get_text() not in seen:
                seen.add(artist.get_text())
                out.append((artist.get_text(), np.asarray(artist.xyann, float), np.asarray(artist.xy, float)))
    return out


def _crossings(leaders) -> int:
    """Pairs of leader lines (text centre to anchor) that cross."""

    def side(a, b, c) -> float:
        return float(np.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])))

    count = 0
    for i, (_, p1, q1) in enumerate(leaders):
        for _, p2, q2 in leaders[i + 1 :]:
            if side(p1, q1, p2) * side(p1, q1, q2) < 0 and side(p2, q2, p1) * side(p2, q2, q1) < 0:
                count += 1
    return count


def _anchors_in_another_theme(leaders, documents, k: int = 5) -> list[str]:
    """Labels whose anchor lies in another theme's cloud: fewer than half of the anchor's nearest papers (as
    many as the theme has, at most ``k``) are of the label's theme, although some paper of the theme has such
    a spot (a theme mixed with others everywhere has none: there its best spot counts)."""
    docs = documents[documents["status"] == "ok"].reset_index(drop=True)
    xy = drawn_coordinates(docs)
    theme = docs["theme"].astype("string").fillna("").to_numpy()

    def share(point, name, n) -> float:
        return float((theme[np.argsort(((xy - point) ** 2).sum(axis=1))[:n]] == name).mean())

    wrong = []
    for text, _, anchor in leaders:
        flat = text.replace("\n", "").replace(" ", "").replace("-", "")
        name = next(t for t in set(theme) if t.replace(" ", "").replace("-", "") == flat)
        n = min(k, int((theme == name).sum()))
        best = max(share(p, name, n) for p in xy[theme == name])
        if share(anchor, name, n) < min(0.5, best):
            wrong.append(name)
    return wrong


def test_static_map_labels_point_into_their_theme_and_leader_lines_do_not_cross(fitted, tmp_path):
    """A real fit's map (240 ICML abstracts, UMAP): each theme label's line ends where most nearby papers are of
    that theme (the largest dense region of the theme's points, not their centroid, which may lie in another
    theme's cloud), and no two leader lines cross."""
    fig = plot_map_static(fitted.documents_, title="ICML sample")
    leaders = _leaders(fig)
    save_map(fig, tmp_path / "map.png", dpi=100)
    assert len(leaders) >= 5
    wrong = _anchors_in_another_theme(leaders, fitted.documents_)
    assert wrong == []
    assert _crossings(leaders) == 0
    assert overlapping_labels(fig) == []


def test_crossing_leader_lines_are_swapped_apart():
    """Two labels whose lines cross (each text on the other's side) get each other's place: no crossing."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from icml_topics.plotting.static_labels import uncross_leaders

    fig, ax = plt.subplots(figsize=(6, 6))
    ax.set_xlim(-10, 10)
    ax.set_ylim(-10, 10)
    arrow = {"arrowstyle": "-"}
    left = ax.annotate("Left cloud", (-3, 0), xytext=(8, 5), ha="center", va="center", arrowprops=arrow)
    right = ax.annotate("Right cloud", (3, 0), xytext=(-8, 5), ha="center", va="center", arrowprops=arrow)
    assert _crossings(_leaders(fig)) == 1
    assert uncross_leaders(fig, ax) == 0
    assert _crossings(_leaders(fig)) == 0
    assert tuple(left.xyann) == (-8, 5) and tuple(right.xyann) == (8, 5)
    plt.close(fig)
