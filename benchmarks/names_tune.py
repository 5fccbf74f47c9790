"""Tuning harness for the offline names (issue 49): fit the tree once on a corpus and on the corpus less a random
10%, keep what ``name_levels`` is given, then name both trees again with this checkout's naming code and measure
support and stability in seconds instead of minutes. Used to tune on ``iclr24_tune`` (3,000 ICLR 2024 papers that
``iclr24_3000`` leaves out), never on the reported data; once the rules are chosen, ``--data iclr24_3000``
measures them on the reported papers over the same drops (``--record``).

    python benchmarks/names_tune.py --data iclr24_tune --fit     # the two fits' naming inputs (minutes, once)
    python benchmarks/names_tune.py --data iclr24_tune           # name both, measure (seconds)
    python benchmarks/names_tune.py --data iclr24_tune --sizes 90 24 --fit   # two fixed levels (coarser names)
    python benchmarks/names_tune.py --data iclr24_tune --seeds 0 1 2 [--fit]   # stability summed over 3 drops
    python benchmarks/names_tune.py --data iclr24_tune --seeds 0 1 2 --set SIBLING_PRIOR=0 --record "a rule"
                                                     # kept in results/names_tune.json and names_tune.md
    python benchmarks/names_tune.py --data iclr24_tune --seeds 0 1 2 --sizes 90 24 --cost-record "this branch"
                          # naming's CPU and a digest of every name: results/names_cost.json and names_cost.md
    PYTHONPATH=/path/to/old/checkout python benchmarks/names_tune.py ... --cost-record "old main"   # the same
    python benchmarks/names_tune.py --tiled 50000 --fit --work W --cache-dir C   # scaling.py's --work, --cache-dir
    python benchmarks/names_tune.py --tiled 50000 --cost-record "this branch"    # naming alone, fresh process

The inputs go to ``benchmarks/results/raw/tune_<data>.pkl`` (ignored by git). Measures as ``sibling_names.py``:
*supported* (>= 50% of the node's papers carry the name, each sibling's at most half as often, not a bare generic
word) and *keeps its
name* (a node of the 90% fit holds the node's remaining papers with Jaccard >= 0.5 and has the same ``name_key``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from _embedded import prepared  # noqa: E402
from _machine import machine_line  # noqa: E402
from _measure import measure_call  # noqa: E402
from sibling_names import carriers, renamed_after_drop  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
RAW = RESULTS / "raw"


def name_levels_args(fit) -> tuple[dict, object]:
    """The arguments ``name_levels`` receives while ``fit()`` runs (``cache_dir`` left out: the naming stage's
    inputs, to rename a fitted tree again without refitting it) and what ``fit()`` returned."""
    import icml_topics.stages.tree_names as tn

    seen: dict = {}
    original = tn.name_levels

    def spy(*args, **kwargs):
        seen["args"], seen["kwargs"] = args, {k: v for k, v in kwargs.items() if k != "cache_dir"}
        return original(*args, **kwargs)

    tn.name_levels = spy
    try:
        fitted = fit()
    finally:
        tn.name_levels = original
    return seen, fitted


def _capture(frame: pd.DataFrame, emb: np.ndarray, sizes: tuple[int, ...] | None) -> dict:
    """``name_levels``' arguments in ``TopicMap(random_state=42).fit``."""
    from icml_topics import TopicMap

    return name_levels_args(
        lambda: TopicMap(random_state=42, verbose=False, topic_sizes=sizes).fit(frame, embeddings=emb)
    )[0]


def _file(data: str, sizes: tuple[int, ...] | None, seed: int = 0) -> Path:
    tail = (f"_{'_'.join(map(str, sizes))}" if sizes else "") + (f"_seed{seed}" if seed else "")
    return RAW / f"tune_{data}{tail}.pkl"


def fit_inputs(data: str, sizes: tuple[int, ...] | None, drop: float = 0.1, seed: int = 0) -> None:
    base = prepared(data)
    frame, emb = pd.read_parquet(base.with_suffix(".parquet")), np.load(base.with_suffix(".npy"))
    keep = np.sort(np.random.default_rng(seed).permutation(len(frame))[int(round(drop * len(frame))) :])
    old = _file(data, sizes) if seed else None  # the full fit is the same for every drop
    full = pickle.loads(old.read_bytes())["full"] if old and old.exists() else _capture(frame, emb, sizes)
    part = _capture(frame.iloc[keep].reset_index(drop=True), emb[keep], sizes)
    RAW.mkdir(parents=True, exist_ok=True)
    out = {"full": full, "part": part, "keep": keep, "carriers": carriers(frame), "ids": frame["id"].tolist()}
    _file(data, sizes, seed).write_bytes(pickle.dumps(out))


def tiled_inputs(n: int, work: Path, cache_dir: Path) -> Path:
    """``name_levels``' arguments in a default fit of ``n`` tiled vectors (``scaling.py``'s base in ``work``, its
    ``synthetic`` copies, its ``BenchEmbed``: the model for the theme texts, the stand-in for keyphrase
    candidates), kept in ``RAW/tiled_<n>.pkl``: the stages read, embed, themes and tree (no map: the tree does
    not read it)."""
    from scaling import BenchEmbed, synthetic

    import icml_topics.stages.tree_names as tn
    from icml_topics.fit_config import FitConfig
    from icml_topics.fitting import FIT_STAGES, FitRun, run_stages

    emb, table = synthetic(work, n)
    config = FitConfig.from_params({"random_state": 42, "cache": False})
    embed = BenchEmbed(cache_dir, n)
    seen: dict = {}
    original = tn.name_levels

    def spy(*args, **kwargs):
        seen["args"], seen["kwargs"] = args, {k: v for k, v in kwargs.items() if k != "cache_dir"}
        raise _Captured

    tn.name_levels = spy
    try:
        run = FitRun(config, embed, table.drop(columns=["text"]), given_embeddings=emb)
        stages = [s for s in FIT_STAGES if s.name in ("read", "embed", "themes", "tree")]
        run_stages(run, stages, on_stage=lambda name, line="": setattr(embed, "stage", name))
    except _Captured:
        pass
    finally:
        tn.name_levels = original
    RAW.mkdir(parents=True, exist_ok=True)
    out = RAW / f"tiled_{n}.pkl"
    out.write_bytes(pickle.dumps(seen))
    return out


class _Captured(Exception):
    """``name_levels`` was called: its arguments are kept, the fit stops there."""


def time_tiled(n: int, names_out: Path | None) -> dict:
    """One ``name_levels`` call on ``tiled_inputs``' arguments in this process (``_measure.measure_call``: CPU
    and wall seconds, the RSS before it and the process's peak: naming's growth is the difference)."""
    saved = pickle.loads((RAW / f"tiled_{n}.pkl").read_bytes())
    labels = saved["args"][0]
    names, cost = measure_call(_names, saved)
    row = {
        "n": n,
        "levels": int(labels.shape[1]),
        "nodes": [len(level) for level in names],
        "cpu_s": round(cost.cpu_s, 1),
        "wall_s": round(cost.wall_s, 1),
        "rss_before_mib": round(cost.rss_before_mib),
        "peak_rss_mib": round(cost.peak_rss_mib),
        "machine": machine_line(),
    }
    print(json.dumps(row))
    out = [{str(k): v for k, v in sorted(lv.items())} for lv in names]
    if names_out is not None:
        names_out.write_text(json.dumps(out, indent=1, ensure_ascii=False))
    COST.update(
        naming_cpu_s=row["cpu_s"], wall_s=row["wall_s"], rss_before_mib=row["rss_before_mib"],
        peak_rss_mib=row["peak_rss_mib"], names=_digest(out),
    )  # fmt: skip
    return row


def _names(seen: dict) -> list[dict[int, str]]:
    from icml_topics.stages.tree_names import name_levels

    return name_levels(*seen["args"], **seen["kwargs"], cache_dir=None)


def _groups(labels: np.ndarray, parents, themes) -> list[dict[int, list[int]]]:
    """level -> node -> its papers' rows."""
    return [{int(t): np.flatnonzero(labels[:, lv] == t).tolist() for t in parents[lv]} for lv in range(labels.shape[1])]


def support(seen: dict, names: list[dict[int, str]], texts: list[str]) -> list[tuple[int, int, list]]:
    from icml_topics.evaluate.name_papers import generic_name
    from icml_topics.evaluate.name_rules import IndexedTitles, title_share
    from icml_topics.stages.tree_names import node_theme

    labels, parents, themes = seen["args"][0], seen["args"][1], seen["args"][2]
    top = labels.shape[1] - 1
    theme = node_theme(labels[:, top], themes)
    rows = _groups(labels, parents, themes)
    out = []
    for lv in range(labels.shape[1]):
        papers = {t: IndexedTitles([texts[i] for i in r]) for t, r in rows[lv].items()}
        key = {t: (parents[lv][t] if lv < top else theme.get(t, "")) for t in rows[lv]}
        ok, detail = 0, []
        for t in rows[lv]:
            own = title_share(names[lv][t], papers[t])
            sib = max(
                (title_share(names[lv][t], papers[u]) for u in rows[lv] if u != t and key[u] == key[t]), default=0
            )
            ok += own >= 0.5 and sib <= own / 2 and not generic_name(names[lv][t])
            detail.append((lv, t, len(rows[lv][t]), names[lv][t], round(own, 2), round(sib, 2)))
        out.append((ok, len(rows[lv]), detail))
    return out


def stability(full: dict, part: dict, keep: np.ndarray, names_a, names_b) -> list[tuple[int, int, list]]:
    """Per level: (nodes that keep their name, nodes that reappear, the renamed ones), as ``sibling_names.py``
    measures it (``renamed_after_drop``), on the rows of the two fits (the part's rows are ``keep``'s order)."""
    la, lb = full["args"][0], part["args"][0]
    where = {int(r): i for i, r in enumerate(keep)}
    out = []
    for lv in range(la.shape[1]):
        a = {int(t): {where[i] for i in np.flatnonzero(la[:, lv] == t) if i in where} for t in full["args"][1][lv]}
        b = {int(t): set(np.flatnonzero(lb[:, lv] == t).tolist()) for t in part["args"][1][lv]}
        back, same, changed = renamed_after_drop(a, b, names_a[lv], names_b[lv])
        out.append((same, back, changed))
    return out


def measure(
    data: str,
    sizes: tuple[int, ...] | None,
    verbose: bool,
    seeds: tuple[int, ...] = (0,),
    names_out: Path | None = None,
) -> list[dict]:
    """Support on the full fit; stability summed over the drops of ``seeds`` (more drops: a steadier count).
    Returns one row per level. ``names_out``: every name of both trees of every drop, as JSON (to diff two
    checkouts' names)."""
    t0, cpu0 = time.perf_counter(), time.process_time()
    stab: list[tuple[int, int, list]] = []
    named: dict[str, list] = {}
    naming_cpu = 0.0
    for seed in seeds:
        saved = pickle.loads(_file(data, sizes, seed).read_bytes())
        c0 = time.process_time()
        names_a, names_b = _names(saved["full"]), _names(saved["part"])
        naming_cpu += time.process_time() - c0
        named[f"seed {seed} full"], named[f"seed {seed} part"] = names_a, names_b
        one = stability(saved["full"], saved["part"], saved["keep"], names_a, names_b)
        stab = [(a[0] + b[0], a[1] + b[1], a[2] + b[2]) for a, b in zip(stab, one, strict=True)] if stab else one
    seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    out = {k: [{str(n): v for n, v in sorted(level.items())} for level in lv] for k, lv in named.items()}
    if names_out is not None:
        names_out.write_text(json.dumps(out, indent=1, ensure_ascii=False))
    COST.update(naming_cpu_s=round(naming_cpu, 1), wall_s=round(seconds, 1), names=_digest(out))
    texts = saved["carriers"]
    sup = support(saved["full"], names_a, texts)
    rows = []
    for lv, ((ok, n, detail), (same, back, changed)) in enumerate(zip(sup, stab, strict=True)):
        rows.append({"level": lv, "supported": ok, "nodes": n, "keep": same, "reappear": back})
        print(f"level {lv}: supported {ok}/{n} = {ok / n:.0%}; keep name {same}/{back} = {same / max(back, 1):.0%}")
        if verbose:
            for d in sorted(detail, key=lambda d: -d[2]):
                print("   ", d)
            for c in changed:
                print("    changed", c)
    print(f"naming both trees ({len(seeds)} drops): {seconds:.1f} s wall, {cpu:.1f} s CPU ({naming_cpu:.1f} s in")
    print(f"name_levels) on {machine_line()}")
    return rows


COST: dict = {}  # the last run's naming cost and names (``measure``, ``time_tiled``), for ``record_cost``


def _digest(names: object) -> dict:
    """How many names, and a digest of them all (JSON, keys sorted): two checkouts gave the same names when
    their digests are equal."""
    text = json.dumps(names, sort_keys=True, ensure_ascii=False)
    count = sum(len(level) for tree in (names.values() if isinstance(names, dict) else [names]) for level in tree)
    return {"count": count, "sha256": hashlib.sha256(text.encode()).hexdigest()[:16]}


def record_cost(label: str, what: str) -> None:
    """Keep the last run's naming cost under ``label`` in ``results/names_cost.json`` and rewrite
    ``results/names_cost.md`` (``--cost-record``)."""
    import icml_topics

    store = RESULTS / "names_cost.json"
    runs = json.loads(store.read_text()) if store.exists() else {}
    runs.setdefault(what, {})[label] = {**COST, "code": str(Path(icml_topics.__file__).parent.parent.name),
                                        "machine": machine_line()}  # fmt: skip
    store.write_text(json.dumps(runs, indent=1))
    lines = [
        "# What naming the tree costs, and the names it gives (issues 49 and 51)",
        "",
        "`python benchmarks/names_tune.py --data iclr24_tune --seeds 0 1 2 [--sizes 90 24] --cost-record LABEL`:",
        "`name_levels` on both trees (the full fit and the fit less 10%) of each of the 3 drops, CPU seconds of",
        "the calls. `--tiled N --cost-record LABEL`: one `name_levels` call on the default fit of N tiled vectors",
        "(`scaling.py`'s base, its stand-in phrase embedder; inputs captured once by `--tiled N --fit`), in a fresh",
        "process: CPU, wall, the process's RSS before and its peak after. *Names*: how many, and a digest of them",
        "all: the same digest, the same names, byte for byte. The machine is shared with other jobs (its load is",
        "in the machine line): CPU seconds move less than wall.",
        "",
        "| what | code | naming CPU s | wall s | RSS before / peak MiB | names | digest | machine |",
        "|---|---|---:|---:|---:|---:|---|---|",
    ]
    for name, by_label in runs.items():
        for lab, r in by_label.items():
            rss = f"{r['rss_before_mib']:,} / {r['peak_rss_mib']:,}" if "peak_rss_mib" in r else ""
            lines.append(
                f"| {name} | {lab} | {r['naming_cpu_s']} | {r['wall_s']} | {rss} | {r['names']['count']:,} | "
                f"`{r['names']['sha256']}` | {r['machine']} |"
            )
    (RESULTS / "names_cost.md").write_text("\n".join(lines) + "\n")


def record(label: str, settings: list[str], data: str, sizes, seeds, rows: list[dict]) -> None:
    """Keep one run's rows in ``results/names_tune.json`` under ``label`` and rewrite ``results/names_tune.md``."""
    store = RESULTS / "names_tune.json"
    runs = json.loads(store.read_text()) if store.exists() else {}
    shape = "default levels" if not sizes else "/".join(map(str, sizes))
    runs.setdefault(label, {"set": " ".join(settings) or "(this checkout)"})[f"{data} {shape}"] = {
        "data": data,
        "seeds": list(seeds),
        "levels": rows,
        "machine": machine_line(),
    }
    store.write_text(json.dumps(runs, indent=1))
    lines = [
        "# Name rules measured on ICLR 2024 submissions and ICML, over 10% drops (issue 49)",
        "",
        "`python benchmarks/names_tune.py --data DATA --seeds 0 1 2 [--sizes 90 24] [--set NAME=VALUE ...]"
        " --record LABEL`. Rules were chosen on `iclr24_tune` (3,000 ICLR 2024 papers that `iclr24_3000` leaves"
        " out) only; `iclr24_3000` (the reported papers) was measured once the rules were chosen. *Supported*: at least 50% of the",
        "node's papers carry its name, each sibling's at most half as often, not a bare generic word (on the full",
        "fit). *Keep*: nodes that reappear after dropping 10% of the papers (Jaccard >= 0.5), summed over the drops",
        "of `--seeds`, that keep their name (same `name_key`). Level 0 is the finest.",
        "",
        "| rule | settings | data, levels, drops | level | supported | keep their name |",
        "|---|---|---|---:|---:|---:|",
    ]
    for name, run in runs.items():
        for shape_name, one in run.items():
            if shape_name == "set":
                continue
            for r in one["levels"]:
                sup = f"{r['supported'] / r['nodes']:.0%} ({r['supported']}/{r['nodes']})"
                keep = f"{r['keep'] / max(r['reappear'], 1):.0%} ({r['keep']}/{r['reappear']})"
                drops = ",".join(map(str, one["seeds"]))
                lines.append(f"| {name} | `{run['set']}` | {shape_name}, {drops} | {r['level']} | {sup} | {keep} |")
    (RESULTS / "names_tune.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="iclr24_tune")
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--sizes", type=int, nargs="*", help="TopicMap(topic_sizes=...): fixed levels, coarsest first")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--set", nargs="*", default=[], help="sibling_names constants to try: NAME=VALUE")
    parser.add_argument("--seeds", type=int, nargs="*", default=[0], help="drops (numpy seeds) to fit or sum over")
    parser.add_argument("--names-out", type=Path, help="write every name of both trees of each drop (JSON)")
    parser.add_argument("--record", metavar="LABEL", help="keep the run in results/names_tune.json and .md")
    parser.add_argument("--cost-record", metavar="LABEL", help="keep the naming cost in results/names_cost.*")
    parser.add_argument("--tiled", type=int, metavar="N", help="name a default fit of N tiled vectors (scaling.py's)")
    parser.add_argument("--work", type=Path, help="with --tiled and --fit: scaling.py's --work (its base)")
    parser.add_argument("--cache-dir", type=Path, help="with --tiled and --fit: scaling.py's --cache-dir")
    args = parser.parse_args()
    if args.tiled:
        if args.fit:
            tiled_inputs(args.tiled, args.work, args.cache_dir)
            return  # timed in a fresh process: run again without --fit
        time_tiled(args.tiled, args.names_out)
        if args.cost_record:
            record_cost(args.cost_record, f"{args.tiled:,} tiled vectors, default levels")
        return
    import icml_topics.stages.sibling_names as sn
    import icml_topics.stages.sibling_shares as ss
    import icml_topics.stages.tree_names as tn

    for item in args.set:
        name, value = item.split("=")
        setattr(next((m for m in (tn, ss) if hasattr(m, name)), sn), name, float(value))
    sizes = tuple(args.sizes) if args.sizes else None
    if args.fit:
        for seed in args.seeds:
            fit_inputs(args.data, sizes, seed=seed)
    rows = measure(args.data, sizes, args.verbose, tuple(args.seeds), args.names_out)
    if args.record:
        record(args.record, args.set, args.data, sizes, args.seeds, rows)
    if args.cost_record:
        shape = "/".join(map(str, sizes)) if sizes else "default levels"
        record_cost(args.cost_record, f"{args.data} {shape}, drops {','.join(map(str, args.seeds))}")


if __name__ == "__main__":
    main()
