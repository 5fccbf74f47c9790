"""Benchmark results as files. ``write_markdown``: any benchmark's results page (and its JSON beside it), the one
writer of ``benchmarks/results/``. For ``run.py``: CSV (one row per size and pipeline), Markdown (tables, ratios,
scaling exponents, targets) and JSON (everything, raw), plus the README's "latest results" section."""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["COLUMNS", "PIPELINES", "markdown", "scaling_exponents", "update_readme", "write_markdown", "write_results"]


def write_markdown(out: Path, lines: Sequence[str], data: Any = None, *, echo: bool = True) -> Path:
    """Write a results page: ``lines`` joined into ``out`` (UTF-8, one newline at the end), ``data`` as JSON
    beside it (``out`` with ``.json``) when given; the folder is made; the page is printed too (``echo``)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(lines).rstrip("\n") + "\n"
    out.write_text(text, encoding="utf-8")
    if data is not None:
        out.with_suffix(".json").write_text(json.dumps(data, indent=1, default=str) + "\n", encoding="utf-8")
    if echo:
        print(text, end="")
    return out


# pipeline key -> label in the tables
PIPELINES = {
    "bertopic": "BERTopic default",
    "ours-cold": "icml_topics, cold cache",
    "ours-warm": "icml_topics, warm cache",
    "bertopic-same-emb": "BERTopic default on icml_topics' embeddings",
    "demo-cold": "icml-topics demo, cold process + empty cache",
    "demo-warm": "icml-topics demo, cold process + warm cache",
}

COLUMNS = [
    "size",
    "n_docs",
    "sample",
    "pipeline",
    "label",
    "status",
    "wall_s",
    "embed_s",
    "docs_per_s",
    "peak_rss_mb",
    "tree_rss_mb",
    "npmi",
    "npmi_words",
    "diversity",
    "outlier_share",
    "unassigned_share",
    "n_topics",
    "n_themes",
    "ari",
    "nmi",
    "topic_ari",
    "topic_nmi",
    "n_labelled",
    "note",
]

MB = 1e6  # decimal megabytes: 3 GB = 3,000 MB
RSS_TARGET_MB = 3000.0
WARM_TARGET_S = 20.0
WALL_RATIO_TARGET = 0.5


# ------------------------------------------------------------------------------------- formatting
def _num(x: Any) -> float | None:
    if x is None or x == "":
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def _fmt(x: Any, digits: int = 1) -> str:
    v = _num(x)
    return "–" if v is None else f"{v:,.{digits}f}"


def _pct(x: Any) -> str:
    v = _num(x)
    return "–" if v is None else f"{100 * v:.1f}%"


def _int(x: Any) -> str:
    v = _num(x)
    return "–" if v is None else f"{int(round(v)):,}"


def _ratio(a: Any, b: Any, digits: int = 2, *, positive: bool = False) -> str:
    """``a / b`` as ``"0.42×"``; "–" when either is missing, ``b`` is 0 or, with ``positive``, either is <= 0
    (a ratio of NPMI values of different signs says nothing)."""
    a, b = _num(a), _num(b)
    if a is None or b is None or b == 0 or (positive and (a <= 0 or b <= 0)):
        return "–"
    return f"{a / b:.{digits}f}×"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str | None = None) -> str:
    align = align or "l" + "r" * (len(header) - 1)
    marks = {"l": ":--", "r": "--:", "c": ":-:"}
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(marks[a] for a in align) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------- numbers
def _find(rows: list[dict], size: str, pipeline: str) -> dict | None:
    for r in rows:
        if r["size"] == size and r["pipeline"] == pipeline and r["status"] == "ok":
            return r
    return None


def _sizes(rows: list[dict]) -> list[str]:
    seen: list[str] = []
    for r in rows:
        if r["pipeline"].startswith("demo"):
            continue
        if r["size"] not in seen:
            seen.append(r["size"])
    return seen


def scaling_exponents(rows: list[dict]) -> dict[str, tuple[float, int]]:
    """Per pipeline: log-log slope of wall time against documents, and the number of sizes used."""
    out = {}
    for key in PIPELINES:
        pts = [
            (r["n_docs"], r["wall_s"])
            for r in rows
            if r["pipeline"] == key and r["status"] == "ok" and _num(r["wall_s"])
        ]
        ns = {n for n, _ in pts}
        if len(ns) >= 2:
            x = np.log([n for n, _ in pts])
            y = np.log([w for _, w in pts])
            out[key] = (float(np.polyfit(x, y, 1)[0]), len(ns))
    return out


def _peak(r: dict | None) -> float | None:
    if r is None:
        return None
    vals = [v for v in (_num(r.get("peak_rss_mb")), _num(r.get("tree_rss_mb"))) if v is not None]
    return max(vals) if vals else None


def targets(rows: list[dict], meta: dict) -> list[tuple[str, str, str]]:
    """(target, measured, verdict) for the issue's acceptance numbers that this run covers."""
    out: list[tuple[str, str, str]] = []
    icml = meta.get("icml_full_size")  # size label whose sample is exactly the ICML file
    if icml:
        bt, cold, warm = _find(rows, icml, "bertopic"), _find(rows, icml, "ours-cold"), _find(rows, icml, "ours-warm")
        if bt and cold:
            r = cold["wall_s"] / bt["wall_s"]
            out.append(
                (
                    f"ICML corpus ({cold['n_docs']:,}), cold cache: wall ≤ {WALL_RATIO_TARGET}× BERTopic default incl. embedding",
                    f"{cold['wall_s']:,.1f} s vs {bt['wall_s']:,.1f} s = {r:.2f}×",
                    "met" if r <= WALL_RATIO_TARGET else "NOT met",
                )
            )
        if warm:
            out.append(
                (
                    f"ICML corpus ({warm['n_docs']:,}), warm cache re-run ≤ {WARM_TARGET_S:.0f} s",
                    f"{warm['wall_s']:,.1f} s",
                    "met" if warm["wall_s"] <= WARM_TARGET_S else "NOT met",
                )
            )
    full = meta.get("all_records_size")  # size label whose sample is every record of the three files
    if full:
        for key in ("ours-cold", "ours-warm"):
            r = _find(rows, full, key)
            if r:
                peak = _peak(r)
                out.append(
                    (
                        f"All {r['n_docs']:,} abstracts, {PIPELINES[key]}: peak RSS ≤ 3 GB",
                        f"{peak:,.0f} MB",
                        "met" if peak <= RSS_TARGET_MB else "NOT met",
                    )
                )
    for key in ("demo-cold", "demo-warm"):
        r = _find(rows, "demo", key)
        if r:
            out.append(
                (
                    f"`icml-topics demo`, {PIPELINES[key].split(', ', 1)[1]}: report the time",
                    f"{r['wall_s']:.1f} s",
                    "reported",
                )
            )
    for size in _sizes(rows):
        cold = _find(rows, size, "ours-cold")
        for base_key in ("bertopic-same-emb", "bertopic"):
            base = _find(rows, size, base_key)
            if not (cold and base):
                continue
            for key, how in (("npmi", "keywords as given"), ("npmi_words", "keywords split into words")):
                a, b = _num(cold.get(key)), _num(base.get(key))
                if a is not None and b is not None:
                    out.append(
                        (
                            f"{cold['n_docs']:,} abstracts: NPMI ({how}) at least that of {PIPELINES[base_key]}",
                            f"{a:.3f} vs {b:.3f}",
                            "met" if a >= b else "NOT met",
                        )
                    )
            ua, ub = _num(cold["unassigned_share"]), _num(base["unassigned_share"])
            if ua is not None and ub is not None:
                out.append(
                    (
                        f"{cold['n_docs']:,} abstracts: far fewer unassigned than {PIPELINES[base_key]}",
                        f"{100 * ua:.1f}% vs {100 * ub:.1f}%",
                        "met" if ua <= 0.5 * ub else "NOT met (not under half)",
                    )
                )
    return out


def _machine_state_line(state: dict) -> str:
    """How icml_topics' once-per-machine state (embedding-path decision, ONNX export) was handled."""
    if state.get("mode") != "warm":
        return (
            "- icml_topics machine state: cold (--machine-state cold): the ONNX export and the embedding-path "
            "guard run inside each cold fit"
        )
    guards = "; ".join(
        f"{g['candidate']} {'passed' if g.get('passed') else 'failed'} (mean cos {g.get('mean_cosine') or float('nan'):.4f}, "
        f"10-NN {g.get('knn_agreement') or float('nan'):.3f}, {g.get('speedup') or float('nan'):.2f}x fp32)"
        for g in state.get("guard", [])
    )
    return (
        f"- icml_topics machine state: warm (--machine-state warm): an untimed warm-up exported the ONNX model and "
        f"chose the embedding path once for this machine in {state.get('seconds')} s (a one-time cost per machine, "
        f"like numba's JIT cache); path **{state.get('precision')}**; guard on 256 texts: {guards}"
    )


def _jit_added(meta: dict) -> str:
    added = {k: v for k, v in (meta.get("jit_files_added") or {}).items() if v}
    if not added:
        return "; no pipeline added numba cache entries" if meta.get("jit_files_added") else ""
    return "; numba cache files added by pipelines: " + ", ".join(f"{k} +{v}" for k, v in added.items())


# --------------------------------------------------------------------------------------- markdown
def markdown(rows: list[dict], meta: dict, *, heading_level: int = 1) -> str:
    h = "#" * heading_level
    m = meta["machine"]
    lines = [
        f"{h} icml_topics vs BERTopic's default pipeline",
        "",
        f"- run: {meta['finished']} ({meta['duration_min']:.1f} min), commit {meta['git']}",
        f"- command: `{meta['command']}`",
        f"- corpus: {meta['corpus_description']}",
        f"- machine: {m.get('cpu')} ({m.get('cpu_flags') or 'no AVX flags read'}), {m.get('usable_cores')} usable of "
        f"{m.get('logical_cores')} logical cores, {m.get('memory_gb')} GB RAM, load average at start "
        f"{', '.join(str(x) for x in m.get('load_average_at_start', []))}",
        f"- torch {m.get('torch')} ({m.get('torch_threads')} threads, CPU capability {m.get('torch_cpu_capability')}, "
        f"oneDNN bf16 {'yes' if m.get('torch_mkldnn_bf16') else 'no'}, CUDA {m.get('cuda') or 'none'}); "
        f"sentence-transformers {m.get('sentence-transformers')}, BERTopic {m.get('bertopic')}, "
        f"umap-learn {m.get('umap-learn')}, hdbscan {m.get('hdbscan')}, numba {m.get('numba')}; Python {m.get('python')}",
        f"- JIT cache: {meta['jit_note']}" + _jit_added(meta),
        _machine_state_line(meta.get("machine_state") or {}),
        "",
        "wall_s: process launch to end of fit (imports, model load, numba JIT included); embed_s: model load + "
        "document embedding; peak RSS: kernel high-water mark of the largest process (tree RSS, sampled, in the CSV); "
        "npmi: top-10 keywords (keyphrases count where the whole phrase occurs), document co-occurrence over the "
        "cleaned sample text; npmi_words: the same with keyphrases split into their first 10 distinct words; "
        "diversity: top 25; "
        "unassigned: BERTopic topic -1, icml_topics no theme; ari/nmi: against the dev labels "
        "(BERTopic topic ids, icml_topics themes; topic_ari: topic ids for both).",
        "",
    ]
    header = [
        "pipeline",
        "wall_s",
        "embed_s",
        "docs/s",
        "peak RSS MB",
        "npmi",
        "npmi_words",
        "diversity",
        "outliers",
        "unassigned",
        "topics",
        "themes",
        "ari",
        "nmi",
        "topic_ari",
        "n_labelled",
    ]
    for size in _sizes(rows):
        members = [r for r in rows if r["size"] == size and not r["pipeline"].startswith("demo")]
        first = members[0]
        lines += [f"{h}# {first['n_docs']:,} abstracts ({first['sample']})", ""]
        body = []
        for r in members:
            if r["status"] != "ok":
                body.append([PIPELINES[r["pipeline"]], f"**{r['status']}**", *["–"] * (len(header) - 2)])
                continue
            body.append(
                [
                    PIPELINES[r["pipeline"]],
                    _fmt(r["wall_s"]),
                    _fmt(r["embed_s"]),
                    _fmt(r["docs_per_s"], 0),
                    _int(r["peak_rss_mb"]),
                    _fmt(r["npmi"], 3),
                    _fmt(r["npmi_words"], 3),
                    _fmt(r["diversity"], 3),
                    _pct(r["outlier_share"]),
                    _pct(r["unassigned_share"]),
                    _int(r["n_topics"]),
                    _int(r["n_themes"]),
                    _fmt(r["ari"], 3),
                    _fmt(r["nmi"], 3),
                    _fmt(r["topic_ari"], 3),
                    _int(r["n_labelled"]),
                ]
            )
        lines += [_table(header, body), ""]

    ratio_rows = []
    for size in _sizes(rows):
        bt, cold, warm = _find(rows, size, "bertopic"), _find(rows, size, "ours-cold"), _find(rows, size, "ours-warm")
        same = _find(rows, size, "bertopic-same-emb")
        if not cold or not (bt or same):
            continue
        g = lambda r, k: r.get(k) if r else None  # noqa: E731
        ratio_rows.append(
            [
                f"{cold['n_docs']:,}",
                _ratio(g(cold, "wall_s"), g(bt, "wall_s")),
                _ratio(g(warm, "wall_s"), g(bt, "wall_s"), 3),
                _ratio(g(cold, "peak_rss_mb"), g(bt, "peak_rss_mb")),
                _ratio(g(cold, "npmi"), g(bt, "npmi"), positive=True),
                _ratio(g(cold, "npmi"), g(same, "npmi"), positive=True),
                _ratio(g(cold, "npmi_words"), g(same, "npmi_words"), positive=True),
                _ratio(g(cold, "diversity"), g(same, "diversity") if same else g(bt, "diversity")),
                _ratio(g(cold, "unassigned_share"), g(bt, "unassigned_share")),
                _ratio(g(cold, "unassigned_share"), g(same, "unassigned_share")),
            ]
        )
    if ratio_rows:
        lines += [
            f"{h}# Ratios: icml_topics / BERTopic default",
            "",
            "Below 1 is better for time, memory and unassigned share; above 1 is better for NPMI and diversity "
            "(an NPMI ratio is shown only when both values are positive; the raw values are in the tables above). "
            '"same emb." compares against BERTopic\'s defaults fitted on the very embeddings icml_topics used.',
            "",
            _table(
                [
                    "abstracts",
                    "wall (cold)",
                    "wall (warm)",
                    "peak RSS (cold)",
                    "NPMI",
                    "NPMI, same emb.",
                    "NPMI words, same emb.",
                    "diversity",
                    "unassigned",
                    "unassigned, same emb.",
                ],
                ratio_rows,
            ),
            "",
        ]

    demo = [r for r in rows if r["pipeline"].startswith("demo")]
    if demo:
        lines += [f"{h}# `icml-topics demo` (bundled 38 abstracts), whole process", ""]
        lines += [
            _table(
                ["run", "wall_s", "peak RSS MB", "status"],
                [[PIPELINES[r["pipeline"]], _fmt(r["wall_s"]), _int(r["peak_rss_mb"]), r["status"]] for r in demo],
            ),
            "",
        ]

    exps = scaling_exponents(rows)
    if exps:
        lines += [f"{h}# Scaling: wall time ∝ N^k (least-squares slope on log-log)", ""]
        lines += [f"- {PIPELINES[k]}: k = {e:.2f} ({n} sizes)" for k, (e, n) in exps.items()]
        lines.append("")

    tg = targets(rows, meta)
    if tg:
        lines += [f"{h}# Targets", "", _table(["target", "measured", "verdict"], [list(t) for t in tg], "llc"), ""]
    failed = [r for r in rows if r["status"] != "ok"]
    if failed:
        lines += [f"{h}# Failures", ""]
        lines += [f"- {r['n_docs']:,} / {PIPELINES[r['pipeline']]}: {r['status']}: {r['note']}" for r in failed]
        lines.append("")
    return "\n".join(lines)


# -------------------------------------------------------------------------------------- writing
def write_results(rows: list[dict], meta: dict, out_dir: Path, raw: dict) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"csv": out_dir / "latest.csv", "md": out_dir / "latest.md", "json": out_dir / "latest.json"}
    tmp = paths["csv"].with_suffix(".csv.tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in COLUMNS})
    tmp.replace(paths["csv"])
    for key, text in (("md", markdown(rows, meta) + "\n"), ("json", json.dumps(raw, indent=1, default=str) + "\n")):
        tmp = paths[key].with_suffix(paths[key].suffix + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(paths[key])
    return paths


START, END = "<!-- latest-results:start -->", "<!-- latest-results:end -->"


def update_readme(readme: Path, rows: list[dict], meta: dict) -> bool:
    """Replace the README's latest-results section (between the two markers) with this run."""
    text = readme.read_text(encoding="utf-8")
    if START not in text or END not in text:
        return False
    body = markdown(rows, meta, heading_level=2)
    body = re.sub(r"\A#+ .*\n", "", body)  # the README's "Latest results" heading stands for the title
    new = f"{START}\n{body.rstrip()}\n{END}"
    readme.write_text(
        re.sub(re.escape(START) + r".*?" + re.escape(END), lambda _: new, text, flags=re.S), encoding="utf-8"
    )
    return True
