"""Every environment variable the package reads or sets is listed once (``icml_topics.environment.ENVIRONMENT``)
and described on ``docs/how-to/environment.md`` (issue 50: ten switches were spread over the modules)."""

from __future__ import annotations

import re
from pathlib import Path

from icml_topics.environment import ENVIRONMENT

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "icml_topics"
# a string literal that names a variable: ours, or one of the libraries' switches the package reads or sets
NAME = re.compile(r"""["']((?:ICML_TOPICS|OMP|MKL|NUMBA|HF_HUB|TRANSFORMERS|CT2_FORCE)_[A-Z0-9_]+)["']""")
ENVIRON = re.compile(r"os\.environ|os\.getenv|os\.putenv")
# modules that read a variable the user names (the key of an LLM namer: ``--namer-key-env`` / ``api_key_env``)
USER_NAMED = {"cli/_common.py", "stages/llm_namer.py"}


def _names_in_code() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "environment.py":
            continue
        text = path.read_text(encoding="utf-8")
        for name in NAME.findall(text):
            found.setdefault(name, []).append(path.relative_to(REPO).as_posix())
    return found


def test_every_variable_the_code_names_is_listed_and_every_listed_one_is_used():
    in_code = _names_in_code()
    assert sorted(set(in_code) - set(ENVIRONMENT)) == [], "list them in icml_topics/environment.py"
    assert sorted(set(ENVIRONMENT) - set(in_code)) == [], "no longer read: remove them from ENVIRONMENT"


def test_each_module_that_reads_the_environment_names_its_variables_as_literals():
    """``os.environ`` read with a computed name would slip past the list: each reading module names a listed one."""
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.relative_to(PACKAGE).as_posix() in USER_NAMED:
            continue
        if ENVIRON.search(text) and path.name != "environment.py":
            assert NAME.search(text), f"{path.relative_to(REPO)} reads the environment without naming a variable"


def test_the_docs_page_describes_each_variable():
    page = (REPO / "docs" / "how-to" / "environment.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([A-Z0-9_]+)` \|", page, flags=re.MULTILINE))
    assert rows == set(ENVIRONMENT)


# ---- process-wide state: caches bounded and named, no exit handlers piling up -------------------------------
#: the largest ``lru_cache`` the package may hold, as ``docs/how-to/environment.md`` states it
LRU_BOUND = 200_000


def _constant(node) -> object:
    """A ``maxsize`` written as a constant expression (``50_000``, ``1 << 16``, ``None``)."""
    import ast

    return eval(compile(ast.Expression(node), "<maxsize>", "eval"), {"__builtins__": {}})  # constants only


def _lru_caches() -> list[tuple[str, object]]:
    """Every ``lru_cache`` decorator of the package: ``(module:line, maxsize)`` (``None``: unbounded)."""
    import ast

    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for deco in node.decorator_list:
                call = deco if isinstance(deco, ast.Call) else None
                target = call.func if call is not None else deco
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if name not in ("lru_cache", "cache"):
                    continue
                size = None if name == "cache" else 128  # lru_cache's own default
                for kw in call.keywords if call is not None else ():
                    if kw.arg == "maxsize":
                        size = _constant(kw.value)
                if call is not None and call.args:
                    size = _constant(call.args[0])
                found.append((f"{path.relative_to(PACKAGE).as_posix()}:{node.lineno}", size))
    return found


def test_every_lru_cache_is_bounded_as_the_docs_say():
    caches = _lru_caches()
    assert len(caches) > 20  # the walk finds them (text.py, stages/, evaluate/, corpus/, ...)
    unbounded = [(where, size) for where, size in caches if not isinstance(size, int) or size > LRU_BOUND]
    assert unbounded == [], "give each lru_cache a maxsize of at most 200,000 (docs/how-to/environment.md)"
    page = (REPO / "docs" / "how-to" / "environment.md").read_text(encoding="utf-8")
    assert f"at most {LRU_BOUND:,} entries" in page


def test_the_token_cache_bound_is_the_one_documented():
    from icml_topics.stages.ngram_counts import CACHE_TOKENS

    page = (REPO / "docs" / "how-to" / "environment.md").read_text(encoding="utf-8")
    assert f"`CACHE_TOKENS` = {CACHE_TOKENS:,} token ids" in page


def test_fitting_again_in_one_process_adds_no_exit_handler(seeds_fitted):
    """Issue 50: ``atexit`` registrations piled up across fits in one kernel. After a first fit (``seeds_fitted``:
    libraries register their own handlers once per process), two more fits register nothing."""
    import atexit

    from icml_topics import TopicMap

    before = atexit._ncallbacks()
    for _ in range(2):
        TopicMap(random_state=0).fit(PACKAGE / "data" / "icml-2026-seed-abstracts.jsonl")
    assert atexit._ncallbacks() == before
