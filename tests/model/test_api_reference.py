"""The API reference (mkdocs.yml, docs/api/): every public name that ``icml_topics`` and its subpackages
export (``__all__``) has a ``::: package.name`` entry on an API page of the site's navigation, no entry
names something that is not exported, and every exported function and class has a docstring with an
example. ``make docs`` (a dependency of ``make test``) builds the site with ``mkdocs build --strict``."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
# the package and every subpackage at any depth (icml_topics/**/__init__.py)
PACKAGES = sorted(".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "icml_topics").rglob("__init__.py"))
EXTRA = {"icml_topics.interop"}  # documented on the package page next to TopicMap.to_bertopic


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
