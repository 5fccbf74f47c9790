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
