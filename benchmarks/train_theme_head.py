"""Train the supervised theme head (``icml_topics/data/theme_head.npz``) on the *tune* hand labels.

For every corpus in ``../shared/data`` (ICML 2013-2024, NeurIPS 1987-2018) and the 38 bundled abstracts,
the theme rule is fitted without a head, exactly as ``TopicMap`` does, and its evidence is read for the
labelled papers of the tune split (``ThemeRule.evidence``). ``themes.head.train_head`` then learns the
weighing. The held-out split is never read here.

    python benchmarks/train_theme_head.py --choose   # 5-fold CV over the tune labels for each setting
    python benchmarks/train_theme_head.py            # train with the chosen setting, write the head

Writes ``benchmarks/results/theme_head.md`` (with ``--choose``) and the head file.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _themes_data import load_corpus, prototypes

ROOT = Path(__file__).resolve().parents[1]
HEAD_PATH = ROOT / "icml_topics" / "data" / "theme_head.npz"
RESULTS = Path(__file__).resolve().parent / "results" / "theme_head.md"
GRID = [
    {"C": C, "per_theme": per_theme, "strength": strength}
    for C in (4.0, 16.0)
    for per_theme, strength in ((False, 3.0), (True, 10.0), (True, 30.0))
]
# weight of the labelled secondary theme in the head's target: 0, 0.2 and 0.35 gave the same cross-validated
# accuracy (0.776 / 0.895); 0.2 and 0.35 put the theme an ICML title names first or second more often (LLM titles
# 0.82 -> 0.91 / 0.93); 0.2 was kept as the smaller change
SECOND_WEIGHT = 0.2
CHOSEN = {"C": 4.0, "per_theme": True, "strength": 10.0}  # the best of GRID by --choose (results/theme_head.md)


def tune_evidence(precision: str = "auto"):
    """Evidence, embeddings, primary and secondary label columns of every tune-labelled paper found."""
    from icml_topics.evaluate import load_theme_labels
    from icml_topics.themes import load_taxonomy
    from icml_topics.themes.assign import ThemeRule, ThemeSettings
    from icml_topics.themes.head import COMPONENTS

    tune = load_theme_labels("tune")
    taxonomy = load_taxonomy()
    protos = prototypes(taxonomy, precision)
    settings = dataclasses.replace(ThemeSettings(), supervised_head=False)
    column = {n: i for i, n in enumerate(taxonomy.names)}
    parts = []
    for name in ("icml", "neurips", "seeds"):
        corpus = load_corpus(name, precision)
        if corpus is None:
            print(f"skipping {name}: its file is not in the shared data folder")
            continue
        titles, abstracts = corpus.frame["title"].tolist(), corpus.frame["abstract"].tolist()
        rule, _ = ThemeRule.fit(
            corpus.embeddings, titles, abstracts, protos, taxonomy.names, taxonomy.theme_phrases(), settings
        )
        rows = corpus.frame.reset_index(drop=True).reset_index().merge(tune, on="id")
        at = rows["index"].to_numpy()
        ev = rule.evidence(
            corpus.embeddings[at], [titles[i] for i in at], [abstracts[i] for i in at], reference=corpus.embeddings
        )
        second = rows["second_theme"].map(column).fillna(-1).astype(int).to_numpy()
        parts.append((ev, corpus.embeddings[at], rows["theme"].map(column).to_numpy(), second))
        print(f"{name}: {len(rows)} tune-labelled papers", flush=True)
    evidence = {c: np.vstack([p[0][c] for p in parts]) for c in COMPONENTS}
    return (
        evidence,
        np.vstack([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
        np.concatenate([p[3] for p in parts]),
        taxonomy,
    )


def cross_validate(evidence, emb, y, y2, taxonomy, setting, folds: int = 5, seed: int = 0) -> tuple[float, float]:
    """Primary and primary-or-secondary accuracy of heads trained on 4/5 of the tune labels, on the other 1/5."""
    from icml_topics.themes.head import train_head

    order = np.random.RandomState(seed + 1000).permutation(len(y)) % folds
    best = np.zeros(len(y), dtype=np.int64)
    for k in range(folds):
        fit_on, test = order != k, order == k
        head = train_head(
            {c: v[fit_on] for c, v in evidence.items()}, emb[fit_on], y[fit_on], taxonomy, "cv", **setting
        )
        best[test] = head.logits({c: v[test] for c, v in evidence.items()}, emb[test]).argmax(axis=1)
    return float((best == y).mean()), float(((best == y) | (best == y2)).mean())


def main() -> None:
    from icml_topics.embedding.models import DEFAULT_MODEL_NAME
    from icml_topics.themes.assign import ThemeSettings, settings_logits
    from icml_topics.themes.head import train_head

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--choose", action="store_true", help="cross-validate every setting of the grid first")
    args = parser.parse_args()
    evidence, emb, y, y2, taxonomy = tune_evidence()
    no_head = settings_logits(evidence, ThemeSettings()).argmax(axis=1)  # for comparison
    if args.choose:
        lines = [
            "# Supervised theme head: settings chosen by cross-validation on the tune labels",
            "",
            "Command: `python benchmarks/train_theme_head.py --choose`. 5-fold cross-validation over the "
            f"{len(y)} tune-labelled papers (the held-out split is never read).",
            "",
            "| setting | primary | primary-or-secondary |",
            "|---|---:|---:|",
            f"| no head (ThemeSettings weights) | {(no_head == y).mean():.3f} | "
            f"{((no_head == y) | (no_head == y2)).mean():.3f} |",
        ]
        scores = []
        for setting in GRID:
            t0 = time.perf_counter()
            primary, either = cross_validate(evidence, emb, y, y2, taxonomy, setting)
            print(f"{setting}: {primary:.3f} / {either:.3f} ({time.perf_counter() - t0:.0f} s)", flush=True)
            lines.append(f"| {json.dumps(setting)} | {primary:.3f} | {either:.3f} |")
            scores.append(primary + either)
        chosen = GRID[int(np.argmax(scores))]
        if chosen != CHOSEN:
            print(f"note: the best setting is now {chosen}; update CHOSEN so that runs without --choose agree")
        lines += ["", f"Shipped: `{json.dumps(chosen)}` (highest primary + primary-or-secondary)."]
        RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        chosen = CHOSEN
    head = train_head(
        evidence, emb, y, taxonomy, DEFAULT_MODEL_NAME, second_labels=y2, second_weight=SECOND_WEIGHT, **chosen
    )
    head.save(HEAD_PATH)
    print(f"wrote {HEAD_PATH.relative_to(ROOT)} ({head.n_labels} tune labels, {HEAD_PATH.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
