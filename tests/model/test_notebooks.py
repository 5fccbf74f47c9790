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

The notebooks' prose types no number of a run: the sentences with numbers are printed by code cells.
``check_quickstart``, ``check_cross_year`` and ``check_what_changed`` hold them to the executed outputs:
the printed numbers agree with the tables beside them, every paper has a node at every level of the
tree (``topic`` is ``topic_0``, no outliers), and every ``stability`` is in [0, 1] or NaN. None of them
depends on which nodes pass q < 0.05, which can change with the CPU's embedding vectors.
"""

from __future__ import annotations

import html
import os
import re
import sys
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from conftest import ICML, SEEDS, SHARED_DATA
from nbclient import NotebookClient

from icml_topics.evaluate.names import DEFECTS

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


def _cells(row: str) -> list[str]:
    return [
        html.unescape(re.sub(r"<[^>]+>", "", x)).strip() for x in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)
    ]


def frame(c: nbformat.NotebookNode) -> pd.DataFrame:
    """The DataFrame a cell returned, read back from its HTML rendering (one header row of column names:
    a table with a simple index and columns). The index becomes the first column, named ``index`` when
    unnamed; cells are strings, numbers where they parse."""
    html_out = [o.data["text/html"] for o in c.outputs if o.output_type == "execute_result" and "text/html" in o.data]
    assert html_out, f"cell {c.source!r} returned no table"
    table = re.search(r"<table.*?</table>", html_out[0], re.S)
    assert table, "no table"
    head = re.search(r"<thead>(.*?)</thead>", table.group(0), re.S)
    body = re.search(r"<tbody>(.*?)</tbody>", table.group(0), re.S)
    assert head and body, "no table head or body"
    header = re.findall(r"<tr[^>]*>(.*?)</tr>", head.group(1), re.S)
    names = _cells(header[0])
    if len(header) > 1:  # a named index: its name is the first cell of the second header row
        names[0] = _cells(header[1])[0] or names[0]
    names[0] = names[0] or "index"
    rows = [_cells(r) for r in re.findall(r"<tr[^>]*>(.*?)</tr>", body.group(1), re.S)]
    assert all(len(r) == len(names) for r in rows), (names, rows[:2])
    out = pd.DataFrame(rows, columns=names)
    for column in out.columns:
        numbers = pd.to_numeric(out[column].replace({"NaN": None, "<NA>": None}), errors="coerce")
        if numbers.notna().sum() == out[column].replace({"NaN": None, "<NA>": None}).notna().sum():
            out[column] = numbers
    return out


def check_stability(values: pd.Series) -> None:
    """A node's stability is a share of perturbed runs (in [0, 1]) or NaN (a node no run could split)."""
    values = pd.to_numeric(values, errors="coerce")
    assert values.dropna().between(0, 1).all(), values.tolist()


def table_empty(c: nbformat.NotebookNode) -> bool:
    return "Empty DataFrame" in _text(c)


#: rows the name-checks cell shows at most (the largest flagged nodes)
NAME_ROWS = 15


def check_name_checks(nb: nbformat.NotebookNode, nodes: int | None) -> int:
    """The cell that shows ``tm.name_checks()`` (issue 49: a shown name is judged with its papers): its
    sentence counts the tree's ``nodes`` (``None``: not known to the caller) and the flagged ones, its table lists the flagged nodes (the
    ``NAME_ROWS`` largest), each with checks of ``DEFECTS``, largest first. Returns the number flagged."""
    c = cell(nb, "checks = tm.name_checks()")
    said = re.search(r"names that fail a check of names: (\d+) of (\d+) nodes", _text(c))
    assert said, _text(c)
    flagged, of = map(int, said.groups())
    assert (nodes is None or of == nodes) and flagged <= of, (said.group(0), nodes)
    shown = pd.DataFrame(columns=["size", "name_defects"]) if table_empty(c) else frame(c)
    assert len(shown) == min(flagged, NAME_ROWS), (flagged, shown)
    assert (", the 15 largest below" in _text(c)) == (flagged > NAME_ROWS)
    assert shown["size"].is_monotonic_decreasing or len(shown) < 2, shown
    for defects in shown["name_defects"]:
        items = str(defects).split("; ")
        if items[-1].endswith("..."):  # pandas cuts a long cell (display.max_colwidth): the last one cut
            cut = items.pop()[:-3]
            assert any(d.startswith(cut) for d in DEFECTS), defects
        assert defects and set(items) <= set(DEFECTS), defects
    return flagged


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
    check_quickstart(nb, n)

    reports = list(tmp_path.glob("icml-topics-quickstart-*/report.html"))
    assert len(reports) == 1 and reports[0].stat().st_size > 100_000
    assert "(renamed)" in reports[0].read_text(encoding="utf-8"), "the report shows the edited theme name"


def check_quickstart(nb: nbformat.NotebookNode, n: int) -> None:
    """What the quick-start's prose says of its outputs, on ``n`` modelled abstracts."""
    summary = _text(cell(nb, "tm = TopicMap(random_state=42).fit(sample)"))
    assert f"'modelled': {n}" in summary
    # the depth follows the corpus: the cell says how many levels the fit has, and the tables agree
    depth, printed_levels = re.search(r"tree levels below the themes: (\d+) \(levels \[([\d, ]+)\]", summary).groups()
    levels = [int(v) for v in printed_levels.split(",")]
    assert levels == list(range(int(depth))) and 1 <= int(depth) <= 2, summary  # a few hundred papers: 1 or 2
    assert "'outlier share': 0.0," in summary, "the prose says every modelled paper has a topic"
    assert table_rows(cell(nb, "tm.themes_", exact=True)) > 3

    # the tree: every paper has a node at every level, topic == topic_0, stability in [0, 1] or NaN
    tree_cell = cell(nb, 'per_level = tree.groupby("level")')
    every_level = ", ".join(f"level {lv}: {n}" for lv in levels)
    assert f"{n} modelled papers; papers with a node at {every_level}" in _text(tree_cell), _text(tree_cell)
    assert "documents_.topic is the finest level (topic_0): True" in _text(tree_cell)
    per_level = frame(tree_cell)
    assert per_level["level"].tolist() == levels, per_level
    assert (per_level["papers"] == n).all(), "every level holds every modelled paper once"
    assert (per_level["with_stability"] <= per_level["nodes"]).all()
    check_stability(per_level["median_stability"])
    assert (per_level["nodes"].diff().dropna() <= 0).all(), "a coarser level has no more nodes than a finer one"
    check_name_checks(nb, int(per_level["nodes"].sum()))

    # a node's children (a topic's subtopics, or a theme's topics in a one-level tree) hold all its papers
    children = cell(nb, "largest_topic = tree[")
    size = int(re.search(r"\b(\d+) papers[,)].* holds:", _text(children)).group(1))
    assert ("the tree has one level" in _text(children)) == (levels == [0]), _text(children)
    subtopics = frame(children)
    assert subtopics["size"].sum() == size, (size, subtopics)
    check_stability(subtopics["stability"])

    topics = frame(cell(nb, "tm.topics_.head()"))
    assert len(topics) >= 2 and "stability" in topics
    check_stability(topics["stability"])
    documents = frame(cell(nb, 'columns = ["id", "year", "title", "topic", "topic_label", *level_columns'))
    assert documents["topic_similarity"].between(-1, 1).all()
    assert {f"topic_{lv}" for lv in levels if lv > 0} <= set(documents.columns), "every coarser level is shown"
    reasons = _text(cell(nb, 'reasons = tm.documents_["theme_reason"]'))
    assert re.search(rf"^own evidence\s+{n}$", reasons, re.M), reasons  # every paper has a theme from its evidence

    # core papers: the printed counts are those of the table
    core_cell = cell(nb, 'core = docs[docs["topic_similarity"] >= cutoff]')
    core, total = map(int, re.search(r"core papers: (\d+) of (\d+)", _text(core_cell)).groups())
    assert total == n and 0 < core <= n
    members, in_core = map(int, re.search(r"': (\d+) papers, (\d+) core", _text(core_cell)).groups())
    shown = frame(core_cell)
    assert len(shown) == members and (shown["core"] == "True").sum() == in_core
    assert shown["topic_similarity"].is_monotonic_decreasing
    kept, left = (shown.loc[shown["core"] == flag, "topic_similarity"] for flag in ("True", "False"))
    assert kept.empty or left.empty or kept.min() >= left.max(), "the core papers are the most similar ones"

    topic_map = figure(cell(nb, "tm.plot_map()"))
    points = sum(
        len(t.get("x") or []) for t in topic_map["data"] if t.get("type", "scatter") in ("scatter", "scattergl")
    )
    assert points >= n, f"the map shows {points} points for {n} abstracts"
    assert _trace_types(figure(cell(nb, "tm.plot_hierarchy()"))) & {"sunburst", "treemap"}

    assert table_rows(cell(nb, "tm.theme_ranking(k=3)")) == 9
    assert re.search(rf"at least half the probability of their theme: \d+ of {n}$", _text(cell(nb, "between = ")), re.M)
    custom = cell(nb, "tm.set_taxonomy(my_taxonomy)")
    assert "document embeddings re-used (same array): True" in _text(custom)
    assert 1 <= table_rows(custom) <= 7
    no_theme = re.search(r"no-theme share: ([\d.]+)% \((\d+) papers\)", _text(cell(nb, "no_theme = docs[")))
    assert no_theme, _text(cell(nb, "no_theme = docs["))
    assert abs(float(no_theme.group(1)) - 100 * int(no_theme.group(2)) / n) < 0.051
    assert "(renamed)" in _text(cell(nb, "tm.rename_theme(largest, new_name)"))
    placed = frame(cell(nb, "placed = tm.transform(new_abstracts)"))
    assert len(placed) == 2 and placed["topic_similarity"].between(-1, 1).all()
    metrics = _text(cell(nb, "tm.evaluate()", exact=True))
    assert "coherence_npmi" in metrics and "topic_diversity" in metrics and "'outlier_share': 0.0," in metrics

    # the held-out sentence is the dict below it, in words
    heldout = _text(cell(nb, "tune, heldout = load_theme_labels"))
    sentence = re.search(r"on the (\d+) held-out papers .*theme accuracy ([\d.]+) \((\d+) of (\d+)\)", heldout)
    if sentence:
        labelled, accuracy, right, of = sentence.groups()
        assert labelled == of and re.search(rf"'n_labelled': {of}\b", heldout)
        exact = float(re.search(r"'theme_accuracy': ([\d.]+)", heldout).group(1))
        assert f"{exact:.2f}" == accuracy and int(right) == round(exact * int(of))
    else:
        assert "'n_labelled'" not in heldout or "'n_labelled': 0" in heldout, heldout

    saved = _text(cell(nb, "TopicMap.load("))
    assert "same themes after loading: True" in saved and "same topic tree after loading: True" in saved


def test_cross_year_comparison(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for path in (ICML, SEEDS):
        if not path.exists():
            pytest.skip(f"shared corpus {path.name} not found in {path.parent} (third-party data, not in the repo)")
    nb = execute(CROSS_YEAR, tmp_path, monkeypatch, ICML.parent)
    check_cross_year(nb)

    reports = list(tmp_path.glob("icml-topics-compare-*/compare/report.html"))
    assert len(reports) == 1 and reports[0].stat().st_size > 100_000
    assert (reports[0].parent / "movers.csv").is_file() and (reports[0].parent / "theme_shares.csv").is_file()
    assert not (reports[0].parent / "alignment.csv").exists(), "compare() aligns only with align=True"


MOVER = re.compile(r"^  - (.+) \((\d+) → (\d+) papers, ([+-][\d.]+) points, \[([+-][\d.]+), ([+-][\d.]+)\]\)$")


def check_cross_year(nb: nbformat.NotebookNode) -> None:
    """What the cross-year notebook's prose says of its outputs."""
    counts = _text(cell(nb, "corpus = pd.concat([sample, seeds]"))
    assert re.search(r"2019\s+120", counts) and re.search(r"2024\s+120", counts) and re.search(r"2026\s+38", counts)
    fitted = _text(cell(nb, "tm = TopicMap(random_state=42).fit(corpus)"))
    assert "'outlier share': 0.0," in fitted
    finest = int(re.search(r"(\d+) topics at the finest level", fitted).group(1))
    assert check_name_checks(nb, finest if "1 tree level(s)" in fitted else None) >= 0

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

    # the movers in words: each listed theme as in the table (where the table's first rows show it)
    movers_cell = cell(nb, "movers = theme_movers(")
    assert table_rows(movers_cell) >= 3
    table = frame(movers_cell).set_index("theme")
    said = _text(cell(nb, "def mover(row)"))
    blocks = {
        d: (int(k), items)
        for d, k, items in re.findall(r"^(rising|declining): (\d+) theme\(s\)\n((?:  - .*\n?)*)", said, re.M)
    }
    close = re.search(r"^largest rises still `stable`.*\n((?:  - .*\n?)*)", said, re.M)
    assert set(blocks) == {"rising", "declining"} and close, said
    blocks["stable"] = (None, close.group(1))
    for direction, (count, items) in blocks.items():
        lines = items.splitlines()
        assert count is None or len(lines) == count, (direction, count, lines)
        for line in lines:
            match = MOVER.match(line)
            assert match, line
            theme, n_a, n_b, diff, lower, upper = match.groups()
            if direction == "stable":
                assert float(lower) <= 0 <= float(upper) and float(diff) > 0, line
            else:
                assert (float(lower) > 0) if direction == "rising" else (float(upper) < 0), line
            if theme in table.index:
                row = table.loc[theme]
                assert (row["n_a"], row["n_b"], row["direction"]) == (int(n_a), int(n_b), direction), (line, row)
                assert abs(100 * row["diff"] - float(diff)) < 0.051, (line, row)
    first_rising = table.index[table["direction"] == "rising"]
    assert first_rising.empty or f"  - {first_rising[0]} (" in blocks["rising"][1], said

    # the alignment: the levels printed, one summary row per node of those levels, split / merged only
    # between nodes of stability >= 0.5 (or none)
    aligned = _text(cell(nb, "alignment = align_models("))
    assert "matched" in aligned
    la, na, lb, nb_nodes = map(
        int,
        re.search(
            r"aligned level (\d+) of the 2019 model \((\d+) nodes\) with level "
            r"(\d+) of the 2024 model \((\d+) nodes\)",
            aligned,
        ).groups(),
    )
    summary = frame(cell(nb, "table = alignment.summary.assign("))
    assert (summary["side"] == "a").sum() == na and (summary["side"] == "b").sum() == nb_nodes
    check_stability(summary["stability"])
    structural = summary[summary["status"].isin(["split", "merged"])]
    assert not (pd.to_numeric(structural["stability"], errors="coerce") < 0.5).any(), structural

    compared = _text(cell(nb, "result = compare("))
    assert "periods compared: (2019, 2024)" in compared and "alignment: off (align=False)" in compared


def test_what_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not ICLR.exists():
        pytest.skip(f"shared corpus {ICLR.name} not found in {ICLR.parent} (third-party data, not in the repo)")
    nb = execute(WHAT_CHANGED, tmp_path, monkeypatch, ICLR.parent)
    check_what_changed(nb)


def _count(c: nbformat.NotebookNode) -> int:
    """Rows of the table a cell returned; 0 for an empty DataFrame."""
    return 0 if table_empty(c) else table_rows(c)


CHANGED = ("new", "emerging", "declining", "vanished")
# "x% [lower%, upper%]": a share with its interval
SHARE = re.compile(r"([\d.]+)% \[([\d.]+)%, ([\d.]+)%\]")
HEADLINE = re.compile(
    r"""^  - (\w+): level (\d+), ['"].*['"] \(.*\): (\d+) → (\d+) papers, .*q = ([\d.]+), stability (\S+)$"""
)


def headline_block(text: str, statuses: tuple[str, ...], max_q: float = 0.05) -> tuple[list[str], int]:
    """The headline lines of a ``whats_new`` listing in words (the nodes, each with its 2025 titles) and the
    number of nodes held back for their names; checks each line's evidence: a listed status, q below
    ``max_q``, both shares inside their intervals, a stability of at least one half (or none: whats_new
    leaves out the others), at most three titles, and one reason for each held-back node."""
    listed, rest = text.split("held back for their names: ", 1)
    held = int(re.match(r"(\d+) nodes?", rest).group(1))
    reasons = re.findall(r"^  - level \d+, '.*': (.+)$", rest, re.M)
    assert len(reasons) == held and all(reasons), rest
    nodes, titles = [], 0
    for line in listed.splitlines():
        if not line.strip():
            continue
        if line.startswith("      2025: "):
            titles += 1
            assert nodes and titles <= 3, listed
            continue
        match = HEADLINE.match(line.rstrip())
        assert match, line
        status, _, before, latest, q, stability = match.groups()
        assert status in statuses and float(q) < max_q, line
        assert stability == "nan" or 0.5 <= float(stability) <= 1, line
        for share, low, high in SHARE.findall(line):
            assert float(low) <= float(share) <= float(high), line
        nodes.append(line)
        titles = 0
    return nodes, held


def check_what_changed(nb: nbformat.NotebookNode) -> None:
    """What the ICLR notebook's prose says of its outputs; nothing here depends on which nodes pass
    q < 0.05, which can change with the CPU's embedding vectors (section 4 of the notebook says so)."""
    # The expected counts come from the raw file, read here with pandas alone.
    iclr = pd.read_json(ICLR, lines=True)
    sample = pd.concat([iclr[iclr.year == y].sample(n=750, random_state=0) for y in (2024, 2025)])
    decided = sample[sample["status"].notna()]
    expected = decided.groupby("year")["status"].agg(lambda s: (int(s.isin(ACCEPTED).sum()), len(s)))

    assert re.search(r"All\s+750\s+750\s+1500", _text(cell(nb, "iclr = pd.read_json(")))
    summary = _text(cell(nb, "tm = TopicMap(random_state=0, topic_sizes=(80, 20)).fit(sample)"))
    assert "'modelled': 1500" in summary and "'outlier share': 0.0," in summary

    # the tree: the two levels asked for (topic_sizes), every paper at every level, topic == topic_0, the
    # sentence's numbers are the table's
    tree_cell = cell(nb, 'tree.groupby("level")')
    printed = _text(tree_cell)
    assert "2 levels below the themes (levels [0, 1]) for topic_sizes=(80, 20)" in printed, printed
    assert (
        "1500 modelled papers; with a node at level 0: 1500, level 1: 1500; topic == topic_0 for every paper: True"
        in printed
    )
    per_level = frame(tree_cell).set_index("level")
    assert list(per_level.index) == [0, 1], "the tree has topics and subtopics"
    assert (per_level["papers"] == 1500).all(), "every level holds every paper once"
    check_stability(per_level["min_stability"])
    check_stability(per_level["median_stability"])
    assert (per_level["no_stability"] <= per_level["nodes"]).all()
    said = re.search(
        r"The tree has (\d+) subtopics at level 0 \(median ([\d.]+) papers\) under (\d+) topics at level 1 "
        r"\(median ([\d.]+) papers\): (\d+) (topics?) in (\d+) (themes?), and (\d+) (topics?) of the papers without a theme",
        printed,
    )
    assert said, printed
    n0, m0, n1, m1, themed, noun1, themes, noun2, unthemed, noun3 = said.groups()
    for count, noun in ((themed, noun1), (themes, noun2), (unthemed, noun3)):
        assert noun.endswith("s") == (int(count) != 1), f"{count} {noun}: singular for one, plural otherwise"
    assert (int(n0), float(m0), int(n1), float(m1)) == (
        per_level.loc[0, "nodes"],
        per_level.loc[0, "median_papers"],
        per_level.loc[1, "nodes"],
        per_level.loc[1, "median_papers"],
    )
    assert int(themed) + int(unthemed) == int(n1) and 1 < int(themes) <= 31 and int(themes) <= int(themed)
    assert int(n1) <= int(n0)
    check_name_checks(nb, int(per_level["nodes"].sum()))

    assert table_rows(cell(nb, "trends = tm.topic_trends(")) >= 2
    status_cell = cell(nb, 'status = tm.topic_status(by="year")')
    status_table = frame(status_cell).set_index("level")
    assert status_table.sum(axis=1).to_dict() == per_level["nodes"].to_dict(), "one status per node of every level"
    compared = re.search(
        r"(\d+) nodes compared \(all levels\); the unadjusted 95 % interval of the change excludes zero "
        r"for (\d+), and (\d+) have a status",
        _text(cell(nb, "excludes = (nodes")),
    )
    nodes, excluding, changed = map(int, compared.groups())
    assert nodes == per_level["nodes"].sum() and changed <= excluding <= nodes
    assert changed == status_table.drop(columns="stable", errors="ignore").to_numpy().sum()
    assert figure(cell(nb, "plot_share_dumbbell("))["data"]
    moves = _text(cell(nb, "per_topic = middle.drop_duplicates"))
    assert re.search(r"^largest rises:\n(  - .*\n){3}largest falls:\n(  - .*\n?){3}$", moves, re.M), moves

    # which nodes pass q < 0.05 depends on the CPU's int8 kernels (section 4 of the notebook says so):
    # whats_new lists only the statuses asked for, nothing where the status table has none of them, and
    # no more nodes (listed or held back for their names) than the status table has
    crosstab = status_table.sum()
    in_words = _text(cell(nb, 'for title, rows in (("new or emerging", new)'))
    found = {}
    for title, code, listed, other in (
        ("new or emerging", "new = tm.whats_new(2025)", ("new", "emerging"), ("stable", "declining", "vanished")),
        (
            "declining or vanished",
            "faded = tm.whats_new(2025, statuses=",
            ("declining", "vanished"),
            ("stable", "new", "emerging"),
        ),
    ):
        shown = _text(cell(nb, code))
        assert not re.search(rf"\b({'|'.join(other)})\s*$", shown, re.M), shown
        if not set(listed) & set(crosstab.index):
            assert shown.startswith("Empty DataFrame"), (crosstab, shown)
        # ... and the sentences list the same nodes, with their evidence and what was held back
        block = re.search(rf"^{title}: (\d+) node\(s\)\n((?:  .*\n?)*)", in_words, re.M)
        assert block, in_words
        nodes_said, held = headline_block(block.group(2), listed)
        assert int(block.group(1)) == len(nodes_said) == _count(cell(nb, code)), in_words
        assert len(nodes_said) + held <= sum(int(crosstab.get(s, 0)) for s in listed), (crosstab, in_words)
        found[title] = len(nodes_said) + held
    # a looser false-discovery rate lists at least the same nodes, with the same evidence
    leads = _text(cell(nb, "leads = tm.whats_new(2025"))
    header = re.search(r"^leads at a 25 % false-discovery rate: (\d+) nodes?\n", leads, re.M)
    assert header, leads
    nodes_said, held = headline_block(leads[header.end() :], CHANGED, max_q=0.25)
    assert int(header.group(1)) == len(nodes_said) and len(nodes_said) + held >= sum(found.values()), leads

    # a topic's subtopics hold all its papers, in both years
    held_cell = cell(nb, "held = children.merge(")
    held_text = _text(held_cell)
    size = int(re.search(r", (\d+) papers\) holds:", held_text).group(1))
    k, total, of, in_2024, in_2025 = map(
        int,
        re.search(
            r"its (\d+) subtopics hold (\d+) of its (\d+) papers \((\d+) in 2024, (\d+) in 2025\)", held_text
        ).groups(),
    )
    held = frame(held_cell)
    assert k == len(held) >= 1 and total == of == size == held["size"].sum() == in_2024 + in_2025
    assert (held["n 2024"].sum(), held["n 2025"].sum()) == (in_2024, in_2025)
    check_stability(held["stability"])

    wording = _text(cell(nb, "wording = tm.topic_wording("))
    assert re.search(r"^2024 \(\d+ papers\)", wording, re.M) and re.search(r"^2025 \(\d+ papers\)", wording, re.M)
    novelty = _text(cell(nb, 'novelty.groupby("year")'))
    assert re.search(r"^2024\s+0\.0\s+NaN", novelty, re.M) and re.search(r"^2025\s+750\.0\s", novelty, re.M)
    by_theme = cell(nb, "median_novelty = by_theme.agg(")
    medians = frame(by_theme)
    low, high = map(float, re.search(r"from ([\d.]+) \(.*\) to ([\d.]+) \(", _text(by_theme)).groups())
    assert (low, high) == (round(medians["median"].min(), 2), round(medians["median"].max(), 2)), (low, high, medians)

    year_cell = cell(nb, 'tm.acceptance("year")', exact=True)
    by_year = _text(year_cell)
    for year, (accepted, n) in expected.items():
        assert re.search(rf"^\d+\s+{year}\s+{accepted}\s+{n}\s", by_year, re.M), (year, accepted, n, by_year)
    rates = frame(year_cell).set_index("year")
    theme_cell = cell(nb, 'acceptance = tm.acceptance("theme")')
    assert table_rows(theme_cell) >= 5
    accepted, submitted, overall = re.search(
        r"accepted: (\d+) of the (\d+) submissions that have a theme \(([\d.]+)%\)", _text(theme_cell)
    ).groups()
    assert f"{100 * int(accepted) / int(submitted):.1f}" == overall
    assert table_rows(cell(nb, 'nodes = tm.acceptance("topic")')) >= 2
    rates_said = _text(cell(nb, "by_year = tm.acceptance("))
    for year, row in rates.iterrows():
        assert f"{year}: {100 * row['share']:.1f}%" in rates_said, (year, row, rates_said)
    themes_shown = frame(theme_cell)
    holding, of_themes, rate = re.search(
        r"(\d+) of these (\d+) intervals contain the overall rate of ([\d.]+)%", rates_said
    ).groups()
    assert rate == overall and int(of_themes) == len(themes_shown)
    assert int(holding) == (themes_shown["interval_holds_overall"] == "True").sum()

    movers_cell = cell(nb, "movers = theme_movers(")
    movers = pd.DataFrame() if table_empty(movers_cell) else frame(movers_cell)
    movers_said = _text(cell(nb, 'for direction in ("rising", "declining"):'))
    for direction in ("rising", "declining"):
        block = re.search(rf"^{direction}: (\d+) theme\(s\)\n((?:  - .*\n?)*)", movers_said, re.M)
        shown = movers[movers["direction"] == direction] if len(movers) else movers
        assert block and int(block.group(1)) == len(block.group(2).splitlines()) == len(shown), movers_said
        for line, row in zip(block.group(2).splitlines(), shown.itertuples()):
            assert line.startswith(f"  - {row.theme}: {row.n_a} → {row.n_b} papers"), (line, row)
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
