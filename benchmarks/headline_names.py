"""Does a headline's name say what its latest papers are about? The ``rare in its latest papers`` check measured
(issue 49, item 4).

    python benchmarks/headline_names.py [--corpus ../shared/data/icml-2013-2024.jsonl.gz] [--a 2019] [--b 2024]

Fits ``TopicMap(random_state=0)`` on the two years, takes every node ``topic_status`` calls new or emerging at a
25% false-discovery rate (candidates: more than the 5% headlines, so the check is seen at work), and gives for
each: its name, its papers before and in the latest year, the share of its latest papers that carry the name
(``name_papers.carried_share``) and the smallest share of them holding one of its words (``word_shares``), the
checks its name fails (``compare.name_checks``) and its three latest titles. The floors are those of
``rare in its papers`` (``MIN_CARRIED``, a third; ``MIN_WORD_SHARE``, a fifth), applied to the latest papers
only: set on the ICLR 2024-2025 sample of ``notebooks/what_changed.ipynb``, measured here on ICML 2019 -> 2024,
which they were not set on. ``--judged CSV`` (columns ``name``, ``verdict``, ``why``) adds a reading by hand
of the names the check holds back. Writes ``benchmarks/results/headline_names.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks._machine import machine_line  # noqa: E402
from icml_topics import TopicMap  # noqa: E402
from icml_topics.compare.name_checks import node_rows, paper_texts  # noqa: E402
from icml_topics.evaluate.name_papers import MIN_CARRIED, MIN_WORD_SHARE, carried_share, word_shares  # noqa: E402

LATEST = "rare in its latest papers"


def _parent(status: pd.DataFrame, r) -> str:
    if pd.isna(r.parent) or int(r.parent) < 0:
        return str(r.theme)
    up = status[(status["level"] == r.level + 1) & (status["topic"] == int(r.parent))]
    return str(up["label"].iloc[0]) if len(up) else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "data" / "icml-2013-2024.jsonl.gz")
    parser.add_argument("--a", type=int, default=2019)
    parser.add_argument("--b", type=int, default=2024)
    parser.add_argument("--fdr", type=float, default=0.25)
    parser.add_argument("--judged", type=Path, default=REPO / "benchmarks" / "results" / "headline_names_judged.csv")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "headline_names.md")
    args = parser.parse_args()
    corpus = pd.read_json(args.corpus, lines=True)
    corpus = corpus[corpus["year"].isin([args.a, args.b])].reset_index(drop=True)
    started = time.perf_counter()
    tm = TopicMap(random_state=0, verbose=False).fit(corpus)
    fitted = time.perf_counter() - started
    status = tm.topic_status(by="year", latest=args.b, fdr=args.fdr)
    grown = status[status["status"].isin(["new", "emerging"])].sort_values("q_value", kind="stable")
    docs = tm.documents_
    judged = pd.read_csv(args.judged) if args.judged.is_file() else pd.DataFrame(columns=["name", "verdict", "why"])
    verdicts = {str(n): (str(v), str(w)) for n, v, w in zip(judged["name"], judged["verdict"], judged["why"])}
    rows = []
    for r in grown.itertuples(index=False):
        members = node_rows(docs[docs["status"] == "ok"], int(r.level), int(r.topic))
        latest = paper_texts(members[members["year"] == args.b])
        parent = _parent(status, r)
        shares = word_shares(r.label, latest, parent)
        defects = [d for d in str(r.name_defects).split("; ") if d]
        rows.append(
            {
                "level": int(r.level),
                "name": r.label,
                "status": r.status,
                "papers": f"{r.n_before} -> {r.n_latest}",
                "latest carry": carried_share(r.label, latest, parent),
                "rarest word": min(shares.values()) if shares else 0.0,
                "latest check": LATEST in defects,
                "only the latest check": defects == [LATEST],
                "defects": ", ".join(defects),
                "titles": " / ".join(list(r.latest_titles)[:3]),
            }
        )
    table = pd.DataFrame(rows)
    held = int(table["latest check"].sum()) if len(table) else 0
    alone = int(table["only the latest check"].sum()) if len(table) else 0
    lines = [
        f"# Headline names against their latest papers: ICML {args.a} -> {args.b}",
        "",
        f"`python benchmarks/headline_names.py --a {args.a} --b {args.b}` ({len(corpus):,} papers; fit "
        f"{fitted:.0f} s on {machine_line()}). Candidates: the {len(table)} nodes new or emerging at a "
        f"{args.fdr:.0%} false-discovery rate. `rare in its latest papers` (fewer than {MIN_CARRIED:.0%} of the "
        f"node's {args.b} papers carry the name, or a word of it is in fewer than {MIN_WORD_SHARE:.0%} of them; "
        "floors set on the ICLR 2024-2025 sample of `what_changed.ipynb`, not on this split) flags "
        f"{held} of them; {alone} of those would be headlines without it (they fail no other check). On the "
        "ICLR sample the floors were set on, it held back 'judges and large language models' (2 of its 11 papers "
        "of 2025 on LLM judges) and 'key-value (KV) cache and quantization' (3 of 18 on the KV cache).",
        "",
        "| level | name | status | papers | latest carry | rarest word | fails | 3 latest titles | read by hand |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in table.itertuples(index=False):
        verdict = verdicts.get(r.name)
        read = f"{verdict[0]}: {verdict[1]}" if verdict else ""
        lines.append(
            f"| {r.level} | {r.name} | {r.status} | {r.papers} | {r._4:.0%} | {r._5:.0%} | {r.defects or 'passes'} | "
            f"{r.titles} | {read} |"
        )
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
