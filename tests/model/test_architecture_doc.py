"""``docs/architecture.md`` stays true: every module has a row, every module path it names exists, its layer table
matches the imports, and "Where to change what" answers the seven changes a newcomer makes most.

Module paths are written relative to ``icml_topics/`` (``stages/tree.py``; a package's ``__init__.py`` as
``stages/__init__.py`` or as the folder ``stages/``, the root's as ``__init__.py``); ``tests/`` and
``benchmarks/`` paths relative to the repository. In the layer table a folder (``store/``) stands for every module
under it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from test_structure import import_graph

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "icml_topics"
DOC = REPO / "docs" / "architecture.md"

#: the rows "Where to change what" must have (issue 41, item 6)
REQUIRED_CHANGES = (
    "a clusterer",
    "an input format",
    "a plot",
    "a theme rule",
    "a tree level",
    "a trend statistic",
    "an output file",
)

_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_SPAN = re.compile(r"`([^`\n]+)`")
_FILE = re.compile(r"(?<![\w/.-])(?:[A-Za-z_]\w*/)*[A-Za-z_]\w*\.py(?![\w/])")
_FOLDER = re.compile(r"(?:[A-Za-z_]\w*/)+")


def package_modules(package: Path = PACKAGE) -> set[str]:
    """Every module of the package as the page writes it: ``stages/tree.py``, ``stages/__init__.py``, ``__init__.py``.

    >>> {"__init__.py", "stages/tree.py", "store/__init__.py"} <= package_modules()
    True
    """
    return {path.relative_to(package).as_posix() for path in package.rglob("*.py")}


def module_refs(text: str) -> list[str]:
    """The module paths ``text`` (Markdown) names: ``.py`` paths in inline code spans and fenced blocks, and
    inline code spans that are a folder (``stages/``); anything else (``<cache>/trees/``, ``tm.fit``) is not one.

    >>> module_refs("`stages/tree.py` (`build_tree`), `store/`, `<cache>/trees/`\\n```\\nread  fit_inputs.py: x\\n```")
    ['stages/tree.py', 'store/', 'fit_inputs.py']
    """
    refs = []
    for span in _SPAN.findall(_FENCE.sub("", text)):
        refs += [span] if _FOLDER.fullmatch(span) else _FILE.findall(span)
    for block in _FENCE.findall(text):
        refs += _FILE.findall(block)
    return refs


def names_something(ref: str, package: Path = PACKAGE, repo: Path = REPO) -> bool:
    """Whether ``ref`` is a file or folder of the package, or else of the repository (``tests/...``)."""
    kind = Path.is_file if ref.endswith(".py") else Path.is_dir
    return kind(package / ref) or kind(repo / ref)


def covered(ref: str, modules: Iterable[str]) -> set[str]:
    """The modules ``ref`` stands for: itself, or every module under a folder.

    >>> sorted(covered("store/", ["store/__init__.py", "store/cache.py", "stages/tree.py"]))
    ['store/__init__.py', 'store/cache.py']
    """
    return {m for m in modules if m == ref or (ref.endswith("/") and m.startswith(ref))}


def section(text: str, title: str) -> str:
    """The Markdown of the ``## <title>`` section (up to the next ``## ``), ``""`` when there is none."""
    match = re.search(rf"^## {re.escape(title)}.*?$(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    return match.group(1) if match else ""


def table_rows(text: str) -> list[list[str]]:
    """The body rows of every Markdown table in ``text``, as stripped cells (header and rule rows left out).

    >>> table_rows("| a | b |\\n|---|---|\\n| `x.py` | y |\\n\\ntext")
    [['`x.py`', 'y']]
    """
    rows: list[list[str]] = []
    in_body = False
    for line in map(str.strip, text.splitlines()):
        if not line.startswith("|"):
            in_body = False
        elif re.fullmatch(r"\|[\s|:-]+\|", line):  # the rule under a header: the body follows
            in_body = True
        elif in_body:
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def doc_problems(text: str, modules: set[str], exists: Callable[[str], bool] = names_something) -> dict[str, list[str]]:
    """What is wrong with the page ``text`` for the package ``modules``, by kind (empty lists: nothing):

    - ``missing``: modules without a row of their own in the "Modules" section (a row ``stages/`` is the
      package's ``stages/__init__.py``, not every module under it);
    - ``stale``: module paths named anywhere that do not exist (``exists``), e.g. a removed module;
    - ``not a module``: rows of the "Modules" section that name no module of the package.
    """
    rows = {ref: ref + "__init__.py" if ref.endswith("/") else ref for ref in _first_cells(text)}
    return {
        "missing": sorted(modules - set(rows.values())),
        "stale": sorted({ref for ref in module_refs(text) if not exists(ref)}),
        "not a module": sorted(ref for ref, module in rows.items() if module not in modules),
    }


def _first_cells(text: str) -> list[str]:
    """The first cell of every row of the "Modules" section's tables, without its backticks."""
    return [row[0].strip("`") for row in table_rows(section(text, "Modules")) if row]


def layer_table(text: str) -> list[tuple[int, list[str], set[int]]]:
    """The layer table of the "Layers" section: ``(number, module refs, the layers it may import)`` per row.

    >>> layer_table("## Layers\\n| # | layer | modules | may import |\\n|---|---|---|---|\\n| 3 | x | `a.py`, `b/` | 1–2, 3 |")
    [(3, ['a.py', 'b/'], {1, 2, 3})]
    """
    out = []
    for number, _name, modules, allowed in (row[:4] for row in table_rows(section(text, "Layers")) if len(row) >= 4):
        layers: set[int] = set()
        for part in allowed.split(","):
            low, _, high = part.strip().replace("–", "-").partition("-")
            layers |= set(range(int(low), int(high or low) + 1))
        out.append((int(number), module_refs(modules), layers))
    return out


def dotted_to_module(name: str, package: Path = PACKAGE) -> str:
    """``icml_topics.stages.tree`` -> ``stages/tree.py``; a package -> its ``__init__.py``."""
    parts = name.split(".")[1:]
    folder = package.joinpath(*parts)
    return "/".join([*parts, "__init__.py"]) if folder.is_dir() else "/".join(parts) + ".py"


def layer_problems(text: str, modules: set[str], graph: dict[str, set[str]]) -> list[str]:
    """Modules in no layer (or in two), and imports into a layer the importer's row does not allow."""
    layers = layer_table(text)
    where: dict[str, list[int]] = {m: [] for m in modules}
    for number, refs, _ in layers:
        for module in {m for ref in refs for m in covered(ref, modules)}:
            where[module].append(number)
    problems = [f"{m}: in layers {n or 'none'}" for m, n in sorted(where.items()) if len(n) != 1]
    allowed = {number: may for number, _, may in layers}
    for importer, targets in sorted(graph.items()):
        a = dotted_to_module(importer)
        for target in sorted(targets):
            b = dotted_to_module(target)
            if len(where.get(a, [])) == len(where.get(b, [])) == 1 and where[b][0] not in allowed[where[a][0]]:
                problems.append(f"{a} (layer {where[a][0]}) imports {b} (layer {where[b][0]})")
    return problems


def change_rows(text: str) -> dict[str, str]:
    """The "Where to change what" table: what you want -> what to touch."""
    return {row[0]: row[1] for row in table_rows(section(text, "Where to change what")) if len(row) >= 2}


def change_problems(text: str, modules: set[str]) -> list[str]:
    """The rows of ``REQUIRED_CHANGES`` that the table lacks, or whose answer names no module of the package."""
    rows = change_rows(text)
    return [
        f"{change}: no row" if change not in rows else f"{change}: names no module"
        for change in REQUIRED_CHANGES
        if change not in rows or not any(covered(ref, modules) for ref in module_refs(rows[change]))
    ]


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def test_every_module_has_a_row_and_every_named_module_exists(doc):
    problems = doc_problems(doc, package_modules())
    assert len(package_modules()) > 100
    assert not any(problems.values()), f"docs/architecture.md is out of date with icml_topics/: {problems}"


def test_the_doc_check_fails_on_a_missing_row_a_stale_name_and_a_row_of_no_module(doc):
    modules = package_modules()
    without_row = doc.replace("| `store/csv_files.py` |", "| `csv writer` |", 1)
    assert without_row != doc
    assert doc_problems(without_row, modules)["missing"] == ["store/csv_files.py"]

    stale = doc.replace("## Fitted state", "Results are cached by `stages/result_cache.py`.\n\n## Fitted state", 1)
    assert doc_problems(stale, modules)["stale"] == ["stages/result_cache.py"]
    fenced = doc.replace("```\nTopicMap.fit(corpus)", "```\n_folders.py swaps\nTopicMap.fit(corpus)", 1)
    assert doc_problems(fenced, modules)["stale"] == ["_folders.py"]

    extra_row = doc.replace("| `_child.py` |", "| `_deferred_imports.py` | gone |\n| `_child.py` |", 1)
    assert doc_problems(extra_row, modules)["not a module"] == ["_deferred_imports.py"]
    assert doc_problems(extra_row, modules)["stale"] == ["_deferred_imports.py"]

    folder_row = doc.replace("| `store/__init__.py` |", "| `store/` |", 1)  # the package, not its modules
    assert folder_row != doc and not any(doc_problems(folder_row, modules).values())
    one_row_for_all = re.sub(r"^\| `store/\w+\.py` \|.*\n", "", folder_row, flags=re.MULTILINE)
    assert len(doc_problems(one_row_for_all, modules)["missing"]) == len(list((PACKAGE / "store").glob("*.py"))) - 1

    new_module = modules | {"stages/clusterer.py"}  # a module added to the package without a row
    assert doc_problems(doc, new_module, lambda ref: True)["missing"] == ["stages/clusterer.py"]


def test_the_layer_table_places_every_module_once_and_matches_the_imports(doc):
    problems = layer_problems(doc, package_modules(), import_graph(REPO, "icml_topics"))
    assert problems == [], "docs/architecture.md's layer table disagrees with the imports:\n" + "\n".join(problems)


def test_the_layer_check_fails_on_an_upward_import_and_an_unplaced_module(doc):
    graph = import_graph(REPO, "icml_topics")
    upward = {**graph, "icml_topics.compare.trends": graph["icml_topics.compare.trends"] | {"icml_topics.fitting"}}
    assert layer_problems(doc, package_modules(), upward) == [
        "compare/trends.py (layer 5) imports fitting.py (layer 4)"
    ]
    facade = {**graph, "icml_topics.stages.tree": graph["icml_topics.stages.tree"] | {"icml_topics.model"}}
    assert layer_problems(doc, package_modules(), facade) == ["stages/tree.py (layer 3) imports model.py (layer 9)"]
    assert layer_problems(doc, package_modules() | {"plugins/x.py"}, graph) == ["plugins/x.py: in layers none"]


def test_where_to_change_what_answers_the_seven_changes(doc):
    assert change_problems(doc, package_modules()) == [], f"rows of 'Where to change what': {list(change_rows(doc))}"
    rows = change_rows(doc)
    assert "Protocol" in rows["a clusterer"] and "stages/hierarchy.py" in rows["a clusterer"]
    assert "`INPUT_SUFFIXES`" in rows["an input format"] and "corpus/record_files.py" in rows["an input format"]


def test_the_change_check_fails_on_a_missing_row_and_an_answer_without_a_module(doc):
    without = doc.replace("| a trend statistic |", "| trends |", 1)
    assert without != doc
    assert change_problems(without, package_modules()) == ["a trend statistic: no row"]
    vague = "| a plot | somewhere in the plotting code |\n"
    vaguer = re.sub(r"^\| a plot \|.*\n", lambda _: vague, doc, count=1, flags=re.MULTILINE)
    assert vaguer != doc
    assert change_problems(vaguer, package_modules()) == ["a plot: names no module"]
