"""What other int8 graphs of all-MiniLM-L6-v2 bring over the shipped one, run exactly as ``embed`` runs it.

Every variant runs as the default path does: one one-thread ONNX Runtime session per core, one text per
graph run, the texts of a chunk shared out among the sessions; the chunks are **interleaved** across the
variants (chunk 1 on every variant, then chunk 2, ...), so load from other processes hits them alike.
Reports docs/s, the ratio to the shipped dynamic int8 graph, and mean / min cosine and 10-NN agreement
against the fp32 ONNX graph, plus a per-operator profile of the shipped graph (where its time goes).

Variants, each from the same trace (``icml_topics.embedding.onnx_export``'s own):

- ONNX Runtime's BERT optimiser with its fused SkipLayerNormalization and/or Attention turned off, then
  the shipped ``quantize_dynamic`` recipe;
- ``MatMulNBits`` with 8-bit block-wise weights and ``accuracy_level=4`` (int8 compute, activations
  quantised per row and block, so a text's vector would not depend on its batch-mates), on the fused
  graph (attention's own projections stay fp32 there) and on a graph with attention unfused. These need
  ``onnx-ir`` (``pip install onnx-ir``), which the library itself does not; without it they are skipped.

    python benchmarks/int8_graph_options.py --n 300 --out benchmarks/results/int8_graph_options.md
"""

from __future__ import annotations

import argparse
import atexit
import collections
import json
import logging
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _interleave import emit, share_out, time_interleaved  # noqa: E402
from _machine import cpu_flags, cpu_model  # noqa: E402

from benchmarks.embedding_throughput import DATA, load_texts  # noqa: E402

SHIPPED = "dynamic int8 (shipped)"
REFERENCE = "fp32 ONNX (fused, shipped)"


class Runner:
    """``sessions`` one-thread sessions of one graph; a text per run, mean-pooled and normalised."""

    def __init__(self, model: Path, tokenizer: Path, sessions: int, profile: Path | None = None) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.sessions = [
            ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"]) for _ in range(sessions)
        ]
        if profile is not None:
            options.enable_profiling = True
            options.profile_file_prefix = str(profile)
            self.profiled = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self.inputs = [i.name for i in self.sessions[0].get_inputs()]
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        self.tokenizer.enable_truncation(256)
        self.pool = ThreadPoolExecutor(sessions)

    def one(self, session, text: str) -> np.ndarray:
        enc = self.tokenizer.encode(text)
        ids = np.array([enc.ids], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        pooled = session.run(None, {k: feed[k] for k in self.inputs})[0][0].mean(axis=0)
        return pooled / np.linalg.norm(pooled)

    def __call__(self, texts: list[str]) -> np.ndarray:
        return share_out(self.pool, len(self.sessions), lambda k, text: self.one(self.sessions[k], text), texts)

    def profile(self, texts: list[str]) -> list[tuple[str, float]]:
        for text in texts:
            self.one(self.profiled, text)
        events = json.loads(Path(self.profiled.end_profiling()).read_text())
        per_op: collections.Counter[str] = collections.Counter()
        for event in events:
            if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
                per_op[event["args"]["op_name"]] += event["dur"]
        total = sum(per_op.values())
        return [(op, us / total) for op, us in per_op.most_common()]


def build(raw: Path, work: Path, num_heads: int, hidden_size: int) -> tuple[dict[str, Path], list[str]]:
    """The variants' graphs in ``work``; also the notes on variants that could not be built."""
    import onnx
    from onnxruntime.transformers.fusion_options import FusionOptions

    from icml_topics.embedding.onnx_export import fuse_bert, quantise_int8

    def fused(name: str, **off: bool) -> Path:
        options = FusionOptions("bert")
        for flag in off:
            setattr(options, flag, False)
        target = work / f"{name}.onnx"
        fuse_bert(raw, target, num_heads=num_heads, hidden_size=hidden_size, options=options)
        return target

    def dynamic(source: Path) -> Path:
        target = source.with_name(f"{source.stem}-int8.onnx")
        quantise_int8(source, target)
        return target

    graphs = {
        "fused": fused("fused"),
        "no SkipLayerNorm": fused("noskip", enable_skip_layer_norm=False),
        "no Attention": fused("noattn", enable_attention=False),
        "neither": fused("neither", enable_skip_layer_norm=False, enable_attention=False),
    }
    variants = {
        "dynamic int8, SkipLayerNormalization unfused": dynamic(graphs["no SkipLayerNorm"]),
        "dynamic int8, Attention unfused": dynamic(graphs["no Attention"]),
        "dynamic int8, both unfused": dynamic(graphs["neither"]),
    }
    notes = []
    try:
        from onnxruntime.quantization.matmul_nbits_quantizer import DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer
    except ImportError as exc:
        notes.append(f"MatMulNBits variants skipped: {exc} (pip install onnx-ir)")
        return variants, notes
    for block in (32, 128):
        for label, source in (("fused", graphs["fused"]), ("Attention unfused", graphs["no Attention"])):
            config = DefaultWeightOnlyQuantConfig(block_size=block, is_symmetric=True, accuracy_level=4, bits=8)
            quantizer = MatMulNBitsQuantizer(
                onnx.load(str(source)),
                bits=8,
                block_size=block,
                is_symmetric=True,
                accuracy_level=4,
                algo_config=config,
            )
            quantizer.process()
            target = work / f"nbits8-{block}-{source.stem}.onnx"
            quantizer.model.save_model_to_file(str(target), use_external_data_format=False)
            variants[f"MatMulNBits 8-bit, block {block}, {label}"] = target
    return variants, notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=300, help="ICML abstracts per round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--sessions", type=int, default=2, help="one-thread sessions (the physical cores)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    from icml_topics.embedding import load_model, model_identity
    from icml_topics.embedding.onnx_backend import ONNX_PATHS, export_dir, onnx_encoder
    from icml_topics.embedding.onnx_export import trace_transformer
    from icml_topics.embedding.precision import cosine_agreement, knn_agreement

    st = load_model()
    onnx_encoder(st, "int8")  # this machine's shipped export
    folder = export_dir(model_identity(st))
    tokenizer = folder / "tokenizer.json"
    work = Path(tempfile.mkdtemp(prefix="int8-graphs-"))
    atexit.register(shutil.rmtree, work, ignore_errors=True)  # the graphs: hundreds of MB
    raw = work / "raw.onnx"
    trace_transformer(st, raw)
    logging.getLogger().setLevel(logging.ERROR)  # the MatMulNBits quantiser logs every tensor
    config = st[0].auto_model.config
    variants, notes = build(raw, work, config.num_attention_heads, config.hidden_size)
    runners = {
        REFERENCE: Runner(folder / ONNX_PATHS["fp32-onnx"], tokenizer, args.sessions),
        SHIPPED: Runner(folder / ONNX_PATHS["int8"], tokenizer, args.sessions, profile=work / "profile"),
    }
    runners.update({label: Runner(path, tokenizer, args.sessions) for label, path in variants.items()})

    texts = load_texts(DATA, args.n, 0)
    seconds, vectors = time_interleaved(runners, texts, 50, args.rounds)
    profile = runners[SHIPPED].profile(texts[:60])
    reference = vectors[REFERENCE]
    done = args.rounds * len(texts)
    lines = [
        f"{args.n} ICML abstracts (256 tokens max), {args.rounds} rounds, {args.sessions} one-thread sessions, "
        f"one text per graph run, variants interleaved in chunks of 50; quality against the fp32 ONNX graph. "
        f"CPU: {cpu_model()} ({cpu_flags()}).\n",
        "| graph | docs/s | vs shipped int8 | mean cosine | min cosine | 10-NN agreement |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label in runners:
        v = vectors[label]
        cos = cosine_agreement(reference, v)
        lines.append(
            f"| {label} | {done / seconds[label]:.1f} | {seconds[SHIPPED] / seconds[label]:.2f} | {cos.mean():.4f} | "
            f"{cos.min():.4f} | {float(knn_agreement(reference, v).mean()):.3f} |"
        )
    lines += ["", *notes, "", "Where the shipped int8 graph's time goes (60 abstracts, one session):", ""]
    lines += ["| operator | share |", "| --- | ---: |"] + [f"| {op} | {share:.1%} |" for op, share in profile]
    emit("\n".join(lines) + "\n", args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
