"""The API reference (mkdocs.yml, docs/api/): every public name that ``icml_topics`` and its subpackages
export (``__all__``) has a ``::: package.name`` entry on an API page of the site's navigation, no entry
names something that is not exported, and every exported function and class has a docstring with an
example. ``make docs`` (a dependency of ``make test``) builds the site with ``mkdocs build --strict``, and
fails on a warning (a planted broken cross-reference proves it). The site itself, built once per module
(about 10 s), reads as a user needs: examples as code, cross-references as links, no Sphinx roles or doctest
directives, every parameter of a parameter table with its real default, deprecated members last or hidden."""

from __future__ import annotations

import html
import importlib
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
# the package and every subpackage at any depth (icml_topics/**/__init__.py)
PACKAGES = sorted(".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "icml_topics").rglob("__init__.py"))
# documented on the package page (to_bertopic, FittedTables), the workflows page, and under "Used by the guides"
EXTRA = {
    "icml_topics.interop",
    "icml_topics.fitted_tables",
    "icml_topics.workflows",
    "icml_topics.outputs",
    "icml_topics.cli.demo",
    "icml_topics.corpus.streaming",
    "icml_topics.embedding.corpus_rule",
    "icml_topics.evaluate.names",
    "icml_topics.plotting.static_map",
}


def _nav_pages(node) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [p for v in node.values() for p in _nav_pages(v)]
    return [p for v in node for p in _nav_pages(v)]


def _exported() -> dict[str, object]:
    out = {}
    for name in PACKAGES:
        module = importlib.import_module(name)
        assert hasattr(module, "__all__"), f"{name} has no __all__"
        out.update({f"{name}.{n}": getattr(module, n) for n in module.__all__ if not n.startswith("_")})
    return out


def _documented() -> set[str]:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    pages = [p for p in _nav_pages(config["nav"]) if p.startswith("api/")]
    assert pages, "mkdocs.yml has no API pages in its nav"
    text = "\n".join((ROOT / "docs" / p).read_text(encoding="utf-8") for p in pages)
    return set(re.findall(r"^::: ([\w.]+)\s*$", text, re.M))


def test_every_exported_name_is_on_an_api_page():
    exported, documented = set(_exported()), _documented()
    assert exported - documented == set(), "exported but not on an API page (add a `::: name` line)"
    stale = {d for d in documented - exported if d.rsplit(".", 1)[0] not in EXTRA}
    assert stale == set(), "API pages name objects that are not exported"


def test_the_subpackages_are_all_checked():
    folders = {p.name for p in (ROOT / "icml_topics").iterdir() if (p / "__init__.py").is_file()}
    assert {f"icml_topics.{f}" for f in folders} <= set(PACKAGES)
    assert {"icml_topics.compare", "icml_topics.plotting", "icml_topics.stages", "icml_topics.themes"} <= set(PACKAGES)


def test_every_exported_function_and_class_has_a_docstring_with_an_example():
    missing = [
        name
        for name, obj in _exported().items()
        if (inspect.isclass(obj) or inspect.isfunction(obj)) and ">>>" not in (inspect.getdoc(obj) or "")
    ]
    assert missing == [], "add a short example (>>> ...) to these docstrings"


def test_every_public_method_of_topicmap_has_an_example():
    from icml_topics import TopicMap

    missing = []
    for name in dir(TopicMap):
        member = inspect.getattr_static(TopicMap, name)
        function = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
        if name.startswith("_") or not inspect.isfunction(function) or function.__module__.startswith("sklearn"):
            continue  # private, not a method, or scikit-learn's get_params / set_params / metadata routing
        if ">>>" not in (inspect.getdoc(function) or ""):
            missing.append(name)
    assert missing == [], "add a short example (>>> ...) to these TopicMap methods"


def test_the_topicmap_page_lists_the_methods_it_inherits_from_its_mixins():
    """mkdocstrings renders only a class's own members unless told: the mixins' methods (plots, trends)
    must be named in the TopicMap entry's ``inherited_members``, or the API page leaves them out."""
    from icml_topics import TopicMap

    inherited = {
        name
        for klass in TopicMap.__mro__[1:]
        if klass.__module__.startswith("icml_topics")
        for name, member in vars(klass).items()
        if not name.startswith("_") and inspect.isfunction(member)
    }
    assert {"plot_map", "report", "whats_new", "topic_trends"} <= inherited  # the mixins are where they were
    page = (ROOT / "docs" / "api" / "index.md").read_text(encoding="utf-8")
    entry = re.search(r"^::: icml_topics\.TopicMap\n((?:    .*\n)*)", page, re.M)
    assert entry, "docs/api/index.md has no `::: icml_topics.TopicMap` entry"
    listed = re.search(r"inherited_members: \[([^\]]*)\]", entry.group(1))
    assert listed, "the TopicMap entry does not set inherited_members"
    assert inherited - {n.strip() for n in listed.group(1).split(",")} == set()


# ---------------------------------------------------------------- the built site

ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """The site as ``mkdocs.yml`` builds it (its ``strict: true`` included), and the build's output. Under
    ``make test`` (``ICML_TOPICS_DOCS_SITE``) it is the site ``make docs`` has just built with ``--strict``, so
    the docs are built once: that build stopped ``make`` on any warning."""
    built = Path(os.environ.get("ICML_TOPICS_DOCS_SITE") or "/nonexistent")
    if (built / "index.html").is_file() and (built / "api").is_dir():
        return built, subprocess.CompletedProcess(["make", "docs"], 0, "", "")
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-f", str(ROOT / "mkdocs.yml"), "-d", str(out)],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return out, build


def _api_pages(site_dir: Path) -> dict[str, str]:
    return {str(p.relative_to(site_dir)): p.read_text(encoding="utf-8") for p in (site_dir / "api").rglob("*.html")}


def test_the_site_builds_without_a_warning(site):
    _, build = site
    assert build.returncode == 0, build.stdout + build.stderr
    assert "WARNING" not in build.stdout + build.stderr


def test_make_docs_fails_on_a_planted_broken_cross_reference(tmp_path):
    """The ``docs`` recipe of the Makefile, run on a copy of mkdocs.yml whose one page renders a module with a
    broken cross-reference in its docstring, exits non-zero and names the reference (``--quiet`` hid it)."""
    recipe = re.search(r"^docs:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M)
    assert recipe, "the Makefile has no docs target"
    command = recipe.group(1).strip().replace("$(PY)", f'"{sys.executable}"')
    assert "mkdocs build" in command
    (tmp_path / "planted").mkdir()
    (tmp_path / "planted" / "planted_module.py").write_text(
        'def planted():\n    """Returns what [`nothing`][icml_topics.no_such_name] returns."""\n', encoding="utf-8"
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Planted\n\n::: planted_module.planted\n", encoding="utf-8")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    config.update(docs_dir=str(docs), site_dir=str(tmp_path / "site"), nav=[{"Planted": "index.md"}])
    handler = next(p["mkdocstrings"] for p in config["plugins"] if isinstance(p, dict) and "mkdocstrings" in p)
    handler["handlers"]["python"]["paths"] = [str(tmp_path / "planted"), str(ROOT)]
    options = handler["handlers"]["python"]["options"]
    options["extensions"] = [str(ROOT / e) for e in options.get("extensions", [])]  # paths relative to mkdocs.yml
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    build = subprocess.run(
        f"{command} -f mkdocs.yml", shell=True, cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=300
    )
    assert (tmp_path / "site" / "index.html").is_file(), build.stdout + build.stderr  # it did build the page
    assert build.returncode != 0, f"`{command}` passed with a broken cross-reference:\n{build.stdout}{build.stderr}"
    assert "icml_topics.no_such_name" in build.stdout + build.stderr  # the warning is shown, not hidden


def test_the_site_shows_no_sphinx_role_and_no_doctest_directive(site):
    site_dir, _ = site
    literal = re.compile(r":(?:class|meth|func|attr|mod|data|exc|obj):|doctest:")
    found = {
        str(p.relative_to(site_dir)): sorted(set(literal.findall(p.read_text(encoding="utf-8"))))
        for p in site_dir.rglob("*")
        if p.suffix in {".html", ".json"} and literal.search(p.read_text(encoding="utf-8"))
    }
    assert found == {}, "Sphinx roles or doctest directives printed literally (write [`name`][path] or ``name``)"


def _sections(page: str) -> list[tuple[str, str]]:
    """(object path, its HTML up to the next object heading) for every object rendered on an API page."""
    heads = list(re.finditer(r'<h\d id="(icml_topics[\w.]*)" class="doc doc-heading', page))
    ends = [m.start() for m in heads[1:]] + [len(page)]
    return [(m.group(1), page[m.end() : end]) for m, end in zip(heads, ends)]


def _python_object(path: str):
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = inspect.getattr_static(obj, name) if inspect.isclass(obj) else getattr(obj, name)
        return obj.fget if isinstance(obj, property) else getattr(obj, "__func__", obj)
    raise LookupError(path)


def test_every_example_renders_as_code(site):
    """A docstring's ``>>>`` lines become a highlighted code block (an ``Example:`` section rendered them as
    nested quotes with the prompts dropped)."""
    site_dir, _ = site
    missing, checked = [], 0
    for name, page in _api_pages(site_dir).items():
        assert "<blockquote>" not in page, f"{name}: a docstring rendered as a quote (an Example: section?)"
        for path, section in _sections(page):
            if "doc-attribute-name" in section[:400]:
                continue  # a module attribute (``load_dev_labels = load_theme_labels``) has its own short docstring
            if ">>>" in (inspect.getdoc(_python_object(path)) or "").split("\n\n", 1)[-1]:
                checked += 1
                if 'class="gp">&gt;&gt;&gt;' not in section:
                    missing.append(path)
    assert checked > 100
    assert missing == [], "examples not rendered as code (write an `Examples:` section)"


def _parameter_rows(section: str) -> list[tuple[str, str, str]]:
    """(name, description, default) of the rows of the object's own parameter table (the first with a Default column)."""
    table = re.search(r"<th>Default</th>.*?</tbody>", section, re.S)
    if not table:
        return []
    rows = re.findall(r'<tr class="doc-section-item">(.*?)</tr>', table.group(0), re.S)
    cells = [re.findall(r"<td>(.*?)</td>", row, re.S) for row in rows]
    text = [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in row] for row in cells]
    return [(row[0], row[-2], row[-1]) for row in text]


def test_every_parameter_table_names_the_real_parameters_with_their_defaults(site):
    """A parameter table lists each parameter of the signature once, under its own name, with its default:
    "required" only where the signature has none (an entry "a, b, c: ..." matched no parameter and showed
    "required" for three parameters that default to None; a parameter left out of the Args section was missing)."""
    site_dir, _ = site
    problems, tables = [], 0
    for page in _api_pages(site_dir).values():
        for path, section in _sections(page):
            rows = _parameter_rows(section)
            if not rows:
                continue
            tables += 1
            obj = _python_object(path)
            signature = inspect.signature(obj)
            parameters = {p.name: p for p in signature.parameters.values() if p.name not in ("self", "cls")}
            named = {name.lstrip("*") for name, _, _ in rows}
            if named - set(parameters):
                problems.append(f"{path}: rows {sorted(named - set(parameters))} name no parameter")
            if set(parameters) - named:
                problems.append(f"{path}: parameters {sorted(set(parameters) - named)} have no row")
            for name, _, default in rows:
                parameter = parameters.get(name.lstrip("*"))
                if parameter is None or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                    continue
                if (default == "required") != (parameter.default is inspect.Parameter.empty):
                    problems.append(f"{path}({name}): the table says {default!r}, the signature {parameter}")
                if re.fullmatch(r"[A-Z][A-Z0-9_]*", default):
                    problems.append(f"{path}({name}): the default shows a constant's name, {default}, not its value")
    assert tables > 10  # TopicMap, read_corpus, the loaders, plot_map_static, the reports...
    assert problems == []


def test_topicmap_members_are_in_reading_order_with_deprecated_ones_last_or_hidden(site):
    """``fit`` comes first, and a deprecated member (``bertopic_``, listed first as a property before)
    comes after every other member or is not shown at all."""
    site_dir, _ = site
    page = (site_dir / "api" / "index.html").read_text(encoding="utf-8")
    members = [p.rsplit(".", 1)[1] for p, _ in _sections(page) if p.startswith("icml_topics.TopicMap.")]
    assert members[0] == "fit"
    deprecated = [
        m
        for m in members
        if (inspect.getdoc(_python_object(f"icml_topics.TopicMap.{m}")) or "").startswith("Deprecated")
    ]
    assert members[len(members) - len(deprecated) :] == deprecated, members
    from icml_topics import TopicMap

    own = {n: _python_object(f"icml_topics.TopicMap.{n}") for n in dir(TopicMap) if not n.startswith("_")}
    public = {n for n, f in own.items() if getattr(f, "__module__", "").startswith("icml_topics")}  # not sklearn's
    shown = [own[m] for m in members]
    hidden = {
        n
        for n in public - set(members)
        if not (inspect.getdoc(own[n]) or "").startswith("Deprecated") and not any(own[n] is f for f in shown)
    }  # deprecated members and second names of a shown one (``relabel = set_taxonomy``) may stay hidden
    assert hidden == set(), "public TopicMap members missing from the `members` list of docs/api/index.md"


def _documented_names(section: str) -> set[str]:
    """Names with a description in the object's own Parameters or Attributes table (a dataclass's fields)."""
    names = set()
    for table in re.findall(r"<table>.*?</table>", section, re.S):
        if "<th>Name</th>" not in table or "<th>Description</th>" not in table:
            continue
        for row in re.findall(r'<tr class="doc-section-item">(.*?)</tr>', table, re.S):
            cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
            if len(cells) >= 3 and cells[2]:
                names.add(cells[0].lstrip("*"))
    return names


def test_every_parameter_on_the_api_pages_has_a_description(site):
    """Every parameter of every function, class and method the API pages show has its row with a description
    (a dataclass's fields in its Attributes table), not only a mention in the prose: ``fit``'s ``columns``
    had none, ``client`` had lost its entry."""
    site_dir, _ = site
    undocumented, checked = {}, 0
    for page in _api_pages(site_dir).values():
        for path, section in _sections(page):
            obj = _python_object(path)
            if not callable(obj) or "doc-attribute-name" in section[:400]:
                continue
            if inspect.isclass(obj) and getattr(obj, "_is_protocol", False):
                continue  # protocols (no constructor)
            if inspect.isclass(obj) and issubclass(obj, BaseException) and "__init__" not in vars(obj):
                continue  # an error with the built-in constructor (a message); one with its own says what it takes
            parameters = [p for p in inspect.signature(obj).parameters if p not in ("self", "cls")]
            checked += len(parameters)
            missing = set(parameters) - _documented_names(section)
            if missing:
                undocumented[path] = sorted(missing)
    assert checked > 300
    assert undocumented == {}, "add an Args: entry for each of these parameters"


def test_every_signature_shows_its_defaults_as_values(site):
    """A default written in the code as a named constant (``confidence=DEFAULT_CONFIDENCE``,
    ``random_state=DEFAULT_RANDOM_STATE``) is shown as its value (``0.95``, ``42``) in the signature, by the griffe
    extension of mkdocs.yml (docs/_ext/griffe_values.py): 19 signatures showed a constant's name."""
    site_dir, _ = site
    named = {
        f"{page}: {m.group(1)}"
        for page, text in _api_pages(site_dir).items()
        for m in re.finditer(r'<span class="o">=</span>\s*<span class="n">([A-Z][A-Z0-9_]*)</span>', text)
    }
    assert named == set(), "signatures showing a constant's name as a default"
    from icml_topics.parameters import DEFAULTS

    page = (site_dir / "api" / "index.html").read_text(encoding="utf-8")
    signature = re.search(r"<code>.*?large_corpus_threshold.*?</code>", page, re.S).group(0)
    text = html.unescape(re.sub(r"<[^>]+>", "", signature))
    assert f"random_state: int | None = {DEFAULTS['random_state']}" in text
    assert f"large_corpus_threshold: int = {DEFAULTS['large_corpus_threshold']:_}" in text


GUIDES = [p for p in sorted((ROOT / "docs").rglob("*.md")) if "api" not in p.relative_to(ROOT / "docs").parts]
GUIDES = [p for p in GUIDES if p.name != "architecture.md"]  # the developers' map of the internals, not a guide
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
_IMPORT = re.compile(r"from\s+(icml_topics(?:\.\w+)*)\s+import\s+\(?([\w\s,]+?)\)?\s*(?:#|$)", re.M)
_DOTTED = re.compile(r"\b(icml_topics(?:\.[A-Za-z]\w*)+)")


def _guide_texts() -> dict[str, str]:
    import json

    texts = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in [*GUIDES, ROOT / "README.md"]}
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        texts[str(path.relative_to(ROOT))] = "\n".join("".join(cell["source"]) for cell in cells)
    return texts


def _names_used(texts: dict[str, str]) -> dict[str, set[str]]:
    """``icml_topics...`` names the texts import (``from icml_topics.x import a, b``) or spell out (``icml_topics.x.y``)."""
    used: dict[str, set[str]] = {}
    for where, text in texts.items():
        for m in _IMPORT.finditer(text):
            for name in m.group(2).replace("\n", " ").split(","):
                name = name.strip().split(" as ")[0].strip()
                if name:
                    used.setdefault(f"{m.group(1)}.{name}", set()).add(where)
        for m in _DOTTED.finditer(text):
            used.setdefault(m.group(1), set()).add(where)
    return used


def _public_object(path: str):
    """The object ``path`` names, or None for a module, a private name or a path that names nothing."""
    if any(part.startswith("_") for part in path.split(".")):
        return None
    try:
        obj = _python_object(path)
    except (LookupError, AttributeError):
        return None
    return None if inspect.ismodule(obj) else obj


def test_the_collector_finds_imports_and_dotted_names():
    used = _names_used({"a.md": "from icml_topics.workflows import compare, fit_to_folder  # x\nicml_topics.embed(t)"})
    names = {"icml_topics.workflows.compare", "icml_topics.workflows.fit_to_folder", "icml_topics.embed"}
    assert set(used) == names | {"icml_topics.workflows"}  # a module: left out by _public_object
    assert _public_object("icml_topics.workflows") is None and _public_object("icml_topics.embed") is not None


def test_every_name_the_guides_and_notebooks_use_is_on_the_site(site):
    """Every public object the guides (docs/, README) and the notebooks import or name (``icml_topics.x.y``) is
    rendered on an API page, under that name or another one for the same object (``workflows.compare``,
    ``fit_to_folder`` and ``write_outputs`` were missing though the getting-started guide and a notebook use them)."""
    site_dir, _ = site
    rendered = [path for page in _api_pages(site_dir).values() for path, _ in _sections(page)]
    shown = {id(obj) for obj in map(_public_object, rendered) if obj is not None}
    used = {name: where for name, where in _names_used(_guide_texts()).items() if _public_object(name) is not None}
    assert {"icml_topics.workflows.compare", "icml_topics.TopicMap"} <= set(used)  # the collector reads them all
    missing = {name: sorted(where) for name, where in used.items() if id(_public_object(name)) not in shown}
    assert missing == {}, "used by a guide or notebook but not on an API page (add a `::: name` line)"
    guide = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    assert "write_outputs" in guide and "fit_to_folder" in guide
    from icml_topics.outputs import write_outputs
    from icml_topics.workflows import fit_to_folder

    assert {id(write_outputs), id(fit_to_folder)} <= shown  # named bare in the guide, rendered all the same
