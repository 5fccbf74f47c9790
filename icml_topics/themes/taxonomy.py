"""Research-theme taxonomies: load, validate and edit the themes documents are assigned to.

A taxonomy is data, not code: an ordered list of themes, each with a ``name`` (what users see), a
one-line ``description`` and a few ``seeds`` (typical phrases). The built-in one lives in
``taxonomy.yaml`` next to this module; users pass their own as a YAML file or a dict, or edit a
loaded one with [`Taxonomy.rename`][icml_topics.Taxonomy.rename], [`Taxonomy.merge`][icml_topics.Taxonomy.merge] and
[`Taxonomy.drop`][icml_topics.Taxonomy.drop].

Examples:
    >>> from icml_topics.themes import Taxonomy, load_taxonomy
    >>> tax = Taxonomy.default()
    >>> "Reinforcement learning" in tax.names
    True
    >>> mine = load_taxonomy({"Graphs": ["graph neural network"], "RL": {"description": "Reinforcement"}})
    >>> mine.names
    ('Graphs', 'RL')
    >>> mine.merge(["Graphs", "RL"], into="Other").names
    ('Other',)
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Union

import yaml

from icml_topics._io import atomic_write_text
from icml_topics.errors import InvalidTypeError, InvalidValueError, MissingFileError, UnknownNameError
from icml_topics.themes.taxonomy_data import index_themes, parse_yaml, themes_from_mapping
from icml_topics.themes.theme import Theme

__all__ = ["Theme", "Taxonomy", "TaxonomyLike", "load_taxonomy"]

_PACKAGED = "taxonomy.yaml"


class Taxonomy:
    """An ordered, validated collection of [`Theme`][icml_topics.themes.Theme] objects (immutable: edits return a copy).

    Look a theme up by name or alias (case-insensitive) or by position: ``tax["RL"]``, ``tax[0]``.

    Args:
        themes: the themes, in order; names and aliases must be unique (case-insensitive).
        version: an optional version label, kept in ``to_dict``/``to_yaml``.
        source: an optional note of where the themes come from, kept in ``to_dict``/``to_yaml``.

    Examples:
        >>> tax = Taxonomy.from_dict({"themes": [{"name": "Causality", "seeds": ["causal discovery"]}]})
        >>> len(tax), tax["causality"].seeds
        (1, ('causal discovery',))
    """

    def __init__(
        self,
        themes: Iterable[Theme],
        *,
        version: str | int | None = None,
        source: str | None = None,
    ) -> None:
        self._themes: tuple[Theme, ...] = tuple(themes)
        self.version = version
        self.source = source
        self._index = index_themes(self._themes)

    # --- construction ----------------------------------------------------------------------------
    @classmethod
    def default(cls) -> Taxonomy:
        """The built-in taxonomy of machine-learning research themes (``themes/taxonomy.yaml``)."""
        resource = resources.files("icml_topics.themes").joinpath(_PACKAGED)
        text = resource.read_text(encoding="utf-8")
        origin = f"the built-in {_PACKAGED}"
        return cls.from_dict(parse_yaml(text, origin), origin=origin)

    @classmethod
    def from_yaml(cls, path: str | os.PathLike[str]) -> Taxonomy:
        """Read a taxonomy from a YAML file (same shapes as [`from_dict`][icml_topics.Taxonomy.from_dict]).

        Args:
            path: the YAML file.
        """
        p = Path(path)
        if not p.is_file():
            raise MissingFileError(
                f"taxonomy file '{p}' not found; pass the path of an existing YAML file, a dict, "
                "or None for the built-in taxonomy"
            )
        data = parse_yaml(p.read_text(encoding="utf-8"), f"taxonomy file '{p}'")
        return cls.from_dict(data, origin=f"'{p}'")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, origin: str = "taxonomy") -> Taxonomy:
        """Build a taxonomy from one of three dict shapes.

        * ``{"themes": [{"name": ..., "description": ..., "seeds": [...], "aliases": [...]}, ...]}``
          (optionally with ``version`` and ``source``; ``themes`` may also be a mapping as below);
        * ``{name: {"description": ..., "seeds": [...]}, ...}``;
        * ``{name: [seed, ...], ...}`` (or ``{name: "description"}``).

        Args:
            data: the dict, in one of the shapes above.
            origin: where the dict comes from, named in error messages (e.g. a file name).

        Examples:
            >>> Taxonomy.from_dict({"Fairness": ["demographic parity"]})["Fairness"].seeds
            ('demographic parity',)
        """
        themes, version, source = themes_from_mapping(data, origin)
        return cls(themes, version=version, source=source)

    # --- access ----------------------------------------------------------------------------------
    @property
    def themes(self) -> tuple[Theme, ...]:
        """The themes, in order."""
        return self._themes

    @property
    def names(self) -> tuple[str, ...]:
        """Theme names, in order."""
        return tuple(t.name for t in self._themes)

    def __len__(self) -> int:
        return len(self._themes)

    def __iter__(self) -> Iterator[Theme]:
        return iter(self._themes)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.casefold().strip() in self._index

    def __getitem__(self, key: str | int) -> Theme:
        if isinstance(key, int):
            return self._themes[key]
        return self._themes[self._position(key)]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Taxonomy) and self._themes == other._themes

    def __hash__(self) -> int:
        return hash(self._themes)

    def __repr__(self) -> str:
        shown = ", ".join(self.names[:4]) + (", ..." if len(self) > 4 else "")
        return f"Taxonomy({len(self)} themes: {shown})"

    def theme_texts(self) -> list[list[str]]:
        """Per theme, the texts to embed: the description followed by each seed phrase.

        Examples:
            >>> Taxonomy.from_dict({"A": {"description": "d", "seeds": ["s1", "s2"]}}).theme_texts()
            [['d', 's1', 's2']]
        """
        return [t.texts() for t in self._themes]

    def theme_phrases(self) -> list[list[str]]:
        """Per theme, the phrases matched in titles and abstracts ([`Theme.phrases`][icml_topics.themes.Theme.phrases])."""
        return [t.phrases() for t in self._themes]

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form that [`from_dict`][icml_topics.Taxonomy.from_dict] reads back unchanged."""
        out: dict[str, Any] = {}
        if self.version is not None:
            out["version"] = self.version
        if self.source is not None:
            out["source"] = self.source
        out["themes"] = [t.to_dict() for t in self._themes]
        return out

    def to_yaml(self, path: str | os.PathLike[str] | None = None) -> str:
        """The taxonomy as YAML text; also written (atomically) to ``path`` when given.

        Handy to start a custom taxonomy: ``Taxonomy.default().to_yaml("my_themes.yaml")``, edit, reload.

        Args:
            path: the file to write; ``None`` writes nothing and only returns the text.
        """
        text = yaml.safe_dump(self.to_dict(), sort_keys=False, allow_unicode=True, width=100)
        if path is not None:
            atomic_write_text(path, text)
        return text

    # --- editing (each returns a new Taxonomy) ---------------------------------------------------
    def rename(self, old: str, new: str) -> Taxonomy:
        """Rename a theme; its old name is kept as an alias so lookups by it still work.

        Args:
            old: the theme's name or alias.
            new: its new name.

        Examples:
            >>> Taxonomy.from_dict({"A": ["x"], "B": ["y"]}).rename("A", "Alpha").names
            ('Alpha', 'B')
        """
        pos = self._position(old)
        theme = self._themes[pos]
        new = _clean_name(new, "new name for rename()")
        aliases = _unique((*theme.aliases, theme.name), exclude=new)
        renamed = Theme(new, theme.description, theme.seeds, aliases, theme.keywords)
        themes = list(self._themes)
        themes[pos] = renamed
        return self._replace(themes, action=f"rename('{old}', '{new}')")

    def merge(self, names: Sequence[str], into: str, *, description: str | None = None) -> Taxonomy:
        """Merge several themes into one, placed where the first of them was.

        Seeds and aliases are united (first occurrence kept); the merged names become aliases.
        The description is ``description`` if given, else that of the theme named ``into`` if it is
        one of the merged themes, else the merged descriptions joined by a space.

        Args:
            names: the names (or aliases) of the themes to merge; one name is a list of one.
            into: the merged theme's name (new, or one of ``names``).
            description: the merged theme's description; ``None``: as described above.

        Examples:
            >>> tax = Taxonomy.from_dict({"GANs": ["gan"], "VAEs": ["vae"], "RL": ["policy"]})
            >>> tax.merge(["GANs", "VAEs"], into="Generative models")["Generative models"].seeds
            ('gan', 'vae')
        """
        if isinstance(names, str):
            names = [names]
        if not names:
            raise InvalidValueError("merge() needs at least one theme name, e.g. merge(['A', 'B'], into='AB')")
        positions = sorted({self._position(n) for n in names})
        merged = [self._themes[p] for p in positions]
        into = _clean_name(into, "'into' name for merge()")
        target = next((t for t in merged if t.name.casefold() == into.casefold()), None)
        if description is None:
            if target is not None:
                description = target.description
            else:
                description = " ".join(t.description for t in merged if t.description)
        seeds = _unique(s for t in merged for s in t.seeds)
        aliases = _unique((*(a for t in merged for a in t.aliases), *(t.name for t in merged)), exclude=into)
        keywords = _unique(k for t in merged for k in t.keywords)
        themes: list[Theme] = []
        for i, theme in enumerate(self._themes):
            if i == positions[0]:
                themes.append(Theme(into, description, seeds, aliases, keywords))
            elif i not in positions:
                themes.append(theme)
        return self._replace(themes, action=f"merge(..., into='{into}')")

    def drop(self, names: str | Sequence[str]) -> Taxonomy:
        """Remove one or more themes (at least one must remain).

        Args:
            names: a theme name or alias, or a list of them.

        Examples:
            >>> Taxonomy.from_dict({"A": ["x"], "B": ["y"]}).drop("A").names
            ('B',)
        """
        if isinstance(names, str):
            names = [names]
        positions = {self._position(n) for n in names}
        themes = [t for i, t in enumerate(self._themes) if i not in positions]
        if not themes:
            raise InvalidValueError("drop() would remove every theme; keep at least one")
        return self._replace(themes, action="drop()")

    # --- internals -------------------------------------------------------------------------------
    def _position(self, name: str) -> int:
        if not isinstance(name, str):
            raise InvalidTypeError(f"theme names are strings, got {type(name).__name__} ({name!r})")
        try:
            return self._index[name.casefold().strip()]
        except KeyError:
            raise UnknownNameError(f"unknown theme '{name}'; known themes: {', '.join(self.names)}") from None

    def _replace(self, themes: list[Theme], action: str) -> Taxonomy:
        try:
            return Taxonomy(themes, version=self.version, source=self.source)
        except ValueError as err:
            raise InvalidValueError(f"{action} failed: {err}") from None


TaxonomyLike = Union[None, str, "os.PathLike[str]", Mapping[str, Any], Taxonomy]


def load_taxonomy(obj: TaxonomyLike = None) -> Taxonomy:
    """Turn whatever the user passed into a [`Taxonomy`][icml_topics.Taxonomy].

    ``None`` gives the built-in taxonomy; a ``str`` or path is read as a YAML file; a dict goes
    through [`Taxonomy.from_dict`][icml_topics.Taxonomy.from_dict]; a [`Taxonomy`][icml_topics.Taxonomy] is returned as it is.

    Args:
        obj: ``None``, a YAML path, a dict or a [`Taxonomy`][icml_topics.Taxonomy].

    Examples:
        >>> load_taxonomy().names[0]
        'Large language models & reasoning'
        >>> load_taxonomy({"Vision": ["image classification"]}).names
        ('Vision',)
    """
    if obj is None:
        return Taxonomy.default()
    if isinstance(obj, Taxonomy):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        return Taxonomy.from_yaml(obj)
    if isinstance(obj, Mapping):
        return Taxonomy.from_dict(obj)
    raise InvalidTypeError(
        f"cannot use {type(obj).__name__} {obj!r} as a taxonomy; pass None (built-in), a YAML file path, "
        "a dict, or a Taxonomy"
    )


# --- helpers -------------------------------------------------------------------------------------
def _clean_name(name: Any, what: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InvalidValueError(f"{what} must be a non-empty string, got {name!r}")
    return name.strip()


def _unique(items: Iterable[str], exclude: str | None = None) -> tuple[str, ...]:
    seen = {exclude.casefold()} if exclude else set()
    out = []
    for item in items:
        key = item.casefold()
        if key not in seen:
            seen.add(key)
            out.append(item)
    return tuple(out)
