"""Reading taxonomy data: YAML text and the three dict shapes -> validated [`Theme`][icml_topics.themes.Theme] objects.

Every message names the theme, the file (``origin``) and the fix. Used by [`Taxonomy`][icml_topics.Taxonomy]
(``themes/taxonomy.py``), which holds the themes once they are read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from icml_topics.errors import InvalidTypeError, InvalidValueError
from icml_topics.themes.theme import Theme

__all__ = ["THEME_KEYS", "index_themes", "parse_yaml", "themes_from_mapping"]

THEME_KEYS = ("name", "description", "seeds", "aliases", "keywords")


def themes_from_mapping(data: Mapping[str, Any], origin: str) -> tuple[list[Theme], str | int | None, str | None]:
    """The themes, version and source of taxonomy data in one of the shapes of ``Taxonomy.from_dict``."""
    if not isinstance(data, Mapping):
        raise InvalidTypeError(
            f"{origin} must be a mapping such as {{'themes': [...]}} or {{theme name: [seeds]}}, "
            f"got {type(data).__name__}"
        )
    version = source = None
    entries: Any = data
    if "themes" in data:
        extra = sorted(set(data) - {"themes", "version", "source"})
        if extra:
            raise InvalidValueError(
                f"{origin} has unknown top-level key(s) {', '.join(map(repr, extra))}; "
                "allowed next to 'themes': 'version', 'source'"
            )
        entries, version, source = data["themes"], data.get("version"), data.get("source")
        if entries is None:
            entries = []
    if isinstance(entries, Mapping):
        themes = [_theme_from_named(name, value, origin) for name, value in entries.items()]
    elif isinstance(entries, Sequence) and not isinstance(entries, (str, bytes)):
        themes = [_theme_from_entry(i, entry, origin) for i, entry in enumerate(entries, start=1)]
    else:
        raise InvalidTypeError(
            f"'themes' in {origin} must be a list of theme mappings or a mapping of name to theme, "
            f"got {type(entries).__name__}"
        )
    if not themes:
        raise InvalidValueError(f"{origin} has no themes; add at least one theme with a name and seeds")
    return themes, version, None if source is None else str(source)


def parse_yaml(text: str, origin: str) -> Any:
    """The mapping a taxonomy YAML holds; a syntax error names its line and column."""
    try:
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "unknown position"
        problem = err.problem or err.context or "invalid YAML"
        raise InvalidValueError(
            f"cannot parse {origin}: YAML syntax error at {where}: {problem}; fix the YAML there "
            "(check indentation, colons and quotes)"
        ) from None
    except yaml.YAMLError as err:
        raise InvalidValueError(f"cannot parse {origin}: {err}") from None
    if not isinstance(data, Mapping):
        got = "an empty file" if data is None else f"a {type(data).__name__}"
        raise InvalidValueError(
            f"{origin} must contain a mapping (e.g. 'themes:' followed by a list of themes), got {got}"
        )
    return data


def _str_tuple(value: Any, key: str, theme: str, origin: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Sequence) or not all(isinstance(v, str) for v in value):
        raise InvalidTypeError(f"'{key}' of theme '{theme}' in {origin} must be a list of strings, got {value!r}")
    return tuple(v.strip() for v in value if v.strip())


def _make_theme(
    name: Any, description: Any, seeds: Any, aliases: Any, where: str, origin: str, keywords: Any = None
) -> Theme:
    if name is None or (isinstance(name, str) and not name.strip()):
        raise InvalidValueError(
            f"{where} in {origin} has no 'name'; every theme needs one, "
            "e.g. {'name': 'Graph learning', 'seeds': ['graph neural network']}"
        )
    if not isinstance(name, str):
        raise InvalidTypeError(f"{where} in {origin}: 'name' must be a string, got {name!r}")
    name = name.strip()
    if description is None:
        description = ""
    if not isinstance(description, str):
        raise InvalidTypeError(f"'description' of theme '{name}' in {origin} must be a string, got {description!r}")
    theme = Theme(
        name=name,
        description=" ".join(description.split()),
        seeds=_str_tuple(seeds, "seeds", name, origin),
        aliases=_str_tuple(aliases, "aliases", name, origin),
        keywords=_str_tuple(keywords, "keywords", name, origin),
    )
    if not theme.description and not theme.seeds:
        raise InvalidValueError(
            f"theme '{name}' in {origin} has neither a description nor seeds; give it a one-line "
            "description or a few seed phrases so documents can be matched to it"
        )
    return theme


def _check_keys(entry: Mapping[str, Any], allowed: Sequence[str], label: str, origin: str) -> None:
    unknown = [k for k in entry if k not in allowed]
    if unknown:
        raise InvalidValueError(
            f"{label} in {origin} has unknown key(s) {', '.join(map(repr, unknown))}; "
            f"allowed keys: {', '.join(allowed)}"
        )


def _theme_from_entry(i: int, entry: Any, origin: str) -> Theme:
    where = f"theme #{i}"
    if not isinstance(entry, Mapping):
        raise InvalidTypeError(
            f"{where} in {origin} must be a mapping with 'name', 'description' and 'seeds', got {entry!r}"
        )
    label = f"theme '{entry['name']}'" if isinstance(entry.get("name"), str) else where
    _check_keys(entry, THEME_KEYS, label, origin)
    return _make_theme(
        entry.get("name"),
        entry.get("description"),
        entry.get("seeds"),
        entry.get("aliases"),
        where,
        origin,
        entry.get("keywords"),
    )


def _theme_from_named(name: Any, value: Any, origin: str) -> Theme:
    where = f"theme {name!r}"
    if isinstance(value, Mapping):
        _check_keys(value, THEME_KEYS[1:], f"theme '{name}'", origin)
        return _make_theme(
            name,
            value.get("description"),
            value.get("seeds"),
            value.get("aliases"),
            where,
            origin,
            value.get("keywords"),
        )
    if isinstance(value, str):
        return _make_theme(name, value, None, None, where, origin)
    if value is None or (isinstance(value, Sequence) and not isinstance(value, bytes)):
        return _make_theme(name, None, value, None, where, origin)
    raise InvalidTypeError(
        f"theme '{name}' in {origin} must map to a list of seeds, a description string or a mapping "
        f"with 'description' and 'seeds', got {type(value).__name__}"
    )


def index_themes(themes: tuple[Theme, ...]) -> dict[str, int]:
    """Check names and aliases are unique (case-insensitively); return the lookup index."""
    if not themes:
        raise InvalidValueError("a taxonomy needs at least one theme")
    index: dict[str, int] = {}
    for pos, theme in enumerate(themes):
        if not isinstance(theme, Theme):
            raise InvalidTypeError(f"Taxonomy themes must be Theme objects, got {type(theme).__name__}")
        key = theme.name.casefold()
        if key in index:
            raise InvalidValueError(
                f"duplicate theme name '{theme.name}' (themes #{index[key] + 1} and #{pos + 1}); "
                "theme names must be unique: rename one, or merge them with Taxonomy.merge"
            )
        index[key] = pos
    for pos, theme in enumerate(themes):
        for alias in theme.aliases:
            key = alias.casefold()
            if key in index and index[key] != pos:
                raise InvalidValueError(
                    f"alias '{alias}' of theme '{theme.name}' is also the name or an alias of theme "
                    f"'{themes[index[key]].name}'; each name and alias must point to one theme"
                )
            index[key] = pos
    return index
