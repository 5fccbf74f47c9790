"""tm.explore() in a real JupyterLab driven by headless Chromium: a lasso drawn with the mouse selects
exactly the papers inside it, clicking a topic name selects that topic's papers, the year filter keeps
only that year's points; and outside a notebook explore() says what to use instead.

One server, one kernel and one fit serve the whole module: the kernel fits the session's 240 real ICML
abstracts (conftest's ``real_sample``, 2019 and 2024) with the settings of conftest's ``fitted``, so it reads
the vectors and stage results that fit left in the session's cache. The kernel writes what the test reads (the
documents' coordinates, the selection) as files in the server's temporary root."""

from __future__ import annotations

import json
import shutil

import nbformat
import numpy as np
import pandas as pd
import pytest
from browser import CHROMIUM_MISSING, chromium_available
from matplotlib.path import Path as PolygonPath

pytestmark = pytest.mark.browser

_FIT_CELL = """\
import json
from pathlib import Path
from icml_topics import TopicMap

tm = TopicMap(random_state=0).fit("sample.jsonl")
docs = tm.documents_
levels = [c for c in docs.columns if c.startswith("topic_") and c[6:].isdigit()]
docs[["id", "x", "y", "year", "status", "topic", "topic_label", "theme", *levels]].to_json("docs.json", orient="records")
tree = getattr(tm, "topic_tree_", None)
if tree is not None:
    tree.to_json("tree.json", orient="records")
explorer = tm.explore(height=520)
explorer.on_select(lambda papers: Path("on_select.json").write_text(json.dumps(papers["id"].tolist())))
explorer
"""
_DUMP_SELECTION = 'Path("selection.json").write_text(json.dumps(explorer.selection["id"].tolist()))'


@pytest.fixture(scope="module")
def lab(tmp_path_factory, real_sample, fitted):
    if not chromium_available():
        pytest.skip(CHROMIUM_MISSING)
    if shutil.which("jupyter") is None and not _has_jupyterlab():
        pytest.skip("jupyterlab is not installed (pip install jupyterlab; it is in the test extra)")
    from lab_session import lab_page, lab_server, wait_file

    root = tmp_path_factory.mktemp("lab")
    real_sample.to_json(root / "sample.jsonl", orient="records", lines=True)  # ``fitted`` filled the caches
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(_FIT_CELL)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / "explore.ipynb")
    with lab_server(root) as server, lab_page(server, "explore.ipynb") as page:
        page.run_all()
        wait_file(root / "docs.json", timeout_s=900)
        page.page.wait_for_selector(".icml-explore canvas", timeout=120_000)
        page.page.wait_for_function("() => document.querySelector('.icml-explore').dataset.view", timeout=60_000)
        yield page


def _has_jupyterlab() -> bool:
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        return False
    return True


def _docs(lab) -> pd.DataFrame:
    docs = pd.read_json(lab.server.root / "docs.json", orient="records", dtype={"id": str})
    return docs[docs["status"] == "ok"].reset_index(drop=True)


def _read(lab, name: str) -> set[str]:
    return set(json.loads((lab.server.root / name).read_text()))


def _selection(lab) -> set[str]:
    """``explorer.selection["id"]``, read in the kernel."""
    lab.run_cell(_DUMP_SELECTION, wait_for=lab.server.root / "selection.json")
    return _read(lab, "selection.json")


def _canvas(lab) -> tuple[dict, list[float]]:
    box = lab.page.locator(".icml-explore canvas").bounding_box()
    view = json.loads(lab.page.evaluate("() => document.querySelector('.icml-explore').dataset.view"))
    return box, view


def _to_px(box, view, x, y):
    x0, x1, y0, y1 = view
    return box["x"] + (x - x0) / (x1 - x0) * box["width"], box["y"] + (y1 - y) / (y1 - y0) * box["height"]


def _to_data(box, view, px, py):
    x0, x1, y0, y1 = view
    return x0 + (px - box["x"]) / box["width"] * (x1 - x0), y1 - (py - box["y"]) / box["height"] * (y1 - y0)


def _on_canvas(lab, px, py) -> bool:
    return lab.page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y) === document.querySelector('.icml-explore canvas')", [px, py]
    )


def _drag(lab, points, *, wait_name="on_select.json") -> set[str]:
    """Press at the first point, move through the others, release; the ids on_select reported."""
    (lab.server.root / wait_name).unlink(missing_ok=True)
    mouse = lab.page.mouse
    mouse.move(*points[0])
    mouse.down()
    for p in points[1:]:
        mouse.move(*p)
    mouse.up()
    from lab_session import wait_file

    wait_file(lab.server.root / wait_name, timeout_s=60)
    return _read(lab, wait_name)


def _clear(lab) -> None:
    lab.page.click(".icml-explore-clear")
    lab.page.wait_for_function("() => !document.querySelector('.icml-explore-side-head').textContent.match(/^\\d/)")


def test_lasso_selects_exactly_the_papers_inside_it(lab):
    docs = _docs(lab)
    box, view = _canvas(lab)
    cx, cy = float(docs["x"].median()), float(docs["y"].median())
    span = min(view[1] - view[0], view[3] - view[2])
    angles = np.linspace(0, 2 * np.pi, 7)[:-1] + 0.3
    radii = span * np.array([0.22, 0.3, 0.18, 0.28, 0.2, 0.32])
    # integer pixels, so the browser's pointer positions are exactly the polygon's vertices
    pixels = [
        tuple(round(v) for v in _to_px(box, view, cx + r * np.cos(a), cy + r * np.sin(a)))
        for a, r in zip(angles, radii)
    ]
    start = next(i for i, p in enumerate(pixels) if _on_canvas(lab, *p))  # not on a label (a label is clickable)
    pixels = pixels[start:] + pixels[:start]
    polygon = np.array([_to_data(box, view, *p) for p in pixels])
    inside = PolygonPath(polygon).contains_points(docs[["x", "y"]].to_numpy())
    expected = set(docs.loc[inside, "id"])
    assert 20 <= len(expected) < len(docs)  # a real region, not everything

    reported = _drag(lab, [*pixels, pixels[0]])
    assert reported == expected
    assert _selection(lab) == expected
    head = lab.page.inner_text(".icml-explore-side-head")
    assert head.startswith(f"{len(expected)} selected")
    titles = lab.page.locator(".icml-explore-title").all_inner_texts()
    assert len(titles) == min(len(expected), 300)
    _clear(lab)


def test_clicking_a_topic_name_selects_its_papers(lab):
    docs = _docs(lab)
    box, _ = _canvas(lab)
    centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    lab.page.mouse.move(*centre)
    for _ in range(12):  # zoom in until topic names replace the theme names
        if lab.page.evaluate("() => document.querySelector('.icml-explore').dataset.layer") != "0":
            break
        lab.page.mouse.wheel(0, -250)
        lab.page.wait_for_timeout(150)
    labels = lab.page.evaluate(
        """() => Array.from(document.querySelectorAll('.icml-explore .icml-map-label.shown'))
             .map(d => ({text: d.textContent, level: d.dataset.level}))"""
    )
    assert labels and all(lab_["level"] != "theme" for lab_ in labels)
    tree_path = lab.server.root / "tree.json"
    if labels[0]["level"] == "topic" or not tree_path.exists():
        names = docs.groupby("topic")["topic_label"].first()
        column = "topic"
    else:
        tree = pd.read_json(tree_path, orient="records")
        names = tree[tree["level"] == int(labels[0]["level"])].set_index("topic")["label"]
        column = f"topic_{labels[0]['level']}"
    unique = [lab_["text"] for lab_ in labels if (names == lab_["text"]).sum() == 1]
    text = unique[0]
    node = names.index[names == text][0]
    expected = set(docs.loc[docs[column] == node, "id"])
    assert len(expected) >= 3

    (lab.server.root / "on_select.json").unlink(missing_ok=True)
    target = lab.page.evaluate(
        """text => { const d = Array.from(document.querySelectorAll('.icml-explore .icml-map-label.shown'))
                       .find(d => d.textContent === text).getBoundingClientRect();
                     return [d.left + d.width / 2, d.top + d.height / 2]; }""",
        text,
    )
    lab.page.mouse.click(*target)
    from lab_session import wait_file

    wait_file(lab.server.root / "on_select.json", timeout_s=60)
    assert _read(lab, "on_select.json") == expected
    assert _selection(lab) == expected
    lab.page.click(".icml-explore-reset")
    _clear(lab)


def test_year_filter_keeps_only_that_years_points(lab):
    docs = _docs(lab)
    year = 2019
    lab.page.select_option(".icml-explore-year", str(year))
    n_year = int((docs["year"] == year).sum())
    lab.page.wait_for_function(
        "n => document.querySelector('.icml-explore canvas').dataset.drawn === String(n)", arg=n_year, timeout=10_000
    )
    # a box over the whole canvas now selects that year's papers, and only them
    lab.page.click(".icml-explore-mode[data-mode=box]")
    box, _ = _canvas(lab)
    corners = [(box["x"] + 1, box["y"] + 1), (box["x"] + box["width"] - 2, box["y"] + box["height"] - 2)]
    corners = [c for c in corners if _on_canvas(lab, *c)]
    assert len(corners) == 2
    reported = _drag(lab, corners)
    expected = set(docs.loc[docs["year"] == year, "id"])
    assert reported == expected
    assert _selection(lab) == expected
    lab.page.select_option(".icml-explore-year", "")
    lab.page.wait_for_function(
        "n => document.querySelector('.icml-explore canvas').dataset.drawn === String(n)", arg=len(docs)
    )
    assert lab.page_errors == [] and lab.external_requests == []


def test_explore_outside_a_notebook_says_what_to_use_instead(fitted):
    with pytest.raises(RuntimeError, match=r"needs a running Jupyter kernel.*tm\.plot_map\(\)"):
        fitted.explore()


def test_explorer_selection_search_and_year_in_python():
    """The Python side of the widget, without a browser: selection rows, callbacks, search, year filter."""
    from icml_topics.plotting.explore import MapExplorer

    docs = pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(8)],
            "title": ["Graph nets", "Bandits", "Graph kernels", "Adam", "RLHF", "Diffusion", "GNN pooling", "Dropped"],
            "abstract": ["", "", "", "", "", "", "graph pooling", ""],
            "year": pd.array([2019, 2019, 2024, 2024, 2019, 2024, 2024, 2024], dtype="Int64"),
            "status": ["ok"] * 7 + ["empty"],
            "x": [0.0, 1, 2, 3, 4, 5, 6, np.nan],
            "y": [0.0, 1, 0, 1, 0, 1, 0, np.nan],
            "topic": [0, 1, 0, 2, 1, -1, 0, pd.NA],
            "topic_label": ["graphs", "bandits", "graphs", "optimisers", "bandits", "", "graphs", ""],
            "theme": [
                "Graph learning",
                "RL",
                "Graph learning",
                "Optimization",
                "RL",
                "Generative",
                "Graph learning",
                "",
            ],
        }
    ).set_index("id", drop=False)
    explorer = MapExplorer(docs)
    assert explorer.selection.empty and list(explorer.selection.columns) == list(docs.columns)
    assert len(explorer.data["x"]) == 7 and explorer.years == [2019, 2024]  # the dropped row is not drawn
    seen = []
    assert explorer.on_select(lambda papers: seen.append(list(papers["id"]))) is not None
    explorer.select(["p0", "p2", "p6", "p7"])  # p7 is not on the map: it cannot be selected
    assert seen[-1] == ["p0", "p2", "p6"]
    assert explorer.selection.equals(docs.loc[["p0", "p2", "p6"]])
    explorer.year = 2024  # the selection keeps that year's papers only
    assert seen[-1] == ["p2", "p6"] and list(explorer.selection["id"]) == ["p2", "p6"]
    explorer.query = "graph"
    assert [explorer.data["title"][i] for i in explorer.hits] == ["Graph nets", "Graph kernels", "GNN pooling"]
    explorer.query = "g"  # too short to search
    assert explorer.hits == []
    topics = next(layer for layer in explorer.layers if layer["level"] == "topic")
    graphs = next(lab for lab in topics["labels"] if lab["text"] == "graphs")
    assert [i for i, node in enumerate(topics["groups"]) if node == graphs["node"]] == [0, 2, 6]
    with pytest.raises(TypeError, match="on_select needs a function"):
        explorer.on_select("print")


def test_select_reads_any_boolean_mask_as_a_mask(fitted):
    """``select(documents_["year"] == 2024)``: the nullable year column gives a pandas ``boolean`` mask, which
    selects that year's papers (it once read as the ids "True"/"False" and selected none); numpy bool arrays,
    bool lists and masks with missing values (False) select the same rows; a mask of the wrong length or of
    another index is an error, never an empty selection."""
    from icml_topics.errors import InvalidValueError
    from icml_topics.plotting.explore import MapExplorer

    docs = fitted.documents_
    explorer = MapExplorer(docs)
    on_map = docs["x"].notna().to_numpy() & docs["y"].notna().to_numpy()
    years = docs["year"].astype("float64").to_numpy()
    expected = set(docs["id"][on_map & (years == 2024)])
    assert len(expected) > 50
    mask = docs["year"] == 2024
    assert str(mask.dtype) == "boolean"
    assert set(explorer.select(mask).selection["id"]) == expected
    assert set(explorer.select(mask.to_numpy(dtype=bool, na_value=False)).selection["id"]) == expected
    assert set(explorer.select(list(mask.to_numpy(dtype=bool, na_value=False))).selection["id"]) == expected
    assert set(explorer.select(mask.iloc[::-1]).selection["id"]) == expected  # aligned by index, not position
    with_missing = mask.copy()
    with_missing.iloc[0] = pd.NA
    assert set(explorer.select(with_missing).selection["id"]) == expected - {docs["id"].iloc[0]}
    with pytest.raises(InvalidValueError, match=r"mask of 3 values for \d+ papers"):
        explorer.select(mask.to_numpy(dtype=bool, na_value=False)[:3])
    with pytest.raises(InvalidValueError, match="shares no label"):
        explorer.select(mask.reset_index(drop=True).set_axis(range(10_000, 10_000 + len(mask))))
