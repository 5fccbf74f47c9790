"""Embedding throughput: sentence-transformers fp32 vs each path of ``icml_topics.embed``, on real abstracts.

Every path embeds the same abstracts, **interleaved batch by batch** (batch 1 on every path, then
batch 2 on every path, ...), so load from other processes hits them alike. Reports docs/s, the
ratio to sentence-transformers fp32, cosine similarity (min / mean) and the mean 10-nearest-neighbour
agreement with the fp32 vectors (what the precision guard checks), as a CSV plus a Markdown table.

    python benchmarks/embedding_throughput.py --n 400 --out benchmarks/results/embedding.csv
    python benchmarks/embedding_throughput.py --paths fp32,int8      # only some paths
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _machine import cpu_model  # noqa: E402

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


def update_readme(readme: Path, markdown: str, command: str) -> None:
    """Replace the text between ``<!-- speed-table:start -->`` and ``<!-- speed-table:end -->``."""
    text = readme.read_text(encoding="utf-8")
    start, end = "<!-- speed-table:start -->", "<!-- speed-table:end -->"
    if start not in text or end not in text:
        print(f"warning: {readme} has no speed-table markers; not updated", file=sys.stderr)
        return
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    readme.write_text(f"{head}{start}\nMeasured with `{command}`:\n\n{markdown}{end}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=300, help="abstracts to embed per measurement")
    parser.add_argument("--repeat", type=int, default=1, help="rounds; the median docs/s is reported")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument(
        "--paths",
        default=None,
        help="comma list among auto,fp32,bf16,fp16,int8,fp32-onnx,int8@128,fp32@128,cache "
        "(default: auto, every path this machine offers, int8@128 and cache); PATH@N = max_tokens N",
    )
    parser.add_argument("--device", default=None)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "embedding.csv")
    parser.add_argument(
        "--update-readme",
        action="store_true",
        help="rewrite the table between the speed-table markers of the top-level README.md",
    )
    args = parser.parse_args(argv)

    import torch

    from icml_topics.embedding import EmbeddingCache, embed, last_run_info, load_model, resolve_precision
    from icml_topics.embedding.guard import cosine_agreement, knn_agreement
    from icml_topics.embedding.paths import onnx_possible
    from icml_topics.embedding.precision import candidate_precisions, cpu_features, cpu_has_native_bf16

    texts = load_texts(args.data, args.n, args.seed)
    texts.sort(key=len, reverse=True)  # as embed() batches them: little padding for every path alike
    model = load_model(device=args.device)
    device = str(model.device)
    offered = candidate_precisions(device, onnx=onnx_possible(model))
    paths = args.paths.split(",") if args.paths else ["auto", "fp32", *offered, "int8@128", "fp32@128", "cache"]
    chosen = resolve_precision(device=device)  # untimed: the once-per-machine decision and ONNX export

    def st_fp32(batch: list[str], tokens: int | None = None) -> np.ndarray:
        limit = model.max_seq_length
        model.max_seq_length = tokens or limit
        try:
            return model.encode(batch, batch_size=len(batch), normalize_embeddings=True, show_progress_bar=False)
        finally:
            model.max_seq_length = limit

    cache_dir = Path(tempfile.mkdtemp(prefix="icml-topics-bench-"))
    runners = {"sentence-transformers fp32": st_fp32}
    for path in paths:
        if path == "cache":
            runners["embed, warm cache"] = lambda b: embed(b, cache=EmbeddingCache(cache_dir), show_progress_bar=False)
            continue
        name, _, tokens = path.partition("@")
        max_tokens = int(tokens) if tokens else None
        if name == "fp32" and max_tokens:
            runners[f"sentence-transformers fp32, {max_tokens} tokens"] = lambda b, t=max_tokens: st_fp32(b, t)
            continue
        label = (
            f"embed precision={name}"
            + (f" (= {chosen}, the default)" if name == "auto" else "")
            + (f", max_tokens={max_tokens}" if max_tokens else "")
        )
        runners[label] = lambda b, p=name, t=max_tokens: embed(
            b, cache=False, precision=p, max_tokens=t, show_progress_bar=False
        )

    for run in runners.values():  # warm-up: first-call costs (kernel selection, session start) do not count
        run(texts[:2])
    if "cache" in paths:  # fill the cache once, untimed
        embed(texts, cache=EmbeddingCache(cache_dir), show_progress_bar=False)

    seconds = dict.fromkeys(runners, 0.0)
    cpu_seconds = dict.fromkeys(runners, 0.0)
    parts: dict[str, list[np.ndarray]] = {name: [] for name in runners}
    used: dict[str, str] = {}
    for round_ in range(args.repeat):
        for start in range(0, len(texts), args.batch_size):
            batch = texts[start : start + args.batch_size]
            for name, run in runners.items():
                t0, c0 = time.perf_counter(), time.process_time()
                out = run(batch)
                seconds[name] += time.perf_counter() - t0
                cpu_seconds[name] += time.process_time() - c0
                if round_ == 0:
                    parts[name].append(np.asarray(out, dtype=np.float32))
                    info = last_run_info()
                    used[name] = (
                        "fp32" if name.startswith("sentence") else (info.precision if info.n_embedded else "cache")
                    )
        print(f"round {round_ + 1} done", file=sys.stderr)

    n_done = len(texts) * args.repeat
    reference = np.concatenate(parts["sentence-transformers fp32"])
    base, cpu_base = seconds["sentence-transformers fp32"], cpu_seconds["sentence-transformers fp32"]
    machine = {
        "device": device,
        "cpu": cpu_features().split("|")[1] if "|" in cpu_features() else cpu_features(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "native_bf16": cpu_has_native_bf16(),
        "vnni": "avx512_vnni" in cpu_features() or "avx_vnni" in cpu_features(),
        "threads": torch.get_num_threads(),
        "cpus": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else "",
        "torch": torch.__version__,
        "machine": cpu_model(),
    }
    rows = []
    for name in runners:
        vectors = np.concatenate(parts[name])
        cos = cosine_agreement(reference, vectors)
        rows.append(
            {
                "path": name,
                "precision_used": used[name],
                "n": len(texts),
                "repeat": args.repeat,
                "batch_size": args.batch_size,
                "docs_per_s": round(n_done / seconds[name], 2),
                "ratio_vs_st_fp32": round(base / seconds[name], 3),
                "docs_per_cpu_s": round(n_done / max(cpu_seconds[name], 1e-9), 2),
                "cpu_ratio_vs_st_fp32": round(cpu_base / max(cpu_seconds[name], 1e-9), 3),
                "cos_min": round(float(cos.min()), 6),
                "cos_mean": round(float(cos.mean()), 6),
                "knn10_agreement": round(float(knn_agreement(reference, vectors).mean()), 4),
                **machine,
            }
        )

    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    header = (
        "| path | precision used | docs/s | × st fp32 | docs/CPU-s | × st fp32 (CPU) | cos min | cos mean "
        "| 10-NN agreement |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    body = "".join(
        f"| {r['path']} | {r['precision_used']} | {r['docs_per_s']:.2f} | {r['ratio_vs_st_fp32']:.2f} | "
        f"{r['docs_per_cpu_s']:.2f} | {r['cpu_ratio_vs_st_fp32']:.2f} | "
        f"{r['cos_min']:.4f} | {r['cos_mean']:.4f} | {r['knn10_agreement']:.3f} |\n"
        for r in rows
    )
    note = (
        f"\n{len(texts)} ICML abstracts (title + abstract, longest first), batch {args.batch_size}, every path "
        f"interleaved batch by batch, {args.repeat} round(s); load average at the end "
        f"{os.getloadavg()[0]:.1f}; {', '.join(f'{k}={v}' for k, v in machine.items())}.\n"
    )
    markdown = header + body + note
    args.out.with_suffix(".md").write_text(markdown, encoding="utf-8")
    if args.update_readme:
        update_readme(
            ROOT / "README.md",
            markdown,
            " ".join(["python benchmarks/embedding_throughput.py", *(argv or sys.argv[1:])]),
        )
    print(markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
