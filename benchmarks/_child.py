"""One measured pipeline in a fresh process: ``python benchmarks/_child.py SPEC.json``.

The parent (``run.py``) writes the spec and reads the result file this writes. Timing and peak RSS
are taken when the pipeline ends, *before* the quality measures run, so quality costs nothing in the
numbers. Heavy imports happen inside the timed region, as a user's script pays them.

Pipelines:
    ``bertopic-default``   BERTopic's default pipeline including its embedding (``_bertopic_baseline``)
    ``bertopic-same-emb``  the same BERTopic defaults on the embeddings icml_topics computed (quality view)
    ``icml_topics``        ``TopicMap(random_state=42, cache=DIR).fit(sample.jsonl)``
"""

from __future__ import annotations

import time

T_START = time.time()  # before any heavy import

import json  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import raw_text  # noqa: E402


def _maxrss_bytes() -> int:
    scale = 1 if sys.platform == "darwin" else 1024
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * scale


def _read_jsonl(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _dev_labels() -> dict[str, str]:
    from icml_topics.evaluate import load_dev_labels

    dev = load_dev_labels()
    return dict(zip(dev["id"].astype(str), dev["theme"].astype(str)))


def _reference(spec: dict) -> tuple[list[str], list[str]]:
    with open(spec["reference"], encoding="utf-8") as fh:
        ref = json.load(fh)
    return ref["ids"], ref["texts"]


# --------------------------------------------------------------------------------------- BERTopic
def run_bertopic(spec: dict, same_embeddings: bool) -> dict:
    import numpy as np

    phases: dict[str, float] = {}
    t = time.time()
    records = _read_jsonl(spec["sample"])
    if same_embeddings:
        with open(spec["embeddings_ids"], encoding="utf-8") as fh:
            ids = [str(i) for i in json.load(fh)]
        by_id = {str(r["id"]): r for r in records}
        records = [by_id[i] for i in ids]
    docs = [raw_text(r) for r in records]
    ids = [str(r["id"]) for r in records]
    phases["read_s"] = time.time() - t

    t = time.time()
    import bertopic  # noqa: F401  (imported here so its import time is counted in import_s)
    from _bertopic_baseline import fit_default, load_embedder, topic_keywords

    if not same_embeddings:
        import sentence_transformers  # noqa: F401
    phases["import_s"] = time.time() - t

    embed_s = None
    encode_s = None
    if same_embeddings:
        embeddings = np.load(spec["embeddings"])
    else:
        t = time.time()
        embedder = load_embedder()
        phases["load_model_s"] = time.time() - t
        t = time.time()
        embeddings = embedder.encode(docs)
        encode_s = time.time() - t
        phases["encode_s"] = encode_s
        embed_s = phases["load_model_s"] + encode_s
    t = time.time()
    model, topics = fit_default(docs, embeddings)
    phases["topics_s"] = time.time() - t
    t_end = time.time()
    maxrss = _maxrss_bytes()

    from _quality import agreement, keyword_quality

    _, ref_texts = _reference(spec)
    keywords = topic_keywords(model)
    out = {
        "t_end": t_end,
        "maxrss_bytes": maxrss,
        "phases": phases,
        "n_docs": len(docs),
        "n_modelled": len(docs),
        "embed_s": embed_s,
        "embed_n": None if same_embeddings else len(docs),
        "encode_docs_per_s": len(docs) / encode_s if encode_s else None,
        "n_topics": len(keywords),
        "n_themes": None,
        "outlier_share": float(np.mean(topics == -1)),
        "unassigned_share": float(np.mean(topics == -1)),
        **keyword_quality(keywords, ref_texts),
    }
    dev = _dev_labels()
    out.update(agreement(ids, [str(t) for t in topics.tolist()], dev))
    out["topic_ari"], out["topic_nmi"] = out["ari"], out["nmi"]
    out["keywords_example"] = keywords[:3]
    return out


# ------------------------------------------------------------------------------------ icml_topics
def run_icml_topics(spec: dict) -> dict:
    phases: dict[str, float] = {}
    t = time.time()
    from icml_topics.model import TopicMap

    phases["import_s"] = time.time() - t
    starts: list[tuple[str, float]] = []  # (stage, time it started), from the fit's own on_stage callback
    runs: list[dict | None] = []

    def on_stage(name: str, line: str) -> None:
        starts.append((name, time.time()))
        if name == "map":  # the stage after "embed": the documents were just embedded, what the library says it did
            from icml_topics.embedding import last_run_info

            info = last_run_info()
            runs.append(info.to_dict() if info is not None else None)

    t = time.time()
    tm = TopicMap(random_state=42, cache=spec["cache_dir"]).fit(spec["sample"], on_stage=on_stage)
    phases["fit_s"] = time.time() - t
    t_end = time.time()
    maxrss = _maxrss_bytes()
    ends = [s for _, s in starts[1:]] + [t_end]
    stage_s = {name: end - start for (name, start), end in zip(starts, ends)}
    phases.update({f"stage_{name}_s": round(seconds, 3) for name, seconds in stage_s.items()})

    import numpy as np
    import pandas as pd
    from _quality import agreement, keyword_quality

    docs = tm.documents_
    ok = (docs["status"] == "ok").to_numpy()
    modelled = docs[ok]
    if spec.get("embeddings_out"):
        np.save(spec["embeddings_out"], np.asarray(tm.embeddings_, dtype=np.float32))
        with open(spec["embeddings_ids"], "w", encoding="utf-8") as fh:
            json.dump(modelled["id"].astype(str).tolist(), fh)

    topics = tm.topics_
    real = topics[pd.to_numeric(topics["topic"]) != -1]
    keywords = [list(k) if not isinstance(k, str) else [w.strip() for w in k.split(";")] for k in real["keywords"]]
    _, ref_texts = _reference(spec)
    themes = modelled["theme"].fillna("").astype(str).str.strip()
    doc_topics = pd.to_numeric(modelled["topic"])
    embed_s = stage_s.get("embed")  # the documents' embedding (model load included), as the fit timed it
    embed_n = int(ok.sum())
    out = {
        "t_end": t_end,
        "maxrss_bytes": maxrss,
        "phases": phases,
        "n_docs": int(len(docs)),
        "n_modelled": int(ok.sum()),
        "embed_s": embed_s,
        "embed_n": embed_n,
        "embed_runs": runs,
        "n_topics": int(len(real)),
        "n_themes": int(themes[themes != ""].nunique()),
        "outlier_share": float((doc_topics == -1).mean()),
        "unassigned_share": float((themes == "").mean()),
        **keyword_quality(keywords, ref_texts),
    }
    dev = _dev_labels()
    ids = docs["id"].astype(str).tolist()
    out.update(agreement(ids, docs["theme"].fillna("").astype(str).tolist(), dev))
    topic_pred = [None if pd.isna(t) else str(int(t)) for t in docs["topic"]]
    topic_scores = agreement(ids, topic_pred, dev, prefix="topic_")
    out["topic_ari"], out["topic_nmi"] = topic_scores["topic_ari"], topic_scores["topic_nmi"]
    out["summary"] = tm.summary()
    try:  # the library's own one-call evaluation, for cross-checking (NPMI there uses the raw text)
        from icml_topics.evaluate import evaluate_model, load_dev_labels

        out["library_evaluate"] = {
            k: (None if isinstance(v, float) and v != v else v)
            for k, v in evaluate_model(tm, reference=load_dev_labels()).items()
        }
    except Exception as exc:  # no dev document in the sample, or an evaluator error: keep the run
        out["library_evaluate"] = {"error": f"{type(exc).__name__}: {exc}"}
    out["keywords_example"] = keywords[:3]
    return out


def main(spec_path: str) -> int:
    with open(spec_path, encoding="utf-8") as fh:
        spec = json.load(fh)
    logging.basicConfig(
        level=logging.INFO, format="%(relativeCreated)9.0f ms %(name)s %(levelname)s: %(message)s", stream=sys.stderr
    )
    pipeline = spec["pipeline"]
    print(f"[{pipeline}] pid {os.getpid()}, sample {spec['sample']}", flush=True)
    try:
        if pipeline == "bertopic-default":
            result = run_bertopic(spec, same_embeddings=False)
        elif pipeline == "bertopic-same-emb":
            result = run_bertopic(spec, same_embeddings=True)
        elif pipeline == "icml_topics":
            result = run_icml_topics(spec)
        else:
            raise ValueError(f"unknown pipeline {pipeline!r}")
        result["status"] = "ok"
        result["t_start"] = T_START
    except Exception as exc:
        traceback.print_exc()
        result = {"status": "error", "error": f"{type(exc).__name__}: {exc}", "t_start": T_START}
    tmp = spec["result"] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1, default=str)
    os.replace(tmp, spec["result"])
    return 0 if result["status"] == "ok" else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python benchmarks/_child.py SPEC.json  (run by benchmarks/run.py)")
    sys.exit(main(sys.argv[1]))
