"""Execute the notebooks in ``notebooks/`` end to end, offline, so that they never rot.

Each notebook runs in a fresh ``python3`` kernel of the current interpreter (checked), inheriting
the session's embedding cache (``ICML_TOPICS_CACHE_DIR``, set by conftest) and ``HF_HUB_OFFLINE=1``.
Any cell error fails the test with the cell's traceback; the assertions then read the executed
notebook's outputs (figures, tables, printed results). The kernel's temporary folder is the test's
``tmp_path``, so the notebooks' files land there, and the test checks nothing is written next to them.

The two ICML notebooks use the same 240 abstracts as conftest's ``real_sample`` (120 of ICML 2019, 120
of ICML 2024), so their embeddings are computed once per session; ``what_changed.ipynb`` embeds its own
1,500 ICLR submissions. A cell that shows a warning (stderr output, "...Warning: ..." text) fails the
test as an error does. ``test_committed_notebooks_show_their_outputs`` reads the committed files only.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from conftest import ICML, SEEDS, SHARED_DATA
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
QUICKSTART = "quickstart.ipynb"
CROSS_YEAR = "cross_year_comparison.ipynb"
WHAT_CHANGED = "what_changed.ipynb"
ICLR = SHARED_DATA / "iclr-2024-2025-areas.jsonl.gz"
ACCEPTED = ("oral", "spotlight", "poster")
PLOTLY = "application/vnd.plotly.v1+json"
# The shared sample; conftest's real_sample must stay the same so that the embedding cache is shared.
SAMPLE_LINE = (
    "sample = pd.concat([icml[icml.year == y].sample(n=120, random_state=7) for y in (2019, 2024)], ignore_index=True)"
)
# A warning as Python's warnings module or logging prints it ("UserWarning: ...", "WARNING:root:...").
WARNING = re.compile(r"\b\w*Warning: |^WARNING\b")
# Run first in the kernel: the interpreter it runs on (must be this one, so the same icml_topics is imported).
PROBE = "import sys\nprint('KERNEL_PREFIX=' + sys.prefix)"


# --------------------------------------------------------------------------------------- helpers
def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if ".ipynb_checkpoints" not in p.parts}


def execute(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_data: Path) -> nbformat.NotebookNode:
    """Run notebook ``name`` top to bottom in a fresh kernel; return the executed notebook (in memory only)."""
    assert "ICML_TOPICS_CACHE_DIR" in os.environ, "conftest sets the session embedding cache"
    monkeypatch.setenv("ICML_TOPICS_SHARED_DATA", str(shared_data))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # tempfile.mkdtemp() in the kernel -> under tmp_path
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(PROBE))
    before = _files(NOTEBOOKS)
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=900,
        allow_errors=False,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute()  # raises CellExecutionError (with the cell's traceback) on any error
    probe = _text(nb.cells[0])
    assert f"KERNEL_PREFIX={sys.prefix}" in probe, (
        f"kernel ran on another interpreter: {probe!r}, expected {sys.prefix}"
    )
    assert _files(NOTEBOOKS) == before, "executing the notebook wrote files into notebooks/"
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    warned = warnings_shown(nb)
    assert not warned, f"{name} shows warnings or stderr output in its cells: {warned}"
    loading = [bar for bar in progress_bars_shown(nb) if "Loading weights" in bar]
    assert not loading, f"{name} shows transformers' weight-loading bar: {loading}"
    return nb


def progress_bars_shown(nb: nbformat.NotebookNode) -> list[str]:
    """Outputs that are a progress bar (a tqdm widget: ours while embedding many texts, or transformers'
    "Loading weights", which must never show): noise in a committed notebook, and a widget GitHub cannot
    render. Executing a notebook may show ours; a committed notebook is saved without them."""
    bars = []
    for c in nb.cells:
        for o in c.get("outputs", []) if c.cell_type == "code" else []:
            data = o.get("data", {})
            text = "".join(data.get("text/plain", "")) + "".join(o.get("text", ""))
            if "application/vnd.jupyter.widget-view+json" in data or "Loading weights" in text:
                bars.append(text[:80])
    return bars


def warnings_shown(nb: nbformat.NotebookNode) -> list[str]:
    """What the notebook's code cells show on stderr (Python warnings, logging, tqdm bars) or as a
    warning in any other text output, each as ``"cell <n>: <first line>"``."""
    found = []
    for number, c in enumerate(nb.cells):
        if c.cell_type != "code":
            continue
        for o in c.outputs:
            if o.output_type == "stream" and o.name == "stderr" and o.text.strip():
                found.append(f"cell {number}: {o.text.strip().splitlines()[0]}")
            elif o.output_type in ("stream", "execute_result", "display_data"):
                text = o.text if o.output_type == "stream" else o.data.get("text/plain", "")
                found += [f"cell {number}: {line.strip()}" for line in text.splitlines() if WARNING.search(line)]
    return found


def cell(nb: nbformat.NotebookNode, snippet: str, *, exact: bool = False) -> nbformat.NotebookNode:
    """The one code cell whose source contains ``snippet`` (or is ``snippet``, with ``exact``)."""
    found = [
        c for c in nb.cells if c.cell_type == "code" and (c.source.strip() == snippet if exact else snippet in c.source)
    ]
    assert len(found) == 1, f"expected one cell containing {snippet!r}, found {len(found)}"
    return found[0]


def _text(c: nbformat.NotebookNode) -> str:
    """Everything a cell printed or returned as text (stdout and text/plain results)."""
    parts = [o.text for o in c.outputs if o.output_type == "stream" and o.name == "stdout"]
    parts += [
        o.data["text/plain"]
        for o in c.outputs
        if o.output_type in ("execute_result", "display_data") and "text/plain" in o.data
    ]
    return "\n".join(parts)


def figure(c: nbformat.NotebookNode) -> dict:
    """The plotly figure a cell displayed (its JSON)."""
    figs = [
        o.data[PLOTLY] for o in c.outputs if o.output_type in ("execute_result", "display_data") and PLOTLY in o.data
    ]
    assert len(figs) == 1, f"cell {c.source!r} displayed {len(figs)} plotly figures"
    assert figs[0]["data"], "the figure has no traces"
    return figs[0]


def table_rows(c: nbformat.NotebookNode) -> int:
    """Number of body rows of the DataFrame a cell returned (from its HTML rendering)."""
    html = [o.data["text/html"] for o in c.outputs if o.output_type == "execute_result" and "text/html" in o.data]
    assert html, f"cell {c.source!r} returned no table"
    body = re.search(r"<tbody>(.*)</tbody>", html[0], re.S)
    assert body, "no table body"
    return body.group(1).count("<tr")


def _trace_types(fig: dict) -> set[str]:
    return {t.get("type", "scatter") for t in fig["data"]}


# ----------------------------------------------------------------------------------------- tests
def test_quickstart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the shared 240-abstract sample; without the shared data, on the bundled 38 abstracts (the
    notebook's offline fallback), so the notebook is checked everywhere."""
    if ICML.exists():
        shared, n = ICML.parent, 240
    else:
        shared, n = tmp_path / "no-shared-data", 38
    nb = execute(QUICKSTART, tmp_path, monkeypatch, shared)

    loaded = _text(cell(nb, "shared = find_shared_data()"))
    assert ("using a sample of 240" if n == 240 else "Falling back to the bundled sample") in loaded

    summary = _text(cell(nb, "tm = TopicMap(random_state=42).fit(sample)"))
    assert f"'modelled': {n}" in summary
    assert table_rows(cell(nb, "tm.themes_", exact=True)) > 3
    assert table_rows(cell(nb, "tm.topics_.head()")) >= 2
    reasons = _text(cell(nb, 'reasons = tm.documents_["theme_reason"]'))
    assert re.search(rf"^own evidence\s+{n}$", reasons, re.M), reasons  # every paper has a theme from its evidence

    topic_map = figure(cell(nb, "tm.plot_map()"))
    points = sum(
        len(t.get("x") or []) for t in topic_map["data"] if t.get("type", "scatter") in ("scatter", "scattergl")
    )
    assert points >= n, f"the map shows {points} points for {n} abstracts"
    assert _trace_types(figure(cell(nb, "tm.plot_hierarchy()"))) & {"sunburst", "treemap"}

    assert table_rows(cell(nb, "tm.theme_ranking(k=3)")) == 9
    custom = cell(nb, "tm.set_taxonomy(my_taxonomy)")
    assert "document embeddings re-used (same array): True" in _text(custom)
    assert 1 <= table_rows(custom) <= 7
    assert "(renamed)" in _text(cell(nb, "tm.rename_theme(largest, new_name)"))
    assert table_rows(cell(nb, "placed = tm.transform(new_abstracts)")) == 2
    metrics = _text(cell(nb, "tm.evaluate()"))
    assert "coherence_npmi" in metrics and "topic_diversity" in metrics

    assert "same themes after loading: True" in _text(cell(nb, "TopicMap.load("))
    reports = list(tmp_path.glob("icml-topics-quickstart-*/report.html"))
    assert len(reports) == 1 and reports[0].stat().st_size > 100_000
    assert "(renamed)" in reports[0].read_text(encoding="utf-8"), "the report shows the edited theme name"


def test_cross_year_comparison(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for path in (ICML, SEEDS):
        if not path.exists():
            pytest.skip(f"shared corpus {path.name} not found in {path.parent} (third-party data, not in the repo)")
    nb = execute(CROSS_YEAR, tmp_path, monkeypatch, ICML.parent)

    counts = _text(cell(nb, "corpus = pd.concat([sample, seeds]"))
    assert re.search(r"2019\s+120", counts) and re.search(r"2024\s+120", counts) and re.search(r"2026\s+38", counts)

    shares = figure(cell(nb, "plot_theme_shares(shares, top=8)"))
    assert len(shares["data"]) == 8 and all(t.get("error_y") for t in shares["data"])
    assert _trace_types(figure(cell(nb, "plot_year_theme_heatmap(shares)"))) == {"heatmap"}
    assert _trace_types(figure(cell(nb, "plot_movers(movers"))) == {"bar"}
    assert _trace_types(figure(cell(nb, "plot_alignment_sankey("))) == {"sankey"}

    # The 2026 seeds (38 papers) have much wider intervals than the 120-paper years.
    widths = {
        int(y): float(w)
        for y, w in re.findall(r"^(\d{4})\s+\d+\s+([\d.]+)%", _text(cell(nb, "mean_interval_width")), re.M)
    }
    assert set(widths) == {2019, 2024, 2026}
    assert widths[2026] > 1.4 * max(widths[2019], widths[2024]), widths

    assert table_rows(cell(nb, "movers = theme_movers(")) >= 3
    assert "matched" in _text(cell(nb, "alignment = align_models("))

    compared = _text(cell(nb, "result = compare("))
    assert "periods compared: (2019, 2024)" in compared
    reports = list(tmp_path.glob("icml-topics-compare-*/compare/report.html"))
    assert len(reports) == 1 and reports[0].stat().st_size > 100_000
    assert (reports[0].parent / "movers.csv").is_file() and (reports[0].parent / "theme_shares.csv").is_file()


def test_what_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not ICLR.exists():
        pytest.skip(f"shared corpus {ICLR.name} not found in {ICLR.parent} (third-party data, not in the repo)")
    nb = execute(WHAT_CHANGED, tmp_path, monkeypatch, ICLR.parent)

    # The expected counts come from the raw file, read here with pandas alone.
    iclr = pd.read_json(ICLR, lines=True)
    sample = pd.concat([iclr[iclr.year == y].sample(n=750, random_state=0) for y in (2024, 2025)])
    decided = sample[sample["status"].notna()]
    expected = decided.groupby("year")["status"].agg(lambda s: (int(s.isin(ACCEPTED).sum()), len(s)))

    assert re.search(r"All\s+750\s+750\s+1500", _text(cell(nb, "iclr = pd.read_json(")))
    assert "'modelled': 1500" in _text(cell(nb, "tm = TopicMap(random_state=0).fit(sample)"))
    assert table_rows(cell(nb, 'tree.groupby("level")')) >= 2, "the tree has several levels"
    assert table_rows(cell(nb, "trends = tm.topic_trends(")) >= 2
    assert figure(cell(nb, "plot_share_dumbbell("))["data"]
    # which nodes pass q < 0.05 depends on the CPU's int8 kernels (section 4 of the notebook says so):
    # whats_new lists exactly the statuses asked for, and nothing where the status table has none of them
    counted = _text(cell(nb, 'status = tm.topic_status(by="year")')).splitlines()[0].split()
    for code, listed, other in (
        ("new = tm.whats_new(2025)", ("new", "emerging"), ("stable", "declining", "vanished")),
        ("faded = tm.whats_new(2025, statuses=", ("declining", "vanished"), ("stable", "new", "emerging")),
    ):
        shown = _text(cell(nb, code))
        assert not re.search(rf"\b({'|'.join(other)})\s*$", shown, re.M), shown
        if set(listed) & set(counted):
            assert re.search(rf"\b({'|'.join(listed)})\s*$", shown, re.M), (counted, shown)
        else:
            assert shown.startswith("Empty DataFrame"), (counted, shown)
    wording = _text(cell(nb, "wording = tm.topic_wording("))
    assert re.search(r"^2024 \(\d+ papers\)", wording, re.M) and re.search(r"^2025 \(\d+ papers\)", wording, re.M)
    novelty = _text(cell(nb, 'novelty.groupby("year")'))
    assert re.search(r"^2024\s+0\.0\s+NaN", novelty, re.M) and re.search(r"^2025\s+750\.0\s", novelty, re.M)
    by_year = _text(cell(nb, 'tm.acceptance("year")', exact=True))
    for year, (accepted, n) in expected.items():
        assert re.search(rf"^\d+\s+{year}\s+{accepted}\s+{n}\s", by_year, re.M), (year, accepted, n, by_year)
    assert table_rows(cell(nb, 'acceptance = tm.acceptance("theme")')) >= 5
    assert table_rows(cell(nb, 'nodes = tm.acceptance("topic")')) >= 2
    assert _trace_types(figure(cell(nb, "plot_movers(movers"))) == {"bar"}


LOCAL_PATH = re.compile(r"(/work/|/home/|/root/|/tmp/|/Users/|[A-Z]:\\\\Users)")


@pytest.mark.parametrize("name", [QUICKSTART, CROSS_YEAR, WHAT_CHANGED])
def test_committed_notebooks_show_their_outputs(name: str) -> None:
    """What GitHub shows: every code cell executed in order with an output (imports and definitions
    aside), no error, no warning, no path of the machine that ran it, a file small enough to render."""
    path = NOTEBOOKS / name
    assert path.stat().st_size < 3_000_000, f"{name} is {path.stat().st_size:,} bytes"
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    counts = [c.execution_count for c in code]
    assert counts == list(range(1, len(code) + 1)), f"{name} was not executed top to bottom: {counts}"
    with_output = [c for c in code if c.outputs]
    assert len(with_output) >= len(code) / 2, f"only {len(with_output)} of {len(code)} code cells show an output"
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not warnings_shown(nb)
    assert not progress_bars_shown(nb), f"{name} shows progress bars: {progress_bars_shown(nb)}"
    shown = "\n".join(str(o) for c in code for o in c.outputs)
    assert not LOCAL_PATH.findall(shown), f"{name} shows local paths: {sorted(set(LOCAL_PATH.findall(shown)))}"
