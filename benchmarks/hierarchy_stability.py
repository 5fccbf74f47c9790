"""Stability of the hierarchy under the research themes (issue 39): candidate designs side by side.

    python benchmarks/hierarchy_stability.py [--draws 2] [--out benchmarks/results/hierarchy_stability.md]

Inputs (prepared with the library's own embedding path, rows L2-normalised): ``EMB/<name>.npy`` +
``.parquet`` for ICML 2013-2024 (``icml``) and 3,000 ICLR 2024 / 2025 submissions (``iclr24_3000``,
``iclr25_3000``), and each paper's theme from the fit's theme stage (``fitting.assign_themes`` through
``benchmarks/_themes_data.place``), cached as ``EMB/<name>_themes.npy`` (computed when missing; minutes).
``EMB`` is ``benchmarks/_embedded.py``'s folder (``$HIERARCHY_EMB``, else ``benchmarks/results/raw/emb``); the
embeddings are computed there when missing.

``scale_base`` is ``benchmarks/scaling.py``'s base (``$SCALE_WORK``/base.npy + .parquet: 20,842 real ICML, NeurIPS
and ICLR abstracts, the default fit's stored vectors): themes of up to a few thousand papers, where a small
consensus sample (``max_theme_size``) clusters the coarser levels from a sample and builds the finer ones inside
each placed node (the path every theme of a large corpus takes).

``iclr_compare`` is every ICLR 2024 and 2025 submission (18,373), the corpus of ``icml-topics compare --by year``.

For each candidate (``icml_topics.stages.hierarchy.HierarchySettings``, or today's default for the corpus's size:
``FitConfig.hierarchy_settings(n)``, whose depth follows the corpus; ``t.``: that default as a fit's tree stage
builds it, ``build_tree`` without names: the papers without a theme as a group of their own, and the subjects new
in the latest year made nodes of their own by ``stages/new_subjects.py``) and corpus: nodes and median size per
level, papers without a node, the median node's ``stability`` and the share under 0.5, fit seconds, ARI between
``random_state`` 0 and 1, ARI between the fit on the embeddings and on copies perturbed to mean cosine 0.997
(``hierarchy.perturb``, ``--draws`` draws, themes held fixed), both over all papers and as the size-weighted mean
ARI inside each theme, and ARI between the fit on all papers and on a random 90% of them (``--draws`` draws, on
the papers kept; themes held fixed). For the ``--view`` design (default ``t.``) also: ARI when the themes are
re-assigned on the perturbed embeddings (one draw,
what a user sees), how often each node reappears (Jaccard >= 0.5) against its ``stability``, and the 10
nodes with the strongest growth from ICLR 2024 to 2025 (two-proportion z) on the joint hierarchy, and
whether each reappears under the perturbation. The machine may be shared: timings say so.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import adjusted_rand_score

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from _embedded import FOLDER, prepared  # noqa: E402

from icml_topics.fit_config import LEVEL_NAMES, FitConfig  # noqa: E402
from icml_topics.stages.hierarchy import (  # noqa: E402
    Hierarchy,
    HierarchySettings,
    fit_hierarchy,
    fit_levels,
    perturb,
)
from icml_topics.stages.new_subject_nodes import new_subject_levels  # noqa: E402
from icml_topics.stages.tree import NO_THEME  # noqa: E402

EMB = FOLDER
SCALE_WORK = Path(os.environ.get("SCALE_WORK") or "/tmp/icml-topics-scaling")


def default(n: int, **changes: object) -> HierarchySettings:
    """Today's default hierarchy for ``n`` papers (``FitConfig.hierarchy_settings``), with ``changes``."""
    return dataclasses.replace(FitConfig.from_params({}).hierarchy_settings(n), **changes)


CANDIDATES: dict[str, HierarchySettings | Callable[[int], HierarchySettings]] = {
    "a. plain Ward": HierarchySettings(runs=1, gap_cut=False),
    "b. Ward on kNN-smoothed (k=10)": HierarchySettings(runs=1, smooth=10, gap_cut=False),
    "c1. consensus 16 runs, Ward final": HierarchySettings(runs=16, final_linkage="ward", gap_cut=False),
    "c2. consensus 16 runs, average final": HierarchySettings(runs=16, final_linkage="average", gap_cut=False),
    "d1. c1 + k-means refined topics": HierarchySettings(runs=16, final_linkage="ward", gap_cut=False, refine=20),
    "e1. c1 + topics cut at the widest gap": HierarchySettings(runs=16, final_linkage="ward", gap_cut=True),
    "e2. c2 + topics cut at the widest gap": HierarchySettings(),
    "f. default: e2, depth follows the corpus": default,
    "f6000. f, consensus sample 6,000 (before issue 51's bound)": lambda n: default(n, max_theme_size=6000),
    "f1000. f, consensus sample 1,000": lambda n: default(n, max_theme_size=1000),
    "f500. f, consensus sample 500": lambda n: default(n, max_theme_size=500),
    "f250. f, consensus sample 250": lambda n: default(n, max_theme_size=250),
    "t. the tree a fit builds: f + new-subject nodes, unthemed papers grouped": default,
}
#: candidates fitted as ``stages/tree.py``'s ``build_tree`` does (``fit_levels`` with the papers without a theme
#: as a group of their own, then ``new_subject_levels`` on each paper's year): the tree a default fit shows
TREE = {"t. the tree a fit builds: f + new-subject nodes, unthemed papers grouped"}
RECOMMENDED = "t. the tree a fit builds: f + new-subject nodes, unthemed papers grouped"
SUBSAMPLE = 0.9


def settings_for(label: str, n: int) -> HierarchySettings:
    """Candidate ``label``'s settings for ``n`` papers."""
    candidate = CANDIDATES[label]
    return candidate if isinstance(candidate, HierarchySettings) else candidate(n)


def themes_of(name: str, emb: np.ndarray, frame: pd.DataFrame, suffix: str = "") -> np.ndarray:
    """Each paper's theme from the fit's theme stage, cached in ``EMB/<name><suffix>_themes.npy``."""
    path = EMB / f"{name}{suffix}_themes.npy"
    if not path.is_file():
        from _themes_data import Corpus, place

        from icml_topics.themes.assign import ThemeSettings
        from icml_topics.themes.taxonomy import Taxonomy

        placed = place(
            Corpus(name, frame[["id", "year", "title", "abstract"]].copy(), emb), Taxonomy.default(), ThemeSettings()
        )
        EMB.mkdir(parents=True, exist_ok=True)
        np.save(path, placed["theme"].fillna("").to_numpy().astype(str))
    return np.load(path, allow_pickle=True)


def years_of(frame: pd.DataFrame) -> np.ndarray | None:
    """Each paper's year as a float (what ``fit_tree.periods`` passes the tree), or None without a year."""
    if "year" not in frame.columns:
        return None
    return pd.to_numeric(frame["year"], errors="coerce").to_numpy(dtype=float)


def load(name: str) -> tuple[np.ndarray, pd.DataFrame, np.ndarray]:
    """Embeddings, rows and themes of one prepared corpus (``+`` joins corpora)."""
    if name == "scale_base":
        emb, frame = np.load(SCALE_WORK / "base.npy").astype(np.float32), pd.read_parquet(SCALE_WORK / "base.parquet")
        return emb, frame, themes_of(name, emb, frame)
    parts = name.split("+")
    for part in parts:
        prepared(part)
    emb = np.concatenate([np.load(EMB / f"{p}.npy") for p in parts]).astype(np.float32)
    frame = pd.concat([pd.read_parquet(EMB / f"{p}.parquet") for p in parts], ignore_index=True)
    return emb, frame, themes_of("_".join(parts), emb, frame)


def within_theme_ari(themes: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Size-weighted mean ARI inside each theme (themes fixed, so it ignores the theme split itself)."""
    total, weight = 0.0, 0
    for t in np.unique(themes[themes != ""]):
        rows = themes == t
        total += rows.sum() * adjusted_rand_score(a[rows], b[rows])
        weight += rows.sum()
    return total / weight


def reappears(a: np.ndarray, b: np.ndarray) -> dict[int, float]:
    """For each node of ``a`` (>= 0), the best Jaccard with any node of ``b``."""
    out = {}
    for node in np.unique(a[a >= 0]):
        rows = a == node
        ids, both = np.unique(b[rows], return_counts=True)
        sizes = np.array([(b == i).sum() for i in ids])
        out[int(node)] = float((both / (rows.sum() + sizes - both)).max())
    return out


def tree_fit(emb: np.ndarray, themes: np.ndarray, settings: HierarchySettings, years: np.ndarray | None) -> Hierarchy:
    """The levels a default fit's tree stage builds (``build_tree`` without names): ``fit_levels`` with the papers
    without a theme as one group, then every subject new in the latest year made a node (``new_subject_levels``)."""
    groups = [str(t) if t else NO_THEME for t in themes]
    levels = fit_levels(emb, groups, settings)
    periods = None if years is None else [None if np.isnan(v) else float(v) for v in years]
    labels, parents, stability = new_subject_levels(emb, groups, periods, *levels, settings)
    n_levels = labels.shape[1]
    sizes = [
        {int(k): int(v) for k, v in zip(*np.unique(labels[labels[:, lv] >= 0, lv], return_counts=True), strict=True)}
        for lv in range(n_levels)
    ]
    empty = np.full(labels.shape, np.nan)
    return Hierarchy(settings.levels[:n_levels], labels, parents, sizes, stability, empty, empty)


def timed_fit(
    emb: np.ndarray,
    themes: np.ndarray,
    settings: HierarchySettings,
    seed: int = 0,
    years: np.ndarray | None = None,
    tree: bool = False,
) -> tuple[Hierarchy, float]:
    start = time.perf_counter()
    h = tree_fit(emb, themes, settings, years) if tree else fit_hierarchy(emb, themes, settings, random_state=seed)
    return h, time.perf_counter() - start


def _level_ari(h: Hierarchy, other: Hierarchy, rows: np.ndarray, other_rows: np.ndarray | None = None) -> dict:
    """ARI per level name of ``h`` (on ``rows``) against ``other``'s level of the same name (on ``other_rows``,
    default ``rows``); NaN where ``other`` has no such level."""
    other_rows = rows if other_rows is None else other_rows
    out = {}
    for lv, level in enumerate(h.levels):
        if level in other.levels:
            out[level] = adjusted_rand_score(h.labels[rows, lv], other.labels[other_rows, other.levels.index(level)])
        else:
            out[level] = float("nan")
    return out


def evaluate(name: str, label: str, data: tuple, draws: int) -> tuple[dict, dict]:
    """Shape, per-node stability, seed, perturbation and 90%-subsample ARI of one candidate on one corpus; the
    row and the fits (``base``, ``pert0``) for the per-node views."""
    emb, frame, themes = data
    tree = label in TREE
    years = years_of(frame) if tree else None
    settings = settings_for(label, len(emb))
    h, seconds = timed_fit(emb, themes, settings, years=years, tree=tree)
    h1, _ = timed_fit(emb, themes, settings, seed=1, years=years, tree=tree)
    placed = h.labels[:, 0] >= 0
    row = {"corpus": name, "candidate": label, "fit_s": seconds}
    for lv, level in enumerate(h.levels):
        col = h.labels[:, lv]
        stab = np.array([v for v in h.stability[lv].values() if not np.isnan(v)])
        row[f"{level}_nodes"] = len(h.sizes[lv])
        row[f"{level}_median"] = float(np.median(list(h.sizes[lv].values())))
        row[f"{level}_unplaced_%"] = 100 * float((col[themes != ""] < 0).mean())
        row[f"{level}_stability_median"] = float(np.median(stab)) if len(stab) else float("nan")
        row[f"{level}_stability<0.5_%"] = 100 * float((stab < 0.5).mean()) if len(stab) else float("nan")
        row[f"{level}_seed_ari"] = adjusted_rand_score(col, h1.labels[:, lv])
    cosines = []
    pert = {lv: [] for lv in h.levels}
    within = {lv: [] for lv in h.levels}
    sub = {lv: [] for lv in h.levels}
    fits = {"base": h}
    for d in range(draws):
        pe = perturb(emb, 0.997, np.random.default_rng(1000 + d)).astype(np.float32)
        cosines.append(float((pe * emb).sum(1).mean()))
        hp, _ = timed_fit(pe, themes, settings, years=years, tree=tree)
        fits.setdefault("pert0", hp)
        for level, ari in _level_ari(h, hp, placed).items():
            pert[level].append(ari)
            lv = h.levels.index(level)
            within[level].append(within_theme_ari(themes, h.labels[:, lv], hp.labels[:, lv]))
        keep = np.sort(np.random.default_rng(2000 + d).choice(len(emb), round(SUBSAMPLE * len(emb)), replace=False))
        s_settings = settings_for(label, len(keep))
        hs, _ = timed_fit(emb[keep], themes[keep], s_settings, years=None if years is None else years[keep], tree=tree)
        kept_placed = placed[keep]
        for level, ari in _level_ari(h, hs, keep[kept_placed], np.flatnonzero(kept_placed)).items():
            sub[level].append(ari)
    for level in h.levels:
        row[f"{level}_pert_ari"] = float(np.mean(pert[level]))
        row[f"{level}_pert_ari_min"] = float(np.min(pert[level]))
        row[f"{level}_within_theme_pert_ari"] = float(np.mean(within[level]))
        row[f"{level}_sub90_ari"] = float(np.mean(sub[level]))
        row[f"{level}_sub90_ari_min"] = float(np.min(sub[level]))
    row["mean_cosine"] = float(np.mean(cosines))
    print(row, flush=True)
    return row, fits


def user_view(name: str, label: str, data: tuple, base: Hierarchy) -> dict:
    """ARI when the perturbed run also re-assigns the themes (draw 0), over every paper, and the themes' ARI
    (``base``: candidate ``label``'s fit on the embeddings)."""
    emb, frame, themes = data
    tree = label in TREE
    years = years_of(frame) if tree else None
    settings = settings_for(label, len(emb))
    pe = perturb(emb, 0.997, np.random.default_rng(1000)).astype(np.float32)
    themes_p = themes_of(name, pe, frame, suffix="_pert1000")
    hp, _ = timed_fit(pe, themes_p, settings, years=years, tree=tree)
    out = {
        "theme_ari": adjusted_rand_score(themes, themes_p),
        "theme_changed_%": 100 * float((themes != themes_p).mean()),
    }
    for level, ari in _level_ari(base, hp, np.arange(len(emb))).items():
        out[f"{level}_ari"] = ari
    return out


def node_stability(h: Hierarchy, hp: Hierarchy) -> dict:
    """How each node's ``stability`` (support among the consensus's own runs; a new-subject node's: among its
    reruns) predicts whether it reappears (Jaccard >= 0.5) in the fit ``hp`` on perturbed embeddings (draw 0,
    themes fixed)."""
    out = {}
    for lv, level in enumerate(h.levels):
        if level not in hp.levels:
            continue
        best = reappears(h.labels[:, lv], hp.labels[:, hp.levels.index(level)])
        stab = np.array([h.stability[lv][n] for n in best])
        back = np.array([best[n] >= 0.5 for n in best])
        ok = ~np.isnan(stab)
        out[level] = {
            "reappear_%": 100 * float(back.mean()),
            "reappear_%_stability>=0.8": 100 * float(back[ok & (stab >= 0.8)].mean()),
            "reappear_%_stability<0.5": 100 * float(back[ok & (stab < 0.5)].mean())
            if (ok & (stab < 0.5)).any()
            else float("nan"),
            "nodes_stability>=0.8_%": 100 * float((stab[ok] >= 0.8).mean()),
        }
    return out


def growth(settings: HierarchySettings | Callable[[int], HierarchySettings]) -> dict:
    """The 10 nodes per level with the strongest growth from ICLR 2024 to 2025 on the joint hierarchy
    (two-proportion z on each year's share), among all nodes and among nodes with stability >= 0.8 (a
    node that does not reappear is never a headline), and whether each reappears (Jaccard >= 0.5) under another
    seed and under the perturbation (themes fixed)."""
    data = load("iclr24_3000+iclr25_3000")
    emb, frame, themes = data
    settings = settings if isinstance(settings, HierarchySettings) else settings(len(emb))
    year = frame["year"].to_numpy()
    h, seconds = timed_fit(emb, themes, settings)
    h1, _ = timed_fit(emb, themes, settings, seed=1)
    hp, _ = timed_fit(perturb(emb, 0.997, np.random.default_rng(1000)).astype(np.float32), themes, settings)
    n0, n1 = (year == 2024).sum(), (year == 2025).sum()
    out = {"fit_s": seconds}
    for lv, level in enumerate(h.levels):
        col = h.labels[:, lv]
        seed_back, pert_back = reappears(col, h1.labels[:, lv]), reappears(col, hp.labels[:, lv])
        rows = []
        for node in np.unique(col[col >= 0]):
            a, b = ((col == node) & (year == 2024)).sum(), ((col == node) & (year == 2025)).sum()
            p = (a + b) / (n0 + n1)
            z = (b / n1 - a / n0) / np.sqrt(p * (1 - p) * (1 / n0 + 1 / n1))
            rows.append((z, int(node), int(a), int(b), h.stability[lv][node], seed_back[node], pert_back[node]))
        for key, pool in ((level, rows), (f"{level} (stability >= 0.8 only)", [r for r in rows if r[4] >= 0.8])):
            top = sorted(pool, reverse=True)[:10]
            out[key] = {
                "top": top,
                "seed_reappear": sum(r[5] >= 0.5 for r in top),
                "pert_reappear": sum(r[6] >= 0.5 for r in top),
                "titles": {r[1]: frame.loc[col == r[1], "title"].head(3).tolist() for r in top},
            }
    return out


BASELINE = """**Baseline, not re-run here** (a full fit per seed is minutes on this shared machine): the current
EVoC tree (`stages/tree.py`), as measured in issue 39 on main 00bcc58: ICLR 2024-2026 (9,000 papers)
`--random-state 42` vs `1` tree levels ARI 0.40 / 0.40 / 0.61 / 0.75 (finest to top); embeddings perturbed to
mean cosine 0.997: 0.34 / 0.42 / 0.47; 38% of ICML 2013-2024 papers without a finest-level node (18% at the
next level). For scale, the issue's plain Ward inside each theme on 3,000 ICLR papers: 0.87 / 0.76 / 0.69
at about 120 / 40 / 15 papers a node (row a. below is the same design at 90 / 24)."""


def _fmt(v: object) -> str:
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def markdown(rows: list[dict], extra: dict, header: dict) -> str:
    levels = [lv for lv in LEVEL_NAMES if any(f"{lv}_nodes" in r for r in rows)]
    lines = ["# Hierarchy under the themes: stability of candidate designs (issue 39)", ""]
    lines += [f"- {k}: {v}" for k, v in header.items()] + ["", BASELINE, ""]
    cols = (
        ["corpus", "candidate", "fit_s"]
        + [
            f"{lv}_{m}"
            for lv in levels
            for m in (
                "nodes",
                "median",
                "unplaced_%",
                "stability_median",
                "stability<0.5_%",
                "seed_ari",
                "pert_ari",
                "pert_ari_min",
                "within_theme_pert_ari",
                "sub90_ari",
                "sub90_ari_min",
            )
        ]
        + ["mean_cosine"]
    )
    lines += ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(_fmt(r.get(c, "")) for c in cols) + " |" for r in rows]
    lines += ["", f"## {extra.get('view', RECOMMENDED)}: what a user sees, and per-node stability", ""]
    for name, view in extra.get("user_view", {}).items():
        lines.append(
            f"- {name}, themes re-assigned on the perturbed embeddings (draw 0): "
            + ", ".join(f"{k} {_fmt(v)}" for k, v in view.items())
        )
    for name, stab in extra.get("node_stability", {}).items():
        for level, d in stab.items():
            lines.append(f"- {name} {level}: " + ", ".join(f"{k} {_fmt(v)}" for k, v in d.items()))
    g = extra.get("growth")
    if g:
        lines += [
            "",
            f"## Strongest growth ICLR 2024 -> 2025 (joint hierarchy of 6,000 papers, fit {g['fit_s']:.1f} s)",
            "",
        ]
        for level in [k for k in g if k != "fit_s"]:
            d = g[level]
            lines += [
                f"**{level}**: {d['seed_reappear']}/10 reappear under another seed, "
                f"{d['pert_reappear']}/10 under the perturbation (Jaccard >= 0.5)",
                "",
            ]
            lines += [
                "| z | node | 2024 | 2025 | stability | Jaccard seed | Jaccard perturbed | first titles |",
                "|---|---|---|---|---|---|---|---|",
            ]
            for z, node, a, b, s, js, jp in d["top"]:
                titles = "; ".join(t[:60] for t in d["titles"][node])
                lines.append(f"| {z:.1f} | {node} | {a} | {b} | {s:.2f} | {js:.2f} | {jp:.2f} | {titles} |")
            lines.append("")
    return "\n".join(lines) + "\n"


def main() -> None:
    import argparse

    from _machine import cpu_model

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draws", type=int, default=2)
    parser.add_argument("--corpora", nargs="+", default=["icml", "iclr24_3000"])
    parser.add_argument("--candidates", nargs="+", default=list(CANDIDATES))
    parser.add_argument("--no-growth", action="store_true")
    parser.add_argument(
        "--view", default=RECOMMENDED, help="the candidate whose user view and per-node reappearance are shown"
    )
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "hierarchy_stability.md")
    args = parser.parse_args()
    header = {
        "command": "python " + " ".join(["benchmarks/hierarchy_stability.py", *sys.argv[1:]]),
        "machine": cpu_model(),
        "load average at start": " ".join(f"{x:.1f}" for x in os.getloadavg())
        + f" on {os.cpu_count()} CPUs (timings under load)",
        "settings": f"a-e2: sizes {HierarchySettings().sizes} papers a node (topic, subtopic), the issue-39 "
        "comparison; f: today's default for the corpus's size (`FitConfig.hierarchy_settings(n)`: finest nodes "
        "of 24 papers, as many levels as the median paper's theme needs to branch at most 8 ways, levels that "
        "repeat the one above dropped), f<N>: f with a consensus sample of N rows; t: f as a fit's tree stage builds "
        "it (papers without a theme as one group, subjects new in the latest year as nodes of their own); "
        f"perturbation and {SUBSAMPLE:.0%}-subsample draws {args.draws} each (a subsample's fit uses the default "
        "for its own size; ARI on the papers it keeps); stability_median: the median node's `stability` (share "
        "of the consensus's perturbed runs it reappears in)",
    }
    rows, extra = [], {"user_view": {}, "node_stability": {}, "view": args.view}
    for name in args.corpora:
        data = load(name)
        for label in args.candidates:
            row, fits = evaluate(name, label, data, args.draws)
            rows.append(row)
            if label == args.view:
                extra["user_view"][name] = user_view(name, label, data, fits["base"])
                extra["node_stability"][name] = node_stability(fits["base"], fits["pert0"])
                print(extra["user_view"][name], extra["node_stability"][name], flush=True)
    if not args.no_growth:
        extra["growth"] = growth(CANDIDATES[RECOMMENDED])
    args.out.write_text(markdown(rows, extra, header))
    print(args.out.read_text())


if __name__ == "__main__":
    main()
