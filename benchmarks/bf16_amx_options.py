"""What bf16 on a CPU's matrix units (AMX-BF16, through torch's oneDNN) brings against the shipped int8-ct2 path.

Every variant embeds the same ICML abstracts; the chunks are **interleaved** across the variants (chunk 1 on
every variant, then chunk 2, ...), so load from other processes hits them alike. Reports docs/s, the ratio to
sentence-transformers fp32 and to ``int8-ct2``, and mean / min cosine and 10-NN agreement against
sentence-transformers fp32. Variants:

- ``sentence-transformers fp32``: ``SentenceTransformer.encode``, batch 32, torch on every core (the reference);
- ``int8-ct2``: ``embed``'s own encoder of that path (one text per run on one-thread CTranslate2 replicas);
- ``bf16 autocast, batch 32``: ``embed``'s ``bf16`` path (torch autocast; batched, so a vector depends on its
  batch-mates' padding);
- ``bf16, one text per run, prepacked``: BERT's forward written out on torch ops, weights in bf16 prepacked once
  for oneDNN (``torch.ops.mkldnn._linear_pointwise``, AMX where the CPU has it), softmax and layer norms in bf16
  with fp32 accumulation, one text per run on one-thread workers (so every text gets the same vector alone or
  in any batch, as the shipped paths do);
- ``bf16, one text per run, TransformerEncoderLayer``: the same weights in torch's own encoder layer, whose
  inference fast path runs a layer as one native call.

Not shipped: none of the bf16 variants reaches ``int8-ct2``'s speed on the 2-core Xeon with AMX it was written
on (``results/bf16_amx_options.md``). The last section is a per-operator profile of the prepacked variant on
one thread: where the time goes.

    python benchmarks/bf16_amx_options.py --n 300 --out benchmarks/results/bf16_amx_options.md
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _interleave import emit, share_out, time_interleaved  # noqa: E402
from _machine import cpu_flags, cpu_model  # noqa: E402

from benchmarks.embedding_throughput import DATA, load_texts  # noqa: E402

REFERENCE = "sentence-transformers fp32, batch 32"
SHIPPED = "int8-ct2 (embed's encoder)"


class OneTextBf16:
    """bf16 BERT forward of one text per run on one-thread workers; mean-pooled, L2-normalised rows."""

    def __init__(self, st, workers: int, *, encoder_layer: bool) -> None:
        import torch

        self.torch, self.tokenizer, self.limit = torch, st.tokenizer, st.max_seq_length
        model = st[0].auto_model
        config, weights = model.config, {k: v.detach() for k, v in model.state_dict().items()}
        self.heads, self.width, self.eps = config.num_attention_heads, config.hidden_size, config.layer_norm_eps
        self.embeddings = [weights[f"embeddings.{n}"] for n in ("word_embeddings.weight", "position_embeddings.weight")]
        self.embeddings.append(weights["embeddings.token_type_embeddings.weight"][0])
        self.embedding_norm = (weights["embeddings.LayerNorm.weight"], weights["embeddings.LayerNorm.bias"])
        scale = (self.width // self.heads) ** -0.5
        self.layers = []
        for i in range(config.num_hidden_layers):
            w = {k[len(f"encoder.layer.{i}.") :]: v for k, v in weights.items() if k.startswith(f"encoder.layer.{i}.")}
            qkv = [w[f"attention.self.{p}.weight"] for p in ("query", "key", "value")]
            qkv_bias = [w[f"attention.self.{p}.bias"] for p in ("query", "key", "value")]
            parts = {
                "qkv": (torch.cat(qkv), torch.cat(qkv_bias)),
                "out": (w["attention.output.dense.weight"], w["attention.output.dense.bias"]),
                "norm1": (w["attention.output.LayerNorm.weight"], w["attention.output.LayerNorm.bias"]),
                "ffn1": (w["intermediate.dense.weight"], w["intermediate.dense.bias"]),
                "ffn2": (w["output.dense.weight"], w["output.dense.bias"]),
                "norm2": (w["output.LayerNorm.weight"], w["output.LayerNorm.bias"]),
            }
            self.layers.append(self._encoder_layer(parts, config) if encoder_layer else self._prepacked(parts, scale))
        self.forward = self._forward_layers if encoder_layer else self._forward_prepacked
        self.workers = workers
        self.pool = ThreadPoolExecutor(workers)

    def _prepacked(self, parts: dict, scale: float) -> dict:
        torch, bf16 = self.torch, self.torch.bfloat16
        wqkv, bqkv = (t.clone() for t in parts["qkv"])
        wqkv[: self.width] *= scale  # the attention scale folded into the query projection
        bqkv[: self.width] *= scale
        parts = {**parts, "qkv": (wqkv, bqkv)}
        packed = {}
        for name, (weight, bias) in parts.items():
            if name.startswith("norm"):
                packed[name] = (weight.to(bf16), bias.to(bf16))
            else:
                packed[name] = (torch.ops.mkldnn._reorder_linear_weight(weight.to(bf16), None), bias.to(bf16))
        return packed

    def _encoder_layer(self, parts: dict, config) -> object:
        torch = self.torch
        layer = torch.nn.TransformerEncoderLayer(
            self.width, self.heads, config.intermediate_size, dropout=0.0, activation="gelu",
            layer_norm_eps=self.eps, batch_first=True, norm_first=False,
        )  # fmt: skip
        targets = {
            "qkv": (layer.self_attn.in_proj_weight, layer.self_attn.in_proj_bias),
            "out": (layer.self_attn.out_proj.weight, layer.self_attn.out_proj.bias),
            "norm1": (layer.norm1.weight, layer.norm1.bias),
            "ffn1": (layer.linear1.weight, layer.linear1.bias),
            "ffn2": (layer.linear2.weight, layer.linear2.bias),
            "norm2": (layer.norm2.weight, layer.norm2.bias),
        }
        with torch.no_grad():
            for name, (weight, bias) in targets.items():
                weight.copy_(parts[name][0])
                bias.copy_(parts[name][1])
        return layer.eval().to(torch.bfloat16)

    def _embed(self, ids):
        torch = self.torch
        word, position, token_type = self.embeddings
        x = word[ids] + position[: len(ids)] + token_type
        return torch.nn.functional.layer_norm(x, (self.width,), *self.embedding_norm, self.eps).to(torch.bfloat16)

    def _forward_prepacked(self, ids):
        torch = self.torch
        functional, linear = torch.nn.functional, torch.ops.mkldnn._linear_pointwise
        n, heads = len(ids), self.heads
        x = self._embed(ids)
        for layer in self.layers:
            q, k, v = linear(x, *layer["qkv"], "none", [], "").view(n, 3, heads, -1).permute(1, 2, 0, 3)
            context = torch.bmm(torch.softmax(torch.bmm(q, k.transpose(1, 2)), -1), v).transpose(0, 1).reshape(n, -1)
            attended = linear(context, *layer["out"], "none", [], "") + x
            h = functional.layer_norm(attended, (self.width,), *layer["norm1"], self.eps)
            f = functional.gelu(linear(h, *layer["ffn1"], "none", [], ""))
            x = functional.layer_norm(
                linear(f, *layer["ffn2"], "none", [], "") + h, (self.width,), *layer["norm2"], self.eps
            )
        return x

    def _forward_layers(self, ids):
        x = self._embed(ids)[None]
        for layer in self.layers:
            x = layer(x)
        return x[0]

    def one(self, text: str) -> np.ndarray:
        torch = self.torch
        ids = torch.tensor(self.tokenizer(text, truncation=True, max_length=self.limit)["input_ids"])
        with torch.inference_mode():
            pooled = self.forward(ids).float().mean(0)
        return (pooled / pooled.norm()).numpy()

    def __call__(self, texts: list[str]) -> np.ndarray:
        torch, n = self.torch, self.workers
        before = torch.get_num_threads()
        torch.set_num_threads(1)  # one thread per text: a text's kernels do not depend on the machine's load
        try:
            return share_out(self.pool, n, lambda _, text: self.one(text), texts)
        finally:
            torch.set_num_threads(before)


def profile(runner: OneTextBf16, texts: list[str]) -> list[tuple[str, float]]:
    """Share of one-thread CPU time per torch operator over ``texts`` (the prepacked forward)."""
    import torch
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    torch.set_num_threads(1)
    with torch_profile(activities=[ProfilerActivity.CPU]) as prof:
        for text in texts:
            runner.one(text)
    rows = [(e.key, e.self_cpu_time_total) for e in prof.key_averages()]
    total = sum(us for _, us in rows)
    return [(op, us / total) for op, us in sorted(rows, key=lambda r: -r[1])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=300, help="ICML abstracts per round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="one-thread workers of the one-text variants")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    import torch

    from icml_topics.embedding import load_model
    from icml_topics.embedding.paths import path_encoder
    from icml_topics.embedding.precision import cosine_agreement, knn_agreement

    st = load_model()
    threads = torch.get_num_threads()
    runners: dict[str, Callable[[list[str]], np.ndarray]] = {
        REFERENCE: lambda batch: st.encode(batch, batch_size=32, normalize_embeddings=True),
        SHIPPED: path_encoder(st, "int8-ct2", "cpu"),
        "bf16 autocast, batch 32 (the bf16 path)": path_encoder(st, "bf16", "cpu"),
        "bf16, one text per run, prepacked": OneTextBf16(st, args.workers, encoder_layer=False),
        "bf16, one text per run, TransformerEncoderLayer": OneTextBf16(st, args.workers, encoder_layer=True),
    }
    texts = load_texts(DATA, args.n, 0)
    seconds, vectors = time_interleaved(runners, texts, 32, args.rounds)
    shares = profile(runners["bf16, one text per run, prepacked"], texts[:40])
    torch.set_num_threads(threads)

    done = args.rounds * len(texts)
    speed = {label: done / s for label, s in seconds.items()}
    reference = vectors[REFERENCE]
    lines = [
        "# bf16 on the CPU's matrix units vs the shipped int8-ct2 path",
        "",
        f"Command: `python benchmarks/bf16_amx_options.py --n {args.n} --rounds {args.rounds}`; "
        f"{cpu_model()} ({cpu_flags()}), torch {torch.__version__} with {threads} threads, "
        f"{args.workers} one-thread workers for the one-text variants; every variant interleaved chunk by chunk.",
        "",
        "| variant | docs/s | × st fp32 | × int8-ct2 | cos min | cos mean | 10-NN agreement |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label in runners:
        rows = vectors[label]
        cos = cosine_agreement(reference, rows)
        lines.append(
            f"| {label} | {speed[label]:.1f} | {speed[label] / speed[REFERENCE]:.2f} | "
            f"{speed[label] / speed[SHIPPED]:.2f} | {cos.min():.4f} | {cos.mean():.4f} | "
            f"{knn_agreement(reference, rows).mean():.3f} |"
        )
    lines += ["", "Per-operator share of one thread's CPU time, prepacked variant, 40 texts:", ""]
    lines += ["| operator | share |", "|---|---:|"]
    lines += [f"| {op} | {share:.1%} |" for op, share in shares[:8]]
    emit("\n".join(lines) + "\n", args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
