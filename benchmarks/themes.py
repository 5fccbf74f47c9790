"""Are the research themes right? Hand labels (tune and held-out halves) and papers whose title names a theme.

Writes ``benchmarks/results/themes.md`` and ``themes.json``:

* **hand labels** (``icml_topics/data/theme_labels.csv``): accuracy of the primary theme, accuracy of
  "primary or secondary" (the paper's theme is its labelled primary or secondary theme), per-theme
  precision and recall and the most frequent mistakes, on the held-out half (never used to choose a
  weight or train the head) and, separately, on the tune half; with and without the supervised head;
* **second reader**: agreement of an independent second reading of the batch-1 held-out papers
  (``theme_labels_second_reader.csv``) with the labels, next to the rule's;
* **calibration**: mean ``theme_score`` against accuracy in score bins, on the held-out half;
* **cross-fitted heads**: almost every shared paper is a tune (training) paper, so five heads are also
  trained, each without one fold of the tune papers (SHA-256 of the id mod 5), and every paper is placed
  by the head that never saw it: accuracy on the tune papers and title shares as for unseen papers
  (about ten minutes on 2 cores);
* **title patterns**: among ICML 2013-2024 (and NeurIPS 1987-2018) papers whose *title* plainly names
  an area (regular expressions below), the share placed in that theme first, and first or second (shipped
  head and cross-fitted heads), next to the share whose hand labels name that theme.
  With ``--baseline documents.csv`` (a ``documents.csv`` of another version, e.g. main's) the same
  shares are computed for it, side by side.

Each corpus is placed on its own with the theme rule exactly as ``TopicMap.fit`` runs it (document
themes do not depend on the clustering). Embeddings come from the embedding cache.

    ICML_TOPICS_CACHE_DIR=... python benchmarks/themes.py [--baseline main/documents.csv]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _machine import machine_line
from _themes_data import accuracy, load_corpus, place

RESULTS = Path(__file__).resolve().parent / "results"

# Titles that plainly name a theme (case-insensitive). A title can match several.
TITLE_PATTERNS = {
    "Diffusion & flow-based generative models": (
        r"diffusion model|diffusion probabilistic|denoising diffusion|score[- ]based (generative|diffusion|model)"
        r"|score matching|flow matching|rectified flow|consistency model|latent diffusion"
    ),
    "Graph learning": (
        r"graph neural|\bgnns?\b|message[- ]passing (neural|network|graph)|graph convolutional|graph attention network"
        r"|graph transformer|knowledge graph|link prediction|node classification"
    ),
    "Reinforcement learning": (
        r"reinforcement learning|\brl\b|q-learning|policy gradient|actor[- ]critic|markov decision process|\bmdps?\b"
        r"|imitation learning"
    ),
    "Safety, alignment & security": (
        r"adversarial (attack|example|robust|training|perturbation)|jailbreak|backdoor|data poisoning|poisoning attack"
        r"|red[- ]teaming|membership inference|differential(ly)? priva"
    ),
    "Time series": r"time[- ]series|forecasting",
    "Federated & distributed learning": r"federated",
    "Causality": r"causal",
    "Fairness": r"\bfair(ness)?\b",
    "Bandits & online learning": r"\bbandits?\b",
    "Large language models & reasoning": r"large language model|\bllms?\b",
}
HEADLINE = list(TITLE_PATTERNS)[:5]  # the "done when" patterns
# Reported beside them: the first version's graph pattern, whose bare "message passing" also names approximate
# message passing, max-product and Stein variational message passing (inference algorithms, not GNNs).
EXTRA_PATTERNS = {
    "Graph learning, any 'message passing'": (
        "Graph learning",
        r"graph neural|\bgnns?\b|message[- ]passing|graph convolutional|graph attention network|graph transformer"
        r"|knowledge graph|link prediction|node classification",
    ),
}


def _title_shares(frame: pd.DataFrame, labels: pd.DataFrame | None = None) -> dict:
    """Per title pattern: how many titles match, the share placed in the theme first and first-or-second,
    and (with ``labels``) the share of labelled matches whose hand label has the theme as primary or secondary."""
    out = {}
    title = frame["title"].fillna("").str.lower()
    patterns = {t: (t, p) for t, p in TITLE_PATTERNS.items()} | EXTRA_PATTERNS
    for name, (theme, pattern) in patterns.items():
        rx = re.compile(pattern)
        hit = title.map(lambda t, rx=rx: rx.search(t) is not None).astype(bool)
        sub = frame[hit]
        first = sub["theme"] == theme
        has_second = "theme_2" in frame.columns  # versions before theme_2 have no runner-up
        either = first | (sub["theme_2"] == theme) if has_second else first
        out[name] = {
            "n": len(sub),
            "first": float(first.mean()) if len(sub) else None,
            "first_or_second": float(either.mean()) if len(sub) and has_second else None,
        }
        if labels is not None:
            lab = sub[["id"]].merge(labels, on="id")
            named = (lab["theme"] == theme) | (lab["second_theme"].fillna("\0") == theme)
            out[name]["labels_first_or_second"] = float(named.mean()) if len(lab) else None
    return out


def _label_metrics(placed: pd.DataFrame, labels: pd.DataFrame) -> dict:
    m = placed.merge(labels, on="id", suffixes=("", "_label"))
    primary = m["theme"] == m["theme_label"]
    either = primary | (m["theme"] == m["second_theme"].fillna("\0"))
    per_theme = []
    for theme in sorted(set(m["theme_label"]) | set(m["theme"]) - {""}):
        tp = int(((m["theme"] == theme) & primary).sum())
        predicted, actual = int((m["theme"] == theme).sum()), int((m["theme_label"] == theme).sum())
        per_theme.append(
            {
                "theme": theme,
                "labelled": actual,
                "predicted": predicted,
                "precision": tp / predicted if predicted else None,
                "recall": tp / actual if actual else None,
            }
        )

    def top_mistakes(wrong: pd.DataFrame) -> list[dict]:
        counts = wrong.groupby(["theme_label", "theme"]).size().sort_values(ascending=False, kind="stable").head(15)
        return [{"label": a, "placed": b, "count": int(c)} for (a, b), c in counts.items()]

    by_source = {}
    for source, g in m.groupby(m["id"].str.extract(r"^(icml2026|icml|neurips)")[0]):
        p = g["theme"] == g["theme_label"]
        by_source[source] = {
            "n": len(g),
            "primary": float(p.mean()),
            "primary_or_secondary": float((p | (g["theme"] == g["second_theme"].fillna("\0"))).mean()),
        }
    return {
        "n": len(m),
        "primary": float(primary.mean()),
        "primary_or_secondary": float(either.mean()),
        "by_source": by_source,
        "per_theme": per_theme,
        "mistakes": top_mistakes(m[~either]),
        "primary_mistakes": top_mistakes(m[~primary]),
    }


def _cross_fitted(corpora: dict, taxonomy, precision: str) -> pd.DataFrame:
    """Every paper placed by a head that never saw it: ``train_theme_head.cross_fitted_heads`` trains one
    head per fold of the tune papers, and each paper is placed with the head of its own fold. Almost every
    ICML 2013-2024 paper is a tune (training) paper, so this is the honest reading of title shares and of
    accuracy on the tune papers."""
    from train_theme_head import cross_fitted_heads, fold_of, tune_evidence

    from icml_topics.themes.assign import ThemeSettings

    heads = cross_fitted_heads(tune_evidence(precision))
    parts = []
    for name, corpus in corpora.items():
        fold = fold_of(corpus.frame["id"], len(heads))
        by_head = [place(corpus, taxonomy, ThemeSettings(), head=h) for h in heads]
        parts.append(pd.concat([p[fold == k] for k, p in enumerate(by_head)]).sort_index().assign(corpus=name))
    return pd.concat(parts, ignore_index=True)


def _groups(labels: pd.DataFrame) -> dict[str, pd.DataFrame]:
    held = labels[labels["split"] == "heldout"]
    return {
        "heldout": held,
        "heldout, batch 1": held[held["batch"] == "1"],
        "heldout, batch 2": held[held["batch"] == "2"],
        "tune": labels[labels["split"] == "tune"],
    }


def _second_reader(placed: pd.DataFrame, labels: pd.DataFrame) -> dict:
    """Reader 2 against the labels, and the rule against each, on the papers reader 2 read."""
    reader = pd.read_csv(
        Path(__file__).resolve().parents[1] / "icml_topics" / "data" / "theme_labels_second_reader.csv",
        dtype=str,
        keep_default_na=False,
    )
    m = labels.merge(reader, on="id", suffixes=("", "_r2")).merge(
        placed[["id", "theme"]].rename(columns={"theme": "rule"})
    )

    def agree(a, b, b2):
        return {"primary": float((a == b).mean()), "primary_or_secondary": float(((a == b) | (a == b2)).mean())}

    return {
        "n": len(m),
        "reader 2 vs labels": agree(m["theme_r2"], m["theme"], m["second_theme"].fillna("\0")),
        "rule vs labels": agree(m["rule"], m["theme"], m["second_theme"].fillna("\0")),
        "rule vs reader 2": agree(m["rule"], m["theme_r2"], m["second_theme_r2"].replace("", "\0")),
    }


def _calibration(placed: pd.DataFrame, labels: pd.DataFrame) -> dict:
    """theme_score against accuracy of the primary theme, in score bins (and the expected calibration error)."""
    m = placed.merge(labels, on="id", suffixes=("", "_label"))
    m = m[m["theme"] != ""]
    hit = (m["theme"] == m["theme_label"]).astype(float)
    bins = pd.cut(m["theme_score"], [0, 0.5, 0.7, 0.9, 0.99, 1.0], include_lowest=True)
    rows = [
        {
            "bin": str(b),
            "n": len(g),
            "mean_score": float(g["theme_score"].mean()),
            "accuracy": float(hit[g.index].mean()),
        }
        for b, g in m.groupby(bins, observed=True)
    ]
    ece = sum(r["n"] * abs(r["mean_score"] - r["accuracy"]) for r in rows) / max(1, len(m))
    return {
        "bins": rows,
        "ece": float(ece),
        "mean_score": float(m["theme_score"].mean()),
        "accuracy": float(hit.mean()),
    }


def _fmt(x) -> str:
    return "–" if x is None else f"{x:.2f}"


def _markdown(res: dict) -> str:
    lines = [
        "# Research themes: hand labels and title patterns",
        "",
        f"Command: `{res['command']}`. Embedding path: {res.get('precision', 'fp32')}. "
        f"Machine load during the run: {res['load']}.",
        "",
        "## Hand labels",
        "",
        (
            "Primary = the paper's theme is its labelled primary theme; primary-or-secondary = it is the labelled "
            "primary or secondary theme. The supervised head was trained, and the settings' weights chosen, on "
            "the tune papers only (`benchmarks/train_theme_head.py`, `benchmarks/tune_themes.py`); the held-out "
            "papers were never read by either. Batch 1: the first 520 labels; batch 2: 1,200 papers added later, "
            "halved the same way; batches 3-6: 11,983 training papers, all tune."
        ),
        "",
        "Cross-fitted = each paper placed by one of five heads trained without the papers of its fold "
        "(SHA-256 of the id mod 5), so the tune papers are read as unseen papers too.",
        "",
        "| papers | n | primary (head) | primary-or-secondary (head) | primary (no head) "
        "| primary-or-secondary (no head) | primary (cross-fitted) | primary-or-secondary (cross-fitted) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for group, r in res["accuracy"]["head"].items():
        b, c = res["accuracy"]["no head"][group], res["accuracy"]["cross-fitted head"][group]
        lines.append(
            f"| {group} | {r['n']} | {r['primary']:.3f} | {r['primary_or_secondary']:.3f} | {b['primary']:.3f} "
            f"| {b['primary_or_secondary']:.3f} | {c['primary']:.3f} | {c['primary_or_secondary']:.3f} |"
        )
    sr = res["second_reader"]
    lines += [
        "",
        f"### A second reader (batch-1 held-out papers, {sr['n']} papers)",
        "",
        "An independent reader labelled these papers again from title and abstract, with the same theme "
        "descriptions and rules, without seeing the labels or any model output.",
        "",
        "| comparison | primary | first reader's choice among the other's primary-or-secondary |",
        "|---|---:|---:|",
    ]
    lines += [f"| {k} | {v['primary']:.3f} | {v['primary_or_secondary']:.3f} |" for k, v in sr.items() if k != "n"]
    cal = res["calibration"]
    lines += [
        "",
        f"### Calibration of theme_score (held-out; expected calibration error {cal['ece']:.3f})",
        "",
        "| theme_score | papers | mean score | accuracy (primary) |",
        "|---|---:|---:|---:|",
    ]
    lines += [f"| {b['bin']} | {b['n']} | {b['mean_score']:.3f} | {b['accuracy']:.3f} |" for b in cal["bins"]]
    lines += [
        "",
        "By source (held-out half):",
        "",
        "| source | papers | primary | primary-or-secondary |",
        "|---|---:|---:|---:|",
    ]
    for source, r in res["labels"]["heldout"]["by_source"].items():
        lines.append(f"| {source} | {r['n']} | {r['primary']:.3f} | {r['primary_or_secondary']:.3f} |")
    lines += [
        "",
        "### Most frequent mistakes (held-out half; neither label matches)",
        "",
        "| labelled | placed in | papers |",
        "|---|---|---:|",
    ]
    lines += [f"| {m['label']} | {m['placed']} | {m['count']} |" for m in res["labels"]["heldout"]["mistakes"]]
    lines += [
        "",
        "### Most frequent mistakes of the primary theme (held-out half; placed theme is not the labelled primary)",
        "",
        "| labelled primary | placed in | papers |",
        "|---|---|---:|",
    ]
    lines += [
        f"| {m['label']} | {m['placed']} | {m['count']} |" for m in res["labels"]["heldout"].get("primary_mistakes", [])
    ]
    lines += [
        "",
        "### Per-theme precision and recall of the primary theme (held-out half)",
        "",
        "| theme | labelled | placed | precision | recall |",
        "|---|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {r['theme']} | {r['labelled']} | {r['predicted']} | {_fmt(r['precision'])} | {_fmt(r['recall'])} |"
        for r in res["labels"]["heldout"]["per_theme"]
    ]
    if res.get("baseline_titles"):
        lines += [
            "",
            "Before = the `--baseline` documents.csv (a version without `theme_2`, so no first-or-second share).",
        ]
    for corpus, shares in res["titles"].items():
        base = res.get("baseline_titles", {}).get(corpus)
        crossed = res["titles_cross_fitted"][corpus]
        lines += [
            "",
            f"## Titles that name a theme: {corpus}",
            "",
            "Shipped head; cross-fitted heads (each paper placed by a head that never saw it); and the hand "
            "labels of the matching titles (the share whose labelled primary or secondary theme is the theme).",
            "",
            "| theme | titles | first | first or second | cross-fitted: first | cross-fitted: first or second "
            "| hand labels: first or second |" + (" before: first | before: first or second |" if base else ""),
            "|---|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if base else ""),
        ]
        for theme, r in shares.items():
            c = crossed[theme]
            row = (
                f"| {theme} | {r['n']} | {_fmt(r['first'])} | {_fmt(r['first_or_second'])} "
                f"| {_fmt(c['first'])} | {_fmt(c['first_or_second'])} | {_fmt(r.get('labels_first_or_second'))} |"
            )
            if base:
                row += f" {_fmt(base[theme]['first'])} | {_fmt(base[theme]['first_or_second'])} |"
            lines.append(row)
    lines += ["", "Title patterns (case-insensitive regular expressions):", ""]
    lines += [f"- {theme}: `{pattern}`" for theme, pattern in TITLE_PATTERNS.items()]
    lines += [f"- {name} (theme {theme}): `{pattern}`" for name, (theme, pattern) in EXTRA_PATTERNS.items()]
    return "\n".join(lines) + "\n"


def _resolved_precision(precision: str) -> str:
    """The concrete embedding path (``auto`` resolved for this machine)."""
    if precision != "auto":
        return precision
    from icml_topics.embedding.paths import resolve_precision

    return resolve_precision()


def main() -> None:
    import os

    from icml_topics.evaluate import load_theme_labels
    from icml_topics.themes import load_taxonomy
    from icml_topics.themes.assign import ThemeSettings

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, help="documents.csv of another version, for before/after title shares")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument(
        "--precision",
        default="auto",
        help="embedding path (auto = the library's default on this machine; fp32 = exact). "
        "Results go to themes.md, or themes_<precision>.md for another path.",
    )
    args = ap.parse_args()
    taxonomy = load_taxonomy()
    labels = load_theme_labels()
    placed, plain, seconds, corpora = [], [], {}, {}
    for name in ("icml", "neurips", "seeds"):
        corpus = load_corpus(name, args.precision)
        if corpus is None:
            print(f"{name}: corpus file not found, skipped")
            continue
        corpora[name] = corpus
        start = time.perf_counter()
        placed.append(place(corpus, taxonomy, ThemeSettings()).assign(corpus=name))
        seconds[name] = round(time.perf_counter() - start, 2)
        plain.append(place(corpus, taxonomy, ThemeSettings(supervised_head=False)))
    allp, no_head = pd.concat(placed, ignore_index=True), pd.concat(plain, ignore_index=True)
    crossed = _cross_fitted(corpora, taxonomy, args.precision)
    groups = _groups(labels)
    res = {
        "command": "python benchmarks/themes.py"
        + (f" --baseline {args.baseline}" if args.baseline else "")
        + (f" --precision {args.precision}" if args.precision != "auto" else ""),
        "precision": _resolved_precision(args.precision),
        "load": " ".join(f"{x:.1f}" for x in os.getloadavg()),
        "seconds_theme_rule": seconds,
        "machine": machine_line(),
        "no_theme_share": {c: float((g["theme"] == "").mean()) for c, g in allp.groupby("corpus")},
        "accuracy": {
            "head": {g: accuracy(allp, sub) for g, sub in groups.items()},
            "no head": {g: accuracy(no_head, sub) for g, sub in groups.items()},
            "cross-fitted head": {g: accuracy(crossed, sub) for g, sub in groups.items()},
        },
        "second_reader": _second_reader(allp, labels),
        "calibration": _calibration(allp, groups["heldout"]),
        "labels": {split: _label_metrics(allp, labels[labels["split"] == split]) for split in ("heldout", "tune")},
        "titles": {c: _title_shares(g, labels) for c, g in allp.groupby("corpus") if c != "seeds"},
        "titles_cross_fitted": {c: _title_shares(g) for c, g in crossed.groupby("corpus") if c != "seeds"},
    }
    if args.baseline:
        base = pd.read_csv(args.baseline, dtype={"id": str}, keep_default_na=False)
        base["corpus"] = base["id"].str.extract(r"^(icml2026|icml|neurips)")[0].replace({"icml2026": "seeds"})
        res["baseline_titles"] = {c: _title_shares(g) for c, g in base.groupby("corpus") if c != "seeds"}
    args.out.mkdir(parents=True, exist_ok=True)
    stem = "themes" if args.precision == "auto" else f"themes_{args.precision}"
    (args.out / f"{stem}.json").write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    (args.out / f"{stem}.md").write_text(_markdown(res), encoding="utf-8")
    print(_markdown(res))


if __name__ == "__main__":
    main()
