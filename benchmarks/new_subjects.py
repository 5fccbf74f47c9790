"""New subjects found as new (issue 49, item 3): ICLR 2024-2025 subjects and a planted subject, before and after.

    python benchmarks/new_subjects.py [--parts planted,iclr] [--per-year 1500] [--out benchmarks/results/new_subjects.md]

Part 1, ICLR: a fixed sample of ``--per-year`` submissions of 2024 and of 2025 (the shared file), fitted twice
with ``TopicMap(random_state=0)``: "before" without the new-subject pass (the year column renamed, so the
tree stage sees no periods; the hierarchy is the same), "after" with it. For subjects that ICLR 2025 has and
2024 hardly has (found by words in title or abstract: Mamba, 3D Gaussian splatting, Kolmogorov-Arnold
networks, LLM-as-a-judge, sparse autoencoders, test-time scaling), the share of their 2025 papers that sit
in a headline node (``whats_new``: new or emerging, stable) and in a ``new`` node, per level.

Part 2, planted: ICML 2016-2019 and 2024, 150 papers a year (none on language models or Gaussian splatting),
and 60 ICLR 2025 papers on 3D Gaussian splatting added to 2024 (the corpus of
``tests/stages/test_new_subjects.py`` until its 2016-2018 papers became those of ``test_trend_methods.py``, 100 a
year, so that both files embed them once): the new node holding most of them, before and after.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
DATA = REPO.parent / "shared" / "data"
from _machine import git_state, machine_line  # noqa: E402
from _report import write_markdown  # noqa: E402

COLUMNS = ["id", "venue", "year", "title", "abstract"]
SUBJECTS = {
    "Mamba": r"\bmamba\b",
    "3D Gaussian splatting": r"gaussian splatting",
    "Kolmogorov-Arnold networks": r"kolmogorov-arnold|kolmogorov arnold",
    "LLM-as-a-judge": r"llm-as-a-judge|llm as a judge",
    "sparse autoencoders": r"sparse autoencoder",
    "test-time scaling": r"test-time scaling|test-time compute|inference-time scaling|inference-time compute",
}


def _text(frame: pd.DataFrame) -> pd.Series:
    return (frame["title"].fillna("") + " " + frame["abstract"].fillna("")).str.lower()


def _fit(corpus: pd.DataFrame, with_pass: bool):
    """The fit, and its documents with a ``year`` column; without the pass the tree stage sees no year."""
    from icml_topics import TopicMap

    data = corpus if with_pass else corpus.rename(columns={"year": "period"})
    start = time.perf_counter()
    tm = TopicMap(random_state=0, verbose=False).fit(data)
    seconds = time.perf_counter() - start
    by = "year" if with_pass else "period"
    return tm, by, seconds


def _ids(docs: pd.DataFrame) -> pd.Index:
    return pd.Index(docs["id"] if "id" in docs.columns else docs.index)


def _held(tm, by: str, mask: pd.Series, statuses: tuple[str, ...], headline: bool) -> dict[int, float]:
    """Per level: the share of the ``mask`` papers in a node of ``statuses`` (``headline``: listed by whats_new)."""
    docs = tm.documents_[tm.documents_["status"] == "ok"]
    mine = mask.loc[_ids(docs)].to_numpy()
    status = tm.topic_status(by=by)
    if headline:
        from icml_topics.compare.topic_trends import whats_new

        status = whats_new(status, statuses=statuses)
    else:
        status = status[status["status"].isin(statuses)]
    out = {}
    for level in sorted(set(tm.topic_tree_["level"])):
        nodes = set(status.loc[status["level"] == level, "topic"])
        inside = docs[f"topic_{level}"].isin(nodes).to_numpy()
        out[level] = float(inside[mine].mean()) if mine.any() else float("nan")
    return out


def iclr(per_year: int) -> list[str]:
    frame = pd.read_json(DATA / "iclr-2024-2025-areas.jsonl.gz", lines=True)
    parts = [frame[frame["year"] == y].sample(n=per_year, random_state=y)[COLUMNS] for y in (2024, 2025)]
    corpus = pd.concat(parts, ignore_index=True)
    text = _text(corpus)
    lines = [
        f"## ICLR: {per_year:,} submissions of 2024 and {per_year:,} of 2025 (fixed sample)",
        "",
        "Share of each subject's 2025 papers inside a headline node (whats_new: new or emerging, stability "
        ">= 0.5) and inside a `new` node, level 0 (finest) / level 1, before and after the pass.",
        "",
        "| subject | papers 2024 / 2025 | headline before | headline after | `new` before | `new` after |",
        "|---|---|---|---|---|---|",
    ]
    fits = {flag: _fit(corpus, flag) for flag in (False, True)}
    for name, pattern in SUBJECTS.items():
        hit = text.str.contains(pattern, regex=True)
        mask = pd.Series((hit & (corpus["year"] == 2025)).to_numpy(), index=corpus["id"])
        n24, n25 = int((hit & (corpus["year"] == 2024)).sum()), int(mask.sum())
        cells = []
        for statuses, headline in ((("new", "emerging"), True), (("new",), False)):
            for flag in (False, True):
                tm, by, _ = fits[flag]
                held = _held(tm, by, mask, statuses, headline)
                cells.append(" / ".join(f"{100 * v:.0f}%" for v in held.values()))
        lines.append(f"| {name} | {n24} / {n25} | {cells[0]} | {cells[1]} | {cells[2]} | {cells[3]} |")
    tm, by, seconds = fits[True]
    rows = tm.whats_new(2025, statuses=("new",))
    lines += ["", f"`new` nodes after the pass (fit: {seconds:.0f} s):", ""]
    lines += ["| level | name | papers 2024 / 2025 | q | stability |", "|---|---|---|---|---|"]
    lines += [
        f"| {r.level} | {r.label} | {r.n_before} / {r.n_latest} | {r.q_value:.1e} | {r.stability:.2f} |"
        for r in rows.itertuples(index=False)
    ]
    return lines


def planted() -> list[str]:
    icml = pd.read_json(DATA / "icml-2013-2024.jsonl.gz", lines=True)
    iclr_frame = pd.read_json(DATA / "iclr-2024-2025-areas.jsonl.gz", lines=True)
    years = (2016, 2017, 2018, 2019, 2024)
    base = icml[~_text(icml).str.contains("language model|llm|gaussian splatting|3d gaussian")]
    parts = [base[base["year"] == y].sample(n=150, random_state=y)[COLUMNS] for y in years]
    subject = iclr_frame[(iclr_frame["year"] == 2025) & _text(iclr_frame).str.contains("gaussian splatting")]
    subject = subject.sample(n=60, random_state=0)[COLUMNS].assign(year=2024, venue="ICML")
    corpus = pd.concat(parts + [subject], ignore_index=True)
    mask = pd.Series(corpus["id"].isin(subject["id"]).to_numpy(), index=corpus["id"])
    lines = [
        "## Planted: 60 ICLR 2025 papers on 3D Gaussian splatting added to ICML 2024",
        "",
        "ICML 2016-2019 and 2024, 150 papers a year (none on language models or Gaussian splatting); the node "
        "holding most planted papers among the `new` nodes of each level.",
        "",
        "| run | level | name | planted in it / its papers | status | q | stability |",
        "|---|---|---|---|---|---|---|",
    ]
    for flag in (False, True):
        tm, by, _ = _fit(corpus, flag)
        docs = tm.documents_[tm.documents_["status"] == "ok"]
        status = tm.topic_status(by=by)
        for level in sorted(set(status["level"])):
            best = None
            for r in status[(status["level"] == level) & (status["status"] == "new")].itertuples(index=False):
                members = docs[docs[f"topic_{level}"] == r.topic]
                n = int(mask.loc[_ids(members)].sum())
                if best is None or n > best[0]:
                    best = (n, len(members), r)
            if best is None:
                lines.append(f"| {'after' if flag else 'before'} | {level} | (no new node) | | | | |")
                continue
            n, size, r = best
            lines.append(
                f"| {'after' if flag else 'before'} | {level} | {r.label} | {n} of 60 / {size} | {r.status} | "
                f"{r.q_value:.1e} | {r.stability:.2f} |"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-year", type=int, default=1500)
    parser.add_argument("--parts", default="planted,iclr", help="which parts to run: planted, iclr or both")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "new_subjects.md")
    args = parser.parse_args()
    lines = [
        "# New subjects found as new (issue 49, item 3)",
        "",
        f"`python benchmarks/new_subjects.py --parts {args.parts} --per-year {args.per_year}` at "
        f"{git_state(REPO)}, Python {sys.version.split()[0]}, {machine_line()} (shared by other jobs: times are "
        "not speeds).",
        "",
        *(planted() if "planted" in args.parts else []),
        "",
        *(iclr(args.per_year) if "iclr" in args.parts else []),
    ]
    write_markdown(args.out, lines)


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
