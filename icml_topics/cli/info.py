"""``icml-topics info``: versions, hardware, the embedding path chosen for this machine and why, the caches."""

from __future__ import annotations

import json
from typing import Any, Optional

import typer

from icml_topics.cli._common import DEBUG_HELP, cli_errors, setup_logging
from icml_topics.cli.app import app


def machine_info(decide: bool = False, model: Optional[str] = None) -> dict[str, Any]:
    """What ``icml-topics info`` shows, as a dict (``decide=True`` vets the paths now if never done).

    Examples:
        >>> machine_info()["embedding_path"]["precision"]
        'int8'
    """
    import platform
    from importlib import metadata

    from icml_topics.embedding import (  # lazy: keeps the CLI light
        EmbeddingCache,
        default_cache_dir,
        load_model,
        model_identity,
    )
    from icml_topics.embedding.onnx_backend import MANIFEST, export_dir, onnx_root  # lazy: keeps the CLI light
    from icml_topics.embedding.paths import (  # lazy: keeps the CLI light
        decision_file,
        precision_decisions,
        resolve_precision,
    )
    from icml_topics.embedding.precision import (  # lazy: keeps the CLI light
        cpu_features,
        cpu_has_native_bf16,
        hardware_fingerprint,
    )

    versions = {}
    packages = (
        "icml_topics",
        "torch",
        "onnxruntime",
        "ctranslate2",
        "sentence-transformers",
        "transformers",
        "bertopic",
    )
    for package in packages:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    st = load_model(model)
    device = str(st.device)
    model_id = model_identity(st)
    if decide:
        resolve_precision(model, device=device)
    key = f"{model_id}|{hardware_fingerprint(device)}"
    decision = precision_decisions().get(key)
    folder = export_dir(model_id, onnx_root())  # where it is kept; nothing is created
    try:
        export = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        export_state = {
            "folder": str(folder),
            "onnxruntime": export.get("onnxruntime"),
            "ctranslate2": export.get("ctranslate2"),
            "paths": export.get("paths", ["int8", "fp32-onnx"]),
            "recipe": export.get("recipe"),
        }
    except (OSError, ValueError):
        export_state = {"folder": str(folder), "state": "not exported yet"}
    cache = EmbeddingCache()
    try:
        stats = cache.stats()
    finally:
        cache.close()
    return {
        "versions": versions,
        "python": platform.python_version(),
        "hardware": {"device": device, "cpu": cpu_features(), "native_bf16": cpu_has_native_bf16()},
        "model": model_id,
        "embedding_path": decision or {"precision": None, "note": "not decided yet on this machine"},
        "decision_file": str(decision_file()),
        "onnx_export": export_state,
        "onnx_root": str(onnx_root()),
        "embedding_cache": {
            "path": str(default_cache_dir()),
            "entries": stats.get("entries"),
            "namespaces": stats.get("models"),
        },
    }


def _describe(info: dict[str, Any]) -> list[str]:
    lines = ["icml_topics " + str(info["versions"].get("icml_topics")) + f" (Python {info['python']})"]
    lines.append("  " + ", ".join(f"{k} {v}" for k, v in info["versions"].items() if k != "icml_topics" and v))
    hw = info["hardware"]
    lines.append(f"hardware: {hw['device']}; {hw['cpu']}; native bf16: {'yes' if hw['native_bf16'] else 'no'}")
    lines.append(f"model: {info['model']}")
    path = info["embedding_path"]
    if path.get("precision") is None:
        lines.append(
            "embedding path (precision='auto'): not decided yet on this machine "
            "(decided on the first fit of a large corpus, or now with `icml-topics info --decide`)"
        )
    else:
        lines.append(
            f"embedding path (precision='auto'): {path['precision']}  (decided {path.get('decided_at')}, "
            f"fp32 at {path.get('fp32_docs_per_second') or float('nan'):.1f} docs/s on the "
            f"{path.get('n_sample')}-text guard sample)"
        )
        for report in path.get("guard", []):
            lines.append(f"  {'PASS' if report.get('passed') else 'fail'}  {report.get('reason')}")
    lines.append(f"  stored in {info['decision_file']}")
    from icml_topics.embedding.corpus_rule import direct_below  # lazy: keeps the CLI light

    lines.append(f"  fits of fewer than {direct_below():,} papers embed with fp32 directly (no setup)")
    export = info["onnx_export"]
    paths = f" ({', '.join(export['paths'])})" if export.get("paths") else ""
    lines.append(f"exported model: {export.get('state') or 'ready'}{paths} in {export['folder']}")
    cache = info["embedding_cache"]
    lines.append(
        f"embedding cache: {cache['path']} ({cache['entries'] or 0} vectors; "
        f"{', '.join(cache['namespaces'] or []) or 'empty'})"
    )
    return lines


@app.command("info")
def info(
    decide: bool = typer.Option(False, "--decide", help="Choose the embedding path now if it was never chosen here."),
    model: Optional[str] = typer.Option(
        None, "--model", help="sentence-transformers model name or path. Default: bundled all-MiniLM-L6-v2."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print everything as JSON."),
    debug: bool = typer.Option(False, "--debug", help=DEBUG_HELP),
) -> None:
    """Show versions, hardware, the embedding path chosen for this machine (with its guard figures) and the caches.

    Example: icml-topics info --decide
    """
    setup_logging(quiet=not decide)
    with cli_errors(debug=debug):
        data = machine_info(decide=decide, model=model)
        typer.echo(json.dumps(data, indent=2, default=str) if as_json else "\n".join(_describe(data)))
