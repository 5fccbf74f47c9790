"""What is new at ICLR 2025, from the CSV files of one ``icml-topics compare`` run (issue 22).

    icml-topics compare ../shared/data/iclr-2024-2025-areas.jsonl.gz --by year --no-align --out DIR
    python benchmarks/iclr_whats_new.py DIR [--command "..."] [--seconds S]

Reads ``DIR/topic_status.csv``, ``novelty.csv``, ``acceptance_by_theme.csv`` and ``documents.csv`` and
writes ``benchmarks/results/iclr_whats_new.md``: the 10 emerging and the 10 new topics of the latest year
with the strongest evidence (share of the year with its 95% Wilson interval, the change from the earlier year
with its Newcombe interval, the BH q-value), the 10 most novel papers of the latest year, and the
acceptance share by theme with 95% Wilson intervals. Every number is copied from those CSVs.

Every name the tables show is checked (issue 49): each listed node's and each novel paper's topic's name is
judged with its own papers (``compare.name_checks``: title, author keywords and abstract from
``DIR/model/documents.parquet``; a new or emerging node's name also against its papers of the latest year).
``whats_new`` leaves out a node whose name fails; a shown name that fails is marked "(name fails: ...)", and the
nodes held back for their names are listed, one line each.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from icml_topics.compare.headlines import held_back_lines  # noqa: E402
from icml_topics.compare.name_checks import name_checks  # noqa: E402
from icml_topics.compare.topic_trends import whats_new  # noqa: E402


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _papers(folder: Path) -> pd.DataFrame:
    """The compare run's papers with their abstracts and keywords (the model folder's table; ``documents.csv``,
    titles only, where the folder has no model)."""
    model = folder / "model" / "documents.parquet"
    return pd.read_parquet(model) if model.is_file() else pd.read_csv(folder / "documents.csv")


def _checked(label: str, defects: str) -> str:
    """A shown name, marked when it fails the checks of names."""
    fails = ", ".join(d.strip() for d in str(defects or "").split(";") if d.strip())
    return f"{label} (name fails: {fails})" if fails else label


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the compare --out folder")
    parser.add_argument("--command", default="", help="the compare command line, recorded in the results")
    parser.add_argument("--seconds", type=float, default=None, help="wall time of that command")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "iclr_whats_new.md")
    args = parser.parse_args()
    status = pd.read_csv(args.folder / "topic_status.csv")
    tree = pd.read_csv(args.folder / "topic_tree.csv")
    novelty = pd.read_csv(args.folder / "novelty.csv")
    acceptance = pd.read_csv(args.folder / "acceptance_by_theme.csv")
    docs = pd.read_csv(args.folder / "documents.csv", usecols=lambda c: c in {"id", "topic_label"})
    latest = int(novelty["year"].max())
    papers = _papers(args.folder)
    top = novelty[novelty["year"] == latest].nlargest(10, "novelty").merge(docs, on="id", how="left")
    topics = papers.set_index("id")["topic"].reindex(top["id"]).dropna().astype(int).tolist()
    finest = tree.assign(status=None)
    checked = name_checks(finest, papers, check=(finest["level"] == 0) & finest["topic"].isin(topics))
    novel_defects = dict(
        zip(checked.loc[checked["level"] == 0, "topic"], checked.loc[checked["level"] == 0, "name_defects"])
    )
    counts = status["status"].value_counts().to_dict()
    levels = tree.groupby("level").size().to_dict()
    lines = [
        f"# What is new at ICLR {latest}: topic trends at every tree level",
        "",
        f"Command: `{args.command}`" + (f" ({args.seconds:.0f} s on a shared 2-core machine)" if args.seconds else ""),
        f"then `python benchmarks/iclr_whats_new.py DIR`. Nodes per tree level (0 = finest): {levels}; "
        f"status of the {len(status):,} nodes in {latest}: {counts} (exact test, Benjamini–Hochberg FDR 5%).",
    ]
    for kind, title in (
        ("emerging", "emerging topics"),
        ("new", "new topics (at most 2 papers in every earlier year)"),
    ):
        rows = whats_new(status, statuses=(kind,), top=10)  # a parent holding only its child's papers: once
        if len(rows):  # checked again here: a folder written before a check was added shows it too
            rows["name_defects"] = name_checks(rows, papers, by="year", latest=latest)["name_defects"].to_numpy()
        lines += [
            "",
            f"## The {len(rows)} {title} of {latest} with the strongest evidence",
            "",
            f"| level(s) | topic | theme | papers {latest} | share {latest} (%) [95% CI] | share before (%) "
            "| change (pp) [95% CI] | q |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in rows.itertuples(index=False):
            level = f"{r.level}" + (f"-{r.also_at_levels[-1]}" if r.also_at_levels else "")  # same papers
            lines.append(
                f"| {level} | {_checked(r.label, r.name_defects)} | {r.theme} | {r.n_latest} | {_pct(r.share_latest)} "
                f"[{_pct(r.latest_lower)}, {_pct(r.latest_upper)}] | {_pct(r.share_before)} | "
                f"{100 * r.change:+.2f} [{100 * r.change_lower:+.2f}, {100 * r.change_upper:+.2f}] | {r.q_value:.1e} |"
            )
        held = held_back_lines(rows)
        if held:
            lines += ["", held[0], "", *[f"- {h.strip().removeprefix('- ')}" for h in held[1:]]]
    lines += [
        "",
        f"## The 10 most novel papers of {latest}",
        "",
        f"Novelty = 1 - mean cosine similarity to the 10 nearest papers of earlier years; percentile within {latest}.",
        "",
        "| title | topic | novelty | percentile | nearest earlier paper |",
        "|---|---|---|---|---|",
    ]
    finest_of = papers.set_index("id")["topic"]
    for r in top.itertuples(index=False):
        node = finest_of.get(r.id)
        defects = novel_defects.get(int(node), "") if pd.notna(node) else ""
        lines.append(
            f"| {r.title} | {_checked(r.topic_label, defects)} | {r.novelty:.3f} | {r.novelty_percentile:.1f} | "
            f"{r.nearest_earlier_title} |"
        )
    lines += [
        "",
        "## Acceptance share by theme (accepted = oral, spotlight or poster; all years)",
        "",
        "| theme | accepted | submissions | acceptance (%) [95% CI] |",
        "|---|---|---|---|",
    ]
    for r in acceptance.sort_values("n", ascending=False).itertuples(index=False):
        lines.append(f"| {r.theme} | {r.accepted} | {r.n} | {_pct(r.share)} [{_pct(r.lower)}, {_pct(r.upper)}] |")
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
