"""Why the notebooks' nodes are flagged by ``TopicMap.name_checks()``, and how many (issue 49).

    python benchmarks/notebook_names.py --fit                  # fit the three notebooks' samples once (minutes)
    python benchmarks/notebook_names.py [-v]                   # rename and check with this checkout (seconds)
    python benchmarks/notebook_names.py --record "after"       # keep the counts in results/notebook_names.*

``--fit`` fits ``TopicMap`` on the samples the notebooks fit, exactly as they do (``small_corpus_names.sample``:
``quickstart``, ``cross_year``, ``what_changed``) and keeps, in ``benchmarks/results/raw/notebook_<sample>.pkl``
(ignored by git), the fitted tree and documents and the arguments the fit gave ``tree_names.name_levels``.
Without ``--fit``, each sample's tree is named again by this checkout's ``name_levels`` (the nodes are the
fitted ones: a change to the namer is measured on the same nodes) and checked by this checkout's
``compare.name_checks``, as the notebooks' ``tm.name_checks()`` cell does. Per sample: the nodes, those
flagged (any defect), those flagged for their name (a defect other than ``too few papers to judge``), and the
count of each defect. ``-v`` lists every flagged node with its size, its name's share of the node's titles and
keywords (*said*) and of its texts (*carried*), and the phrases most of its titles and keywords hold.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.append(str(REPO))  # after $PYTHONPATH: PYTHONPATH=/other/checkout measures that checkout's code
sys.path.insert(0, str(REPO / "benchmarks"))

from benchmarks._machine import git_state, machine_line  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
RAW = RESULTS / "raw"
SAMPLES = ("quickstart", "cross_year", "what_changed")
TOO_FEW = "too few papers to judge"


def _file(sample: str) -> Path:
    return RAW / f"notebook_{sample}.pkl"


def fit(sample: str, data: Path) -> None:
    """Fit the notebook's sample; keep its tree, documents and ``name_levels``' arguments."""
    from names_tune import name_levels_args
    from small_corpus_names import sample as notebook_sample

    from icml_topics import TopicMap

    frame, kwargs = notebook_sample(sample, data)
    seen, tm = name_levels_args(lambda: TopicMap(verbose=False, **kwargs).fit(frame))
    RAW.mkdir(parents=True, exist_ok=True)
    out = {"seen": seen, "tree": tm.topic_tree_, "documents": tm.documents_, "kwargs": kwargs}
    _file(sample).write_bytes(pickle.dumps(out))


def renamed(saved: dict) -> pd.DataFrame:
    """The fitted tree with each node named by this checkout's ``name_levels`` (a node of the saved arguments is
    matched to the tree's node holding most of its papers)."""
    from icml_topics.fitted_tables import modelled_rows
    from icml_topics.stages.tree_names import name_levels

    args, kwargs = saved["seen"]["args"], saved["seen"]["kwargs"]
    names = name_levels(*args, **kwargs, cache_dir=None)
    labels = args[0]
    rows = modelled_rows(saved["documents"])
    tree = saved["tree"].copy()
    for lv in range(labels.shape[1]):
        fitted = pd.to_numeric(rows[f"topic_{lv}"], errors="coerce").to_numpy()
        for node, name in names[lv].items():
            held = fitted[labels[:, lv] == node]
            held = held[~np.isnan(held)]
            if len(held):
                topic = int(Counter(held.astype(int).tolist()).most_common(1)[0][0])
                tree.loc[(tree["level"] == lv) & (tree["topic"] == topic), "label"] = name
    return tree


def check(sample: str, verbose: bool) -> dict:
    from icml_topics.compare.name_checks import name_checks, node_rows, paper_said, paper_texts
    from icml_topics.evaluate.name_rules import title_share
    from icml_topics.fitted_tables import modelled_rows
    from icml_topics.stages.name_phrases import phrase_counts

    saved = pickle.loads(_file(sample).read_bytes())
    started = time.perf_counter()
    tree = renamed(saved)
    checks = name_checks(tree, saved["documents"])
    seconds = time.perf_counter() - started
    defects = checks["name_defects"].astype(str)
    if "name_caveat" in checks.columns:  # the caveat apart from the defects (this branch on)
        few = checks["name_caveat"].astype(str).str.contains(TOO_FEW)
        defects = defects.where(~few, defects.map(lambda d: "; ".join(x for x in (d, TOO_FEW) if x)))
    flagged = defects != ""
    for_name = flagged & (defects != TOO_FEW)
    counts = Counter(d for cell in defects for d in cell.split("; ") if d)
    row = {
        "sample": sample,
        "nodes": len(checks),
        "flagged": int(flagged.sum()),  # a defect or the caveat (what the notebooks showed before the caveat)
        "flagged for the name": int(for_name.sum()),
        "judged (>= 10 papers)": int((~defects.str.contains(TOO_FEW)).sum()),
        "judged and flagged": int((flagged & ~defects.str.contains(TOO_FEW)).sum()),
        "defects": dict(sorted(counts.items())),
        "seconds": round(seconds, 1),
    }
    print(json.dumps(row))
    rows = modelled_rows(saved["documents"])
    row["nodes flagged"] = []
    for i in np.flatnonzero(flagged.to_numpy()):
        r = checks.iloc[i]
        members = node_rows(rows, int(r.level), int(r.topic))
        said, texts = paper_said(members), paper_texts(members)
        row["nodes flagged"].append(
            [int(r.level), int(r.topic), len(said), r.label, round(title_share(r.label, said), 2),
             round(title_share(r.label, texts), 2), defects.iloc[i]]
        )  # fmt: skip
        if verbose:
            top = sorted(phrase_counts(said).values(), reverse=True)[:6]
            print(
                f"  L{r.level} t{r.topic} n={len(said)} {r.label!r} [{r.theme}] said={title_share(r.label, said):.2f} "
                f"carried={title_share(r.label, texts):.2f}: {r.name_defects}\n      top: "
                + ", ".join(f"{form} {n}" for n, form in top)
            )
    return row


def record(tag: str, rows: list[dict]) -> None:
    store = RESULTS / "notebook_names.json"
    runs = json.loads(store.read_text()) if store.exists() else {}
    import icml_topics

    code = Path(icml_topics.__file__).resolve().parents[1]
    runs[tag] = {"rows": rows, "machine": machine_line(), "code": f"{code.name} {git_state(code)}"}
    store.write_text(json.dumps(runs, indent=1))
    lines = [
        "# Names flagged by `TopicMap.name_checks()` on the notebooks' fits (issue 49)",
        "",
        "`python benchmarks/notebook_names.py --fit` once, then `python benchmarks/notebook_names.py --record TAG`:",
        "the notebooks' three fits (the same nodes for every tag), named by the tag's `name_levels` and checked by its",
        "`compare.name_checks`. *Flagged*: a defect or `too few papers to judge` (a node under 10 papers: on main",
        "before this branch a defect, what the notebooks' cell counted); *for the name*: a defect other than that (from",
        "this branch it is a caveat, `name_caveat`, and the cell counts these); *judged*: nodes of at least 10 papers.",
        "",
        "| tag | sample | nodes | flagged | flagged for the name | judged | judged and flagged | defects |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, run in runs.items():
        for r in run["rows"]:
            d = ", ".join(f"{k} {v}" for k, v in r["defects"].items())
            lines.append(
                f"| {name} | {r['sample']} | {r['nodes']} | {r['flagged']} | {r['flagged for the name']} | "
                f"{r['judged (>= 10 papers)']} | {r['judged and flagged']} | {d} |"
            )
    lines.append("")
    lines += [f"- {name}: {run['code']}; {run['machine']}" for name, run in runs.items()]
    for name, run in runs.items():
        for r in run["rows"]:
            lines += [
                "",
                f"## {name}: {r['sample']}, flagged nodes",
                "",
                "*said*: share of the node's titles (and author keywords) that say the name; *carried*: of its",
                "texts (title, keywords, abstract).",
                "",
                "| level | topic | papers | name | said | carried | defects |",
                "|---:|---:|---:|---|---:|---:|---|",
            ]
            lines += [f"| {lv} | {t} | {n} | {lab} | {a:.2f} | {b:.2f} | {d} |" for lv, t, n, lab, a, b, d in
                      r.get("nodes flagged", [])]  # fmt: skip
    (RESULTS / "notebook_names.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", nargs="*", default=list(SAMPLES))
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--record", metavar="TAG")
    args = parser.parse_args()
    if args.fit:
        for s in args.samples:
            fit(s, args.data)
    rows = [check(s, args.verbose) for s in args.samples]
    if args.record:
        record(args.record, rows)


if __name__ == "__main__":
    main()
