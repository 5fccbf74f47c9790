"""Embedding throughput: sentence-transformers fp32 vs each path of ``icml_topics.embed``, on real abstracts.

Measures docs/s (median over ``--repeat`` rounds; paths interleaved in each round so machine load
hits them alike) and cosine similarity (min / mean) to the plain fp32 vectors, and writes a CSV
plus a Markdown table (same name, ``.md``).

    python benchmarks/embedding_throughput.py --n 300 --repeat 1 --out benchmarks/results/embedding.csv
    python benchmarks/embedding_throughput.py --paths fp32,bf16    # force a path this hardware does not offer
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "icml-2013-2024.jsonl.gz"


def load_texts(path: Path, n: int, seed: int) -> list[str]:
    if not path.exists():
        sys.exit(f"real abstracts not found at {path}; pass --data PATH to a JSONL(.gz) with title/abstract fields")
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    rows = [r for r in rows if (r.get("abstract") or "").strip()]
    random.Random(seed).shuffle(rows)
    return [f"{r.get('title') or ''}. {r['abstract']}".strip() for r in rows[:n]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=300, help="abstracts to embed per measurement")
    parser.add_argument("--repeat", type=int, default=1, help="rounds; the median docs/s is reported")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--paths", default=None,
                        help="comma list among fp32,auto,bf16,fp16,cache (default: fp32,auto,cache + the fast "
                             "paths this hardware offers)")
    parser.add_argument("--device", default=None)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "embedding.csv")
    args = parser.parse_args(argv)

    import torch

    from icml_topics.embedding import EmbeddingCache, embed, last_run_info, load_model
    from icml_topics.embedding.pipeline import GUARD_MIN_TEXTS
    from icml_topics.embedding.precision import candidate_precisions, cosine_agreement, cpu_has_native_bf16

    texts = load_texts(args.data, args.n, args.seed)
    model = load_model(device=args.device)
    device = str(model.device)
    paths = args.paths.split(",") if args.paths else ["fp32", "auto", *candidate_precisions(device), "cache"]

    def plain() -> np.ndarray:
        return model.encode(texts, batch_size=args.batch_size, normalize_embeddings=True, show_progress_bar=False)

    cache_dir = Path(tempfile.mkdtemp(prefix="icml-topics-bench-"))
    runners = {"sentence-transformers fp32": plain}
    for path in paths:
        if path == "cache":
            runners["embed, warm cache"] = lambda: embed(texts, batch_size=args.batch_size,
                                                         cache=EmbeddingCache(cache_dir), show_progress_bar=False)
        else:
            runners[f"embed precision={path}"] = (lambda p=path: embed(
                texts, batch_size=args.batch_size, cache=False, precision=p, show_progress_bar=False))

    model.encode(texts[:4], show_progress_bar=False)  # warm-up
    if "auto" in paths and candidate_precisions(device):  # let auto vet its fast path once, untimed
        embed(texts[: max(GUARD_MIN_TEXTS, 64)], cache=False, show_progress_bar=False)
    if "cache" in paths:  # fill the cache once, untimed
        embed(texts, batch_size=args.batch_size, cache=EmbeddingCache(cache_dir), show_progress_bar=False)

    speeds: dict[str, list[float]] = {name: [] for name in runners}
    cpu_speeds: dict[str, list[float]] = {name: [] for name in runners}  # docs per CPU-second: steadier under load
    vectors: dict[str, np.ndarray] = {}
    used: dict[str, str] = {}
    for round_ in range(args.repeat):
        for name, run in runners.items():
            start, cpu_start = time.perf_counter(), time.process_time()
            out = run()
            speeds[name].append(len(texts) / (time.perf_counter() - start))
            cpu_speeds[name].append(len(texts) / max(time.process_time() - cpu_start, 1e-9))
            vectors[name] = out
            info = last_run_info()
            used[name] = "fp32" if name.startswith("sentence") else (info.precision if info.n_embedded else "cache")
            print(f"round {round_ + 1}: {name:28s} {speeds[name][-1]:8.2f} docs/s", file=sys.stderr)

    reference = vectors["sentence-transformers fp32"]
    base = statistics.median(speeds["sentence-transformers fp32"])
    cpu_base = statistics.median(cpu_speeds["sentence-transformers fp32"])
    machine = {
        "device": device,
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "native_bf16": cpu_has_native_bf16(),
        "threads": torch.get_num_threads(),
        "cpus": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else "",
        "torch": torch.__version__,
        "machine": platform.machine(),
    }
    rows = []
    for name in runners:
        cos = cosine_agreement(reference, vectors[name])
        rows.append({
            "path": name, "precision_used": used[name], "n": len(texts), "repeat": args.repeat,
            "batch_size": args.batch_size, "docs_per_s": round(statistics.median(speeds[name]), 2),
            "ratio_vs_st_fp32": round(statistics.median(speeds[name]) / base, 3),
            "docs_per_cpu_s": round(statistics.median(cpu_speeds[name]), 2),
            "cpu_ratio_vs_st_fp32": round(statistics.median(cpu_speeds[name]) / cpu_base, 3),
            "cos_min": round(float(cos.min()), 6), "cos_mean": round(float(cos.mean()), 6), **machine,
        })

    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    header = ("| path | precision used | docs/s | × st fp32 | docs/CPU-s | × st fp32 (CPU) | cos min | cos mean |\n"
              "|---|---|---:|---:|---:|---:|---:|---:|\n")
    body = "".join(f"| {r['path']} | {r['precision_used']} | {r['docs_per_s']:.2f} | {r['ratio_vs_st_fp32']:.2f} | "
                   f"{r['docs_per_cpu_s']:.2f} | {r['cpu_ratio_vs_st_fp32']:.2f} | "
                   f"{r['cos_min']:.6f} | {r['cos_mean']:.6f} |\n" for r in rows)
    note = (f"\n{len(texts)} ICML abstracts (title + abstract), batch {args.batch_size}, median of {args.repeat} "
            f"round(s); {', '.join(f'{k}={v}' for k, v in machine.items())}.\n")
    markdown = header + body + note
    args.out.with_suffix(".md").write_text(markdown, encoding="utf-8")
    print(markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
