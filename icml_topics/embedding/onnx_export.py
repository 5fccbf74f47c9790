"""Export a sentence-transformers model to ONNX Runtime graphs (fp32 and dynamic int8) and CTranslate2 (int8),
once per machine.

Two halves. ``stage`` needs torch and the loaded model: ``torch.onnx.export`` traces the transformer,
CTranslate2's converter reads the model (about a second for all-MiniLM-L6-v2), and the tokenizer and the
probe vector are written. ``finish`` needs neither: ONNX Runtime's BERT graph optimiser (fused attention,
GELU, layer norms) and ``quantize_dynamic`` (int8 weights, per channel, every MatMul), then the manifest. It
runs in a child process that never imports torch (``run_passes``: ``python -m icml_topics.embedding.onnx_export
SPEC``; where no child can be started, here): the two graph passes keep about 500 MB resident in the process
that runs them (a peak of about 1.2 GB, measured on all-MiniLM-L6-v2), so in a child they leave the guard and
the fit that follow with only what the trace needed. ``export`` runs both; the once-per-machine setup
(``setup_child``) runs ``finish`` only after the process that ran ``stage`` has ended.

Examples:
    >>> from icml_topics.embedding.onnx_export import export
    >>> export(load_model(), Path("folder"), pooling="mean")
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._child import run_module
from .._io import sha256_file
from .ct2_backend import convert, ct2_unsupported_reason, ct2_version
from .onnx_layout import CT2_PATH, MANIFEST, ONNX_PATHS, PROBE, RECIPE

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = [
    "INPUT_NAMES",
    "export",
    "finish",
    "fuse_bert",
    "optimise_and_quantise",
    "quantise_int8",
    "run_passes",
    "stage",
    "trace_transformer",
]

logger = logging.getLogger("icml_topics")

INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
"""Graph inputs, in this order, of those the model's tokenizer makes."""


def export(st: SentenceTransformer, out: Path, *, pooling: str | None) -> None:
    """Write the fp32 and int8 graphs of ``st``, its tokenizer and a manifest (checksums, probe vector) into ``out``."""
    _in_child(stage(st, out, pooling=pooling))


def stage(st: SentenceTransformer, out: Path, *, pooling: str | None) -> dict[str, Any]:
    """The half of ``export`` that needs torch and the loaded model: the traced graph, the CTranslate2 model, the
    tokenizer and the probe vector, written into ``out``. Returns the spec of the other half (``finish``: the graph
    passes and the manifest), which needs neither, so a process that has ended can leave it to another."""
    import onnxruntime
    import torch

    config = st[0].auto_model.config
    raw = out / "raw.onnx"
    trace_transformer(st, raw)
    paths, files = list(ONNX_PATHS), list(ONNX_PATHS.values())
    ct2_files = _convert_ct2(st, out)
    if ct2_files:
        paths.append(CT2_PATH)
        files += ct2_files
    tokenizer = st.tokenizer
    (out / "tokenizer.json").write_text(tokenizer.backend_tokenizer.to_str(), encoding="utf-8")
    with torch.inference_mode():
        probe = st.encode([PROBE], convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False)[0]
    manifest: dict[str, Any] = {
        "recipe": RECIPE,
        "onnxruntime": onnxruntime.__version__,
        "ctranslate2": ct2_version(),
        "paths": paths,
        "pooling": pooling,
        "max_tokens": int(st.max_seq_length or 512),
        "pad_id": int(tokenizer.pad_token_id or 0),
        "probe_vector": [float(x) for x in probe],
    }
    return {
        "raw": str(raw),
        "out": str(out),
        "model_type": getattr(config, "model_type", ""),
        "num_heads": int(getattr(config, "num_attention_heads", 0) or 0),
        "hidden_size": int(getattr(config, "hidden_size", 0) or 0),
        "manifest": manifest,
        "files": [*files, "tokenizer.json"],
    }


def finish(raw: str, out: str, model_type: str, num_heads: int, hidden_size: int, manifest: dict, files: list) -> None:
    """The half of ``export`` without torch (the spec ``stage`` returns): the graph passes
    (``optimise_and_quantise``), then the manifest with every file's checksum, written last."""
    optimise_and_quantise(raw, out, model_type, num_heads, hidden_size)
    folder = Path(out)
    record = {**manifest, "sha256": {name: sha256_file(folder / name) for name in files}}
    (folder / MANIFEST).write_text(json.dumps(record), encoding="utf-8")


def _convert_ct2(st: SentenceTransformer, out: Path) -> list[str]:
    """The CTranslate2 int8 model of ``st`` in ``out`` (``ct2_backend.convert``); ``[]`` when the model cannot be
    converted here, or the conversion fails (the ONNX paths are kept, the guard then never offers ``int8-ct2``)."""
    reason = ct2_unsupported_reason(st)
    if reason is not None:
        logger.debug("no CTranslate2 model: %s", reason)
        return []
    try:
        return convert(st, out)
    except Exception as exc:  # a converter that fails must not cost the ONNX paths
        logger.warning(
            "CTranslate2 could not convert the model (%s: %s); its int8-ct2 path is not offered",
            type(exc).__name__,
            exc,
        )
        return []


def trace_transformer(st: SentenceTransformer, raw: Path) -> list[str]:
    """Trace ``st``'s transformer (eager attention, opset 17, dynamic batch and sequence axes) to the plain
    ONNX graph ``raw``, before any fusion or quantisation; returns the graph's input names, in order."""
    import torch

    transformer = st[0].auto_model
    config = transformer.config
    previous = getattr(config, "_attn_implementation", None)
    sample = st.tokenizer(["a short text", "a somewhat longer text for the export"], padding=True, return_tensors="pt")
    names = [n for n in INPUT_NAMES if n in sample]

    class Wrapper(torch.nn.Module):
        def __init__(self, model: torch.nn.Module) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            return self.model(**dict(zip(names, inputs))).last_hidden_state

    try:
        # eager attention exports as plain MatMul/Softmax, which ONNX Runtime fuses into its Attention op
        if hasattr(transformer, "set_attn_implementation"):
            transformer.set_attn_implementation("eager")
        else:  # pragma: no cover - older transformers
            config._attn_implementation = "eager"
        with torch.inference_mode(False), torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer notes about shape-dependent branches of the HF code
            torch.onnx.export(
                Wrapper(transformer.eval()).to("cpu"),
                tuple(sample[n].to("cpu") for n in names),
                str(raw),
                input_names=names,
                output_names=["last_hidden_state"],
                dynamic_axes={n: {0: "batch", 1: "sequence"} for n in [*names, "last_hidden_state"]},
                opset_version=17,
                dynamo=False,
            )
    finally:
        if previous is not None:
            if hasattr(transformer, "set_attn_implementation"):
                transformer.set_attn_implementation(previous)
            else:  # pragma: no cover
                config._attn_implementation = previous
        transformer.to(st.device)
    return names


def _in_child(spec: dict[str, Any]) -> None:
    """``finish`` (the graph passes, the manifest) in a child process (here when none can be started)."""

    try:
        done = run_passes(spec)
    except OSError as exc:
        logger.debug("ONNX graph passes run in this process (no child: %s)", exc)
        finish(**spec)
        return
    if done.returncode != 0:
        raise RuntimeError(f"the ONNX graph passes failed (exit {done.returncode}): {done.stderr[-1500:].strip()}")


def run_passes(spec: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """``finish(**spec)`` as the child process ``python -m icml_topics.embedding.onnx_export SPEC``; raises
    ``OSError`` when no child can be started."""
    return run_module("icml_topics.embedding.onnx_export", json.dumps(spec))


def optimise_and_quantise(raw: str, out: str, model_type: str, num_heads: int, hidden_size: int) -> None:
    """Fuse the traced graph ``raw`` into ``out``'s fp32 graph (BERT models) and quantise that to int8; ``raw`` is removed."""
    folder = Path(out)
    fp32 = folder / ONNX_PATHS["fp32-onnx"]
    if model_type == "bert":
        fuse_bert(Path(raw), fp32, num_heads=num_heads, hidden_size=hidden_size)
        os.unlink(raw)
    else:
        os.replace(raw, fp32)
    quantise_int8(fp32, folder / ONNX_PATHS["int8"])


def fuse_bert(raw: Path, target: Path, *, num_heads: int, hidden_size: int, options: Any = None) -> None:
    """ONNX Runtime's BERT optimiser (fused attention, GELU, layer norms) on ``raw``, written to ``target``;
    ``options``: an ``onnxruntime.transformers.fusion_options.FusionOptions`` (default: all fusions).

    What ``optimizer.optimize_model(opt_level=1)`` does, in its two public steps: ONNX Runtime's basic graph
    optimisations (a session that saves its optimised graph, constant sharing off, as ``optimize_model`` sets),
    then the Python fusions (``opt_level=0``). The same graph, byte for byte; but ``optimize_by_onnxruntime``
    imports torch (for ``torch.version.hip``, read only for GPUs), which would cost the graph passes' process
    seconds and memory that the setup keeps in one process of its own."""
    import onnxruntime
    from onnxruntime.transformers import optimizer

    with tempfile.TemporaryDirectory(prefix="icml-topics-ort-basic-") as folder:
        basic = Path(folder) / "model_o1_cpu.onnx"
        settings = onnxruntime.SessionOptions()
        settings.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
        settings.optimized_model_filepath = str(basic)
        onnxruntime.InferenceSession(
            str(raw), settings, providers=["CPUExecutionProvider"], disabled_optimizers=["ConstantSharing"]
        )
        optimized = optimizer.optimize_model(
            str(basic),
            model_type="bert",
            num_heads=num_heads,
            hidden_size=hidden_size,
            opt_level=0,
            use_gpu=False,
            optimization_options=options,
        )
    optimized.save_model_to_file(str(target))


def quantise_int8(fp32: Path, target: Path) -> None:
    """The shipped int8 recipe: ``quantize_dynamic`` of ``fp32`` (int8 weights per channel, every MatMul)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # the quantiser logs every tensor at INFO and a "consider pre-processing" WARNING through the root logger
    # (``logging.warning`` even installs a stderr handler when the root has none): keep both off the terminal
    root = logging.getLogger()
    level, quiet = root.level, logging.NullHandler()
    root.addHandler(quiet)
    root.setLevel(max(level, logging.ERROR))
    try:
        quantize_dynamic(
            str(fp32),
            str(target),
            per_channel=True,
            weight_type=QuantType.QInt8,
            extra_options={"DefaultTensorType": 1},
        )  # 1 = FLOAT, for outputs of fused contrib ops
    finally:
        root.setLevel(level)
        root.removeHandler(quiet)


if __name__ == "__main__":  # pragma: no cover - run as the child process by run_passes()
    finish(**json.loads(sys.argv[1]))
