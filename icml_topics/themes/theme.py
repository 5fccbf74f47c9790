"""One research theme: its name, description, seed phrases, aliases and keywords."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Theme"]


@dataclass(frozen=True)
class Theme:
    """One research theme.

    Args:
        name: what users see (unique in its taxonomy, case-insensitive).
        description: one line, embedded with the seeds.
        seeds: typical phrases: embedded, and matched in titles and abstracts.
        aliases: other names of the theme (lookups, and matched like seeds).
        keywords: short forms matched in titles and abstracts but not embedded (e.g. ``"GNN"``).

    Examples:
        >>> Theme("Graph learning", "Learning on graphs", ("graph neural network",)).texts()
        ['Learning on graphs', 'graph neural network']
    """

    name: str
    description: str = ""
    seeds: tuple[str, ...] = ()
    aliases: tuple[str, ...] = field(default=())
    keywords: tuple[str, ...] = field(default=())

    def texts(self) -> list[str]:
        """The texts that stand for this theme when embedded: description first, then each seed."""
        return ([self.description] if self.description else []) + list(self.seeds)

    def phrases(self) -> list[str]:
        """The phrases looked for in titles and abstracts: seeds, aliases and keywords.

        Examples:
            >>> Theme("Graph learning", seeds=("message passing",), keywords=("GNN",)).phrases()
            ['message passing', 'GNN']
        """
        return list(dict.fromkeys([*self.seeds, *self.aliases, *self.keywords]))

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form, as written in ``taxonomy.yaml`` (``aliases`` only when there are some)."""
        out: dict[str, Any] = {"name": self.name, "description": self.description, "seeds": list(self.seeds)}
        if self.aliases:
            out["aliases"] = list(self.aliases)
        if self.keywords:
            out["keywords"] = list(self.keywords)
        return out
