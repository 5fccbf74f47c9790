"""Time BERTopic's own API on a fitted TopicMap (``to_bertopic()``) against plain BERTopic.

On ICML 2013-2024 (5,630 abstracts), one TopicMap is fitted (or loaded from ``--model``), then, in
this one process and interleaved, for each of ``--repeats`` rounds:

* icml_topics: ``tm.to_bertopic()``, then ``topics_over_time(docs, years)``, ``hierarchical_topics(docs)``;
* plain BERTopic on the same embeddings and documents (``BERTopic(vectorizer_model=CountVectorizer(
  stop_words="english"))``, its defaults otherwise): ``fit``, then the same two calls.

    python benchmarks/bertopic_interop.py --data ../shared/data/icml-2013-2024.jsonl.gz \
        --model /tmp/icml-model --out benchmarks/results/bertopic_interop.md

Results (median of the rounds, seconds) go to ``--out`` (Markdown) and a JSON next to it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _machine import cpu_model, machine_line  # noqa: E402
from _measure import measure_call  # noqa: E402
from _report import write_markdown  # noqa: E402


def _timed(fn):
    out, cost = measure_call(fn)
    return out, cost.wall_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="../shared/data/icml-2013-2024.jsonl.gz")
    parser.add_argument(
        "--model", default=None, help="saved TopicMap folder: loaded if present, else fitted and saved there"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="benchmarks/results/bertopic_interop.md")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

    from bertopic import BERTopic
    from sklearn.feature_extraction.text import CountVectorizer

    from icml_topics import TopicMap
    from icml_topics.interop import bertopic_documents

    fit_seconds = None
    if args.model and (Path(args.model) / "model.json").exists():
        tm, load_seconds = _timed(lambda: TopicMap.load(args.model))
    else:
        tm, fit_seconds = _timed(lambda: TopicMap(random_state=42).fit(args.data))
        load_seconds = None
        if args.model:
            tm.save(args.model)
    docs, years = bertopic_documents(tm, "year")
    rows: dict[str, list[float]] = {}
    for _ in range(args.repeats):
        bt, s = _timed(tm.to_bertopic)
        rows.setdefault("icml_topics: to_bertopic()", []).append(s)
        over, s = _timed(lambda bt=bt: bt.topics_over_time(docs, years))
        rows.setdefault("icml_topics: topics_over_time(docs, years)", []).append(s)
        _, s = _timed(lambda bt=bt: bt.hierarchical_topics(docs))
        rows.setdefault("icml_topics: hierarchical_topics(docs)", []).append(s)
        _, s = _timed(lambda bt=bt: bt.find_topics("reinforcement learning"))
        rows.setdefault("icml_topics: find_topics(term)", []).append(s)
        _, s = _timed(bt.visualize_topics)
        rows.setdefault("icml_topics: visualize_topics()", []).append(s)

        plain = BERTopic(vectorizer_model=CountVectorizer(stop_words="english"))
        _, s = _timed(lambda plain=plain: plain.fit(docs, embeddings=tm.embeddings_))
        rows.setdefault("plain BERTopic: fit(docs, embeddings)", []).append(s)
        _, s = _timed(lambda plain=plain: plain.topics_over_time(docs, years))
        rows.setdefault("plain BERTopic: topics_over_time(docs, years)", []).append(s)
        _, s = _timed(lambda plain=plain: plain.hierarchical_topics(docs))
        rows.setdefault("plain BERTopic: hierarchical_topics(docs)", []).append(s)

    agree = [int(t) for t in bt.topics_] == tm.documents_.loc[tm.documents_["status"] == "ok", "topic"].astype(
        int
    ).tolist()
    result = {
        "corpus": str(args.data),
        "documents": len(docs),
        "topics": int((tm.topics_["topic"] != -1).sum()),
        "time stamps": len(set(years)),
        "topics_over_time rows": len(over),
        "per-document topics equal to TopicMap's": agree,
        "TopicMap fit seconds": fit_seconds,
        "TopicMap load seconds": load_seconds,
        "median seconds": {k: round(statistics.median(v), 3) for k, v in rows.items()},
        "all seconds": {k: [round(x, 3) for x in v] for k, v in rows.items()},
        "load average at end": os.getloadavg(),
        "cpu": cpu_model(),
        "cpu count": os.cpu_count(),
    }
    out = Path(args.out)
    lines = [
        "# BERTopic's API on a fitted TopicMap (`to_bertopic()`) vs plain BERTopic",
        "",
        (
            f"Corpus: `{Path(args.data).name}`, {len(docs)} modelled abstracts, {result['topics']} topics, "
            f"{result['time stamps']} years. Same documents and embeddings for both; median of {args.repeats} interleaved rounds. "
            f"Per-document topics of the BERTopic model equal TopicMap's: {agree}. "
            f"Machine at the end: {machine_line()}."
        ),
        "",
        "| call | median s | all rounds (s) |",
        "|---|---:|---|",
    ]
    lines += [
        f"| {k} | {result['median seconds'][k]:.2f} | {', '.join(f'{x:.2f}' for x in v)} |" for k, v in rows.items()
    ]
    write_markdown(out, lines, result)


if __name__ == "__main__":
    main()
