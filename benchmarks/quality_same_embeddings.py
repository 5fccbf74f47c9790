"""Quality of a saved icml_topics model vs BERTopic's defaults fitted on the very same embeddings.

No embedding runs here: the document embeddings are read from the saved model folder, so a full
conference (5,630 ICML abstracts) is compared in a few minutes. Both sides are scored by the same
functions as ``run.py`` (``_quality.keyword_quality`` / ``agreement``):

    icml-topics fit ../shared/data/icml-2013-2024.jsonl.gz --out icml-map/
    python benchmarks/quality_same_embeddings.py icml-map/model --out benchmarks/results/quality_icml.md
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bertopic_baseline import fit_default, topic_keywords  # noqa: E402
from _machine import machine_line  # noqa: E402
from _quality import agreement, keyword_quality  # noqa: E402
from _report import write_markdown  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", type=Path, help="a folder written by TopicMap.save / icml-topics fit (model/)")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/quality_same_embeddings.md"))
    args = parser.parse_args()

    from icml_topics import TopicMap
    from icml_topics.evaluate import load_dev_labels

    tm = TopicMap.load(args.model)
    docs = tm.documents_[tm.documents_["status"] == "ok"].reset_index(drop=True)
    texts = tm.state_.texts
    dev = dict(zip(*load_dev_labels()[["id", "theme"]].T.values))

    start = time.perf_counter()
    baseline, labels = fit_default(texts, np.asarray(tm.embeddings_))
    seconds = time.perf_counter() - start
    base_kw = topic_keywords(baseline)
    ours_kw = [list(k) for t, k in zip(tm.topics_["topic"], tm.topics_["keywords"]) if t != -1]
    rows = {
        "BERTopic defaults (same embeddings)": {
            **keyword_quality(base_kw, texts),
            "topics": len(base_kw),
            "outliers": float(np.mean(np.asarray(labels) == -1)),
            "unassigned": float(np.mean(np.asarray(labels) == -1)),
            **agreement(docs["id"], labels, dev),
        },
        "icml_topics": {
            **keyword_quality(ours_kw, texts),
            "topics": len(ours_kw),
            "outliers": float((docs["topic"] == -1).mean()),
            "unassigned": float((docs["theme"] == "").mean()),
            **agreement(docs["id"], docs["theme"], dev),
        },
    }
    lines = [
        f"# Quality on the same embeddings: {len(docs):,} abstracts ({args.model})",
        "",
        f"BERTopic defaults (UMAP, HDBSCAN min_topic_size=10, English stop words) fitted in {seconds:.0f} s "
        f"({machine_line()}) on the "
        "saved model's document embeddings. NPMI: top-10 keywords, document co-occurrence over the cleaned texts; "
        "npmi_words: keyphrases split into their first 10 distinct words. ARI/NMI: BERTopic topic ids vs "
        "icml_topics themes against the hand-labelled papers of the corpus (icml_topics/data/theme_labels.csv).",
        "",
        "| pipeline | topics | npmi | npmi_words | diversity | outliers | unassigned | ari | nmi | n_labelled |",
        "|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for name, r in rows.items():
        fmt = lambda v, p="{:.3f}": "–" if v is None else p.format(v)  # noqa: E731
        lines.append(
            f"| {name} | {r['topics']} | {fmt(r['npmi'])} | {fmt(r['npmi_words'])} | {fmt(r['diversity'])} | "
            f"{r['outliers']:.1%} | {r['unassigned']:.1%} | {fmt(r.get('ari'))} | {fmt(r.get('nmi'))} | {r.get('n_labelled', 0)} |"
        )
    write_markdown(args.out, lines)


if __name__ == "__main__":
    main()
