"""Why reappearing nodes change their name after a 10% drop (issue 49, item 2): each renamed node classified.

    python benchmarks/names_renames.py --data iclr24_tune [--tag LABEL] [--out PATH]

Reads ``names_tune.py``'s saved naming inputs (``--fit`` first: ``RAW/tune_<data>_90_24[_seed<k>].pkl``, three
drops), names both trees of each drop with this checkout's code, records each level's sibling groups and the
names before the repair pass, and sorts each renamed reappearing node (matched as ``names_tune.py`` matches,
Jaccard >= 0.5, a different ``name_key``) into the first class that fits: the repair pass (one fit repaired, or
both differently); a join that comes or goes, or another second part after the same first; one form holding the
other's words; the old name not carried by the other fit's node at all, or under the 10% floor there, or now
carried by a sibling as often or more than half as often; else another phrase won, its share within 0.05 of the
old name's or further (shares of titles and keywords, read with ``SiblingShares``). Also the kept share by how
much the node's papers changed (Jaccard buckets). The table goes to ``--out`` (``results/names_renames.md``),
one section per ``--tag``.
"""

from __future__ import annotations

import argparse
import collections
import pickle
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from _machine import machine_line  # noqa: E402
from names_tune import _file  # noqa: E402

BUCKETS = ((0.9, "Jaccard >= 0.9"), (0.7, "0.7-0.9"), (0.5, "0.5-0.7"))


def named(seen: dict) -> dict:
    """Both the names, each level's sibling groups as ``group_names`` gets them (to read shares from), and the
    names before the repair pass."""
    import icml_topics.stages.tree_names as tn

    rec: dict = {"pre": None, "groups": {}, "level": -1}
    group, repair = tn.group_names, tn.repair_names

    def spy_group(groups, *a, **k):
        rec["level"] += 1
        for parent, kids in groups:
            for node in kids:
                rec["groups"][rec["level"], node] = (parent, kids)
        return group(groups, *a, **k)

    def spy_repair(names, *a, **k):
        rec["pre"] = [dict(level) for level in names]
        return repair(names, *a, **k)

    tn.group_names, tn.repair_names = spy_group, spy_repair
    try:
        rec["names"] = tn.name_levels(*seen["args"], **seen["kwargs"], cache_dir=None)
    finally:
        tn.group_names, tn.repair_names = group, repair
    return rec


def _shares(rec: dict, key: tuple, name: str) -> tuple[float, float]:
    """The node's share carrying ``name`` (titles and keywords) and its siblings' largest (with the prior)."""
    from icml_topics.evaluate.name_rules import IndexedTitles
    from icml_topics.evaluate.names import MAX_NAME_CHARS
    from icml_topics.stages.sibling_shares import ChildPapers, SiblingShares

    found = rec.setdefault("shares", {})
    parent, kids = rec["groups"][key]
    if id(kids) not in found:
        indexed = {k: ChildPapers(IndexedTitles(list(v.titles)), v.texts, v.keywords) for k, v in kids.items()}
        found[id(kids)] = SiblingShares(indexed, parent, MAX_NAME_CHARS)
    sib = found[id(kids)]
    return sib.share(name, key[1]), sib.sibling_share({c: sib.share(name, c) for c in sib.holders(name)}, key[1])


def classify(a: dict, b: dict, lv: int, t: int, u: int) -> str:
    """Why node ``t`` of fit ``a`` and its match ``u`` of fit ``b`` have different names (read off the shares
    of the two names in each fit, whatever rule chose them)."""
    from icml_topics.stages.naming import name_key
    from icml_topics.stages.sibling_names import MIN_OWN

    pa, pb = a["pre"][lv][t], b["pre"][lv][u]
    if name_key(pa) == name_key(pb):
        return "repair pass: one fit repaired"
    if name_key(pa) != name_key(a["names"][lv][t]) or name_key(pb) != name_key(b["names"][lv][u]):
        return "repair pass: both, or differently"
    first_a, first_b = pa.split(" and ")[0], pb.split(" and ")[0]
    if name_key(first_a) == name_key(first_b):
        return "join: another second part" if " and " in pa and " and " in pb else "join: comes or goes"
    wa, wb = set(first_a.lower().split()), set(first_b.lower().split())
    if wa < wb or wb < wa:
        return "one form holds the other's words"
    (own_then, sib_then), (own_now, sib_now) = _shares(a, (lv, t), pa), _shares(b, (lv, u), pa)
    if own_now <= 0:
        return "not carried by the other fit's node"
    if own_now < MIN_OWN:
        return "under the 10% floor now"
    if sib_now >= own_now and sib_then < own_then:
        return "now carried by a sibling as often"
    if sib_now > own_now / 2 and not sib_then > own_then / 2:
        return "now carried by a sibling more than half as often"
    new_own = _shares(b, (lv, u), pb)[0]
    return "other phrase within 0.05 of its share" if abs(new_own - own_now) <= 0.05 else "other phrase, wider gap"


def run(data: str, seeds: tuple[int, ...]) -> tuple[collections.Counter, list]:
    from icml_topics.stages.naming import name_key

    counts: collections.Counter = collections.Counter()
    examples = []
    for seed in seeds:
        saved = pickle.loads(_file(data, (90, 24), seed).read_bytes())
        full, part, keep = saved["full"], saved["part"], saved["keep"]
        a, b = named(full), named(part)
        la, lb = full["args"][0], part["args"][0]
        where = {int(r): i for i, r in enumerate(keep)}
        for lv in range(la.shape[1]):
            before = {
                int(t): {where[i] for i in np.flatnonzero(la[:, lv] == t) if i in where} for t in full["args"][1][lv]
            }
            after = {int(t): set(np.flatnonzero(lb[:, lv] == t).tolist()) for t in part["args"][1][lv]}
            for t, ids in before.items():
                u = max(after, key=lambda v: len(ids & after[v]) / max(len(ids | after[v]), 1))
                jac = len(ids & after[u]) / max(len(ids | after[u]), 1)
                if jac < 0.5:
                    continue
                bucket = next(label for floor, label in BUCKETS if jac >= floor)
                counts[lv, "reappear", bucket] += 1
                if name_key(a["names"][lv][t]) == name_key(b["names"][lv][u]):
                    counts[lv, "kept", bucket] += 1
                    continue
                why = classify(a, b, lv, t, u)
                counts[lv, "renamed", why] += 1
                counts[lv, "renamed bucket", bucket] += 1
                examples.append((lv, why, len(ids), round(jac, 2), a["names"][lv][t], b["names"][lv][u]))
    return counts, examples


def render(label: str, data: str, counts: collections.Counter, examples: list) -> str:
    lines = [f"## {label}: {data}, 90/24 papers a node, drops 0,1,2", "", machine_line(), ""]
    for lv in sorted({k[0] for k in counts}):
        back = sum(v for k, v in counts.items() if k[0] == lv and k[1] == "reappear")
        kept = sum(v for k, v in counts.items() if k[0] == lv and k[1] == "kept")
        lines += [f"### Level {lv}: {kept} of {back} reappearing nodes keep their name", ""]
        lines += ["| papers matched | reappear | keep their name |", "|---|---:|---:|"]
        for _, bucket in BUCKETS:
            n, k = counts[lv, "reappear", bucket], counts[lv, "kept", bucket]
            lines.append(f"| {bucket} | {n} | {k} ({k / max(n, 1):.0%}) |")
        lines += ["", "| why renamed | nodes |", "|---|---:|"]
        whys = {k[2]: v for k, v in counts.items() if k[0] == lv and k[1] == "renamed"}
        for why, n in sorted(whys.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"| {why} | {n} |")
        lines += ["", "Largest renamed nodes (papers, Jaccard, name before, name after):", ""]
        for e in sorted((e for e in examples if e[0] == lv), key=lambda e: (-e[2], e[4]))[:8]:
            lines.append(f'- {e[1]}: {e[2]} papers, {e[3]}: "{e[4]}" -> "{e[5]}"')
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="iclr24_tune")
    parser.add_argument("--tag", default="this checkout")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "names_renames.md")
    args = parser.parse_args()
    counts, examples = run(args.data, (0, 1, 2))
    section = render(args.tag, args.data, counts, examples)
    head = "# Why reappearing nodes change their name after a 10% drop (issue 49)\n\n"
    head += (
        "`python benchmarks/names_renames.py --data DATA --tag TAG` (its docstring says how nodes are classified).\n"
    )
    old = args.out.read_text() if args.out.exists() else head
    marker = f"## {args.tag}: {args.data},"
    parts = [p for p in old.split("\n## ") if p and not ("## " + p).startswith(marker)]
    body = parts[0] if parts and parts[0].startswith("# ") else head
    rest = ["## " + p for p in parts[1:]] if parts and parts[0].startswith("# ") else ["## " + p for p in parts]
    args.out.write_text("\n\n".join([body.rstrip("\n"), *[r.rstrip("\n") for r in rest], section.rstrip("\n")]) + "\n")
    print(section)


if __name__ == "__main__":
    main()
