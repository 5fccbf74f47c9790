"""What static int8 (fixed, calibrated activation scales) brings over the default dynamic int8 path.

Builds static int8 variants of the packaged all-MiniLM-L6-v2 with ``onnxruntime.quantization.quantize_static``
(QDQ, int8 weights per channel, uint8 activations, min/max calibration on the first 64 texts of the
shipped guard sample), then embeds real ICML abstracts with each, **interleaved chunk by chunk**, and
reports docs/s, the ratio to the dynamic int8 path (one text per graph run, as ``embed`` runs it), and
mean / min cosine and 10-NN agreement against the fp32 ONNX graph. Static variants run texts of one
token length together (no padding), which keeps a text's vector bit-identical alone and in a batch.

    python benchmarks/static_int8_options.py --n 96 --out benchmarks/results/static_int8_options.md
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._interleave import emit  # noqa: E402
from benchmarks.embedding_throughput import DATA, load_texts  # noqa: E402


class Encoder:
    """Tokenise, run, mean-pool, normalise; ``same_length``: texts of one token length in one run."""

    def __init__(self, model: Path, tokenizer: Path, same_length: bool, threads: int) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self.inputs = [i.name for i in self.session.get_inputs()]
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        self.tokenizer.enable_truncation(256)
        self.same_length = same_length

    def __call__(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        groups: dict[int, list[int]] = {}
        for row, enc in enumerate(encodings):
            groups.setdefault(len(enc.ids) if self.same_length else -row - 1, []).append(row)
        out = np.empty((len(texts), 384), dtype=np.float32)
        for rows in groups.values():
            ids = np.array([encodings[r].ids for r in rows], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
            hidden = self.session.run(None, {k: feed[k] for k in self.inputs})[0]
            pooled = hidden.mean(axis=1)
            out[rows] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=96)
    parser.add_argument("--threads", type=int, default=2, help="intra-op threads (physical cores)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    import onnx
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static

    from icml_topics.embedding import load_model, model_identity
    from icml_topics.embedding.onnx_backend import ONNX_PATHS, export_dir, onnx_encoder
    from icml_topics.embedding.onnx_export import trace_transformer
    from icml_topics.embedding.precision import cosine_agreement, guard_sample, knn_agreement

    st = load_model()
    onnx_encoder(st, "int8")  # make sure this machine's export exists
    folder = export_dir(model_identity(st))
    tokenizer = folder / "tokenizer.json"
    work = Path(tempfile.mkdtemp(prefix="static-int8-"))
    atexit.register(shutil.rmtree, work, ignore_errors=True)  # the graphs: hundreds of MB
    raw = work / "raw.onnx"
    names = trace_transformer(st, raw)
    graph = onnx.load(str(raw)).graph
    weights = {i.name for i in graph.initializer}
    producer = {o: n for n in graph.node for o in n.output}
    matmuls = [n for n in graph.node if n.op_type == "MatMul"]
    attention = [n.name for n in matmuls if not any(i in weights for i in n.input)]
    ffn_out = [n.name for n in matmuls if n.input[0] in producer and producer[n.input[0]].op_type == "Mul"]
    calibration = list(guard_sample())[:64]

    class Reader:
        def __init__(self) -> None:
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(tokenizer))
            tok.enable_truncation(256)
            self.feeds = []
            for enc in tok.encode_batch(calibration):
                ids = np.array([enc.ids], dtype=np.int64)
                feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
                self.feeds.append({k: feed[k] for k in names})
            self.i = 0

        def get_next(self):
            self.i += 1
            return self.feeds[self.i - 1] if self.i <= len(self.feeds) else None

        def rewind(self) -> None:
            self.i = 0

    variants = {
        "static: every MatMul": [],
        "static: FFN outputs fp32": ffn_out,
        "static: FFN outputs + attention products fp32": ffn_out + attention,
    }
    encoders = {
        "fp32 ONNX (fused)": Encoder(folder / ONNX_PATHS["fp32-onnx"], tokenizer, False, args.threads),
        "dynamic int8 (default, one text per run)": Encoder(
            folder / ONNX_PATHS["int8"], tokenizer, False, args.threads
        ),
    }
    build_seconds = {}
    for label, excluded in variants.items():
        target = work / f"{len(build_seconds)}.onnx"
        t0 = time.perf_counter()
        quantize_static(
            str(raw),
            str(target),
            Reader(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul"],
            nodes_to_exclude=excluded,
            calibrate_method=CalibrationMethod.MinMax,
        )
        build_seconds[label] = time.perf_counter() - t0
        encoders[label] = Encoder(target, tokenizer, True, args.threads)

    texts = sorted(load_texts(DATA, args.n, 0), key=len, reverse=True)
    seconds = dict.fromkeys(encoders, 0.0)
    vectors = {k: [] for k in encoders}
    for enc in encoders.values():
        enc(texts[:4])
    for start in range(0, len(texts), 32):
        chunk = texts[start : start + 32]
        for label, enc in encoders.items():
            t0 = time.perf_counter()
            vectors[label].append(enc(chunk))
            seconds[label] += time.perf_counter() - t0
    reference = np.vstack(vectors["fp32 ONNX (fused)"])
    dynamic = seconds["dynamic int8 (default, one text per run)"]
    lines = [
        f"{args.n} ICML abstracts (256 tokens max), {args.threads} intra-op threads, ORT_ENABLE_ALL, interleaved "
        "in chunks of 32; quality against the fp32 ONNX graph.\n",
        "| path | docs/s | vs dynamic int8 | mean cosine | min cosine | 10-NN agreement | build s |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label in encoders:
        v = np.vstack(vectors[label])
        cos = cosine_agreement(reference, v)
        knn = float(knn_agreement(reference, v).mean())
        built = f"{build_seconds[label]:.1f}" if label in build_seconds else ""
        lines.append(
            f"| {label} | {len(texts) / seconds[label]:.1f} | {dynamic / seconds[label]:.2f} | {cos.mean():.4f} | "
            f"{cos.min():.4f} | {knn:.3f} | {built} |"
        )
    emit("\n".join(lines) + "\n", args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
