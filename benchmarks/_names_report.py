"""The markdown of ``sibling_names.py --report``: support per level and stability, before and after, and the
nodes under two themes with their names, five titles and a hand judgment (``name_judgments.csv``)."""

from __future__ import annotations

import csv
import json
from pathlib import Path


def _judgments(results: Path) -> dict[tuple[str, str, int, str], str]:
    path = results / "name_judgments.csv"
    if not path.exists():
        return {}
    with open(path, newline="", encoding="utf-8") as fh:
        return {(r["label"], r["data"], int(r["level"]), r["name"]): r["judgment"] for r in csv.DictReader(fh)}


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.0f}% ({a}/{b})" if b else "-"


def write_report(results: Path, labels: tuple[str, str], themes: tuple[str, ...]) -> None:
    runs = {lb: json.loads((results / f"names_{lb}.json").read_text()) for lb in labels}
    judged = _judgments(results)
    first, second = labels
    lines = [
        "# Names carried by their own papers (issue 49)",
        "",
        "Commands: `PYTHONPATH=<old main> python benchmarks/sibling_names.py --label before` (main b7f7e28,",
        "before nodes alone in their theme were named by their papers), `python benchmarks/sibling_names.py",
        "--label after`, each also with",
        "`--data iclr24_3000 --sizes 90 24` (the same papers in two fixed levels of about 90 and 24 papers a node,",
        "as the tree was before it followed the corpus: by default 3,000 ICLR papers get one level), then",
        "`python benchmarks/sibling_names.py --report`. Tuned on other papers: `benchmarks/names_tune.py`",
        "(`iclr24_tune`, 3,000 ICLR 2024 papers that iclr24_3000 leaves out).",
        f"Machines: {first}: {runs[first]['machine']}; {second}: {runs[second]['machine']} (a shared machine).",
        "",
        "A paper carries a name when its title or one of its author keywords (ICLR 2024 has them, ICML has",
        "none) holds every word of one of the name's parts (any form, an acronym for its words, words true of",
        "most ML papers aside). *Supported*: at least 50% of the node's papers carry its name and each",
        "sibling's papers (the other children of its parent; at the top level, the other nodes of its theme)",
        "at most half as often. *Keeps its name*: after dropping a random 10% of the papers and fitting again,",
        "a node that reappears (a node of the same level holds its remaining papers with Jaccard >= 0.5) has",
        "a name with the same words (`name_key`). *Not generic*: the name is not a bare generic word",
        '(`evaluate.name_papers.generic_name`: "loss", "games", "transformers"). Level 0 is the finest.',
        "",
    ]
    for data in runs[second]["data"]:
        a, b = runs[first]["data"].get(data), runs[second]["data"][data]
        if a is None:
            continue
        lines += [f"## {data}: {b['papers']:,} papers", "", f"| level | nodes ({first} / {second}) | supported: {first} "
                  f"| supported: {second} | supported, not generic: {first} | {second} "
                  f"| median own share: {first} | {second} |", "|---:|---|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
        plain = {lb: _not_generic(results, lb, data) for lb in labels}
        for x, y in zip(a["levels"], b["levels"], strict=False):
            pa, pb = plain[first].get(x["level"], 0), plain[second].get(y["level"], 0)
            lines.append(
                f"| {y['level']} | {x['nodes']} / {y['nodes']} | {_pct(x['supported'], x['nodes'])} "
                f"| {_pct(y['supported'], y['nodes'])} | {_pct(pa, x['nodes'])} | {_pct(pb, y['nodes'])} "
                f"| {x['own_median']:.2f} | {y['own_median']:.2f} |"
            )
        if "stability" in b and "stability" in a:
            lines += ["", f"Dropping 10% of the papers: nodes that reappear and keep their name ({first} / {second}).", "",
                      "| level | reappear | keep their name: " + first + " | keep their name: " + second + " |",
                      "|---:|---|---:|---:|"]  # fmt: skip
            for x, y in zip(a["stability"], b["stability"], strict=False):
                lines.append(
                    f"| {y['level']} | {x['reappear']} / {y['reappear']} | {_pct(x['same_name'], x['reappear'])} "
                    f"| {_pct(y['same_name'], y['reappear'])} |"
                )
        lines.append("")
        for label in labels:
            lines += _theme_tables(results, label, data, themes, judged)
    (results / "sibling_names.md").write_text("\n".join(lines) + "\n")


def _not_generic(results: Path, label: str, data: str) -> dict[int, int]:
    """level -> supported nodes whose name is not a bare generic word (``evaluate.name_papers.generic_name``,
    of this checkout, for both runs)."""
    from icml_topics.evaluate.name_papers import generic_name

    raw = results / "raw" / f"names_{label}_{data}.json"
    out: dict[int, int] = {}
    for r in json.loads(raw.read_text()) if raw.exists() else []:
        if r["own"] >= 0.5 and r["sibling"] <= r["own"] / 2 and not generic_name(r["name"]):
            out[r["level"]] = out.get(r["level"], 0) + 1
    return out


def _theme_tables(results: Path, label: str, data: str, themes, judged) -> list[str]:
    raw = results / "raw" / f"names_{label}_{data}.json"
    if not raw.exists():
        return []
    rows = json.loads(raw.read_text())
    out: list[str] = []
    for theme in themes:
        under = sorted((r for r in rows if r["theme"] == theme), key=lambda r: (-r["level"], -r["size"]))
        if not under:
            continue
        counts: dict[str, int] = {}
        table = [
            "| level | papers | name | own / sibling share | judged | five titles |",
            "|---:|---:|---|---|---|---|",
        ]
        for r in under:
            j = judged.get((label, data, r["level"], r["name"]), "")
            counts[j or "not judged"] = counts.get(j or "not judged", 0) + 1
            titles = " · ".join(t.replace("|", "/") for t in r["titles"])
            table.append(
                f"| {r['level']} | {r['size']} | {r['name']} | {r['own']:.2f} / {r['sibling']:.2f} | {j} | {titles} |"
            )
        tally = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
        out += [f"### {data}, {label}: nodes under {theme!r} ({tally})", "", *table, ""]
    return out
