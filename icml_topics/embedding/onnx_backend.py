"""Exported paths for sentence-transformers models, made once per machine: fp32 and dynamic int8 on ONNX
Runtime, and int8 on CTranslate2 (``ct2_backend``) where the model converts.

The export uses the ecosystem's own tools, offline, from the already-loaded model: ``torch.onnx.export``
of the transformer, ONNX Runtime's BERT graph optimiser (fused attention, GELU, layer norms) and
``onnxruntime.quantization.quantize_dynamic`` (int8 weights, per channel, every MatMul); then CTranslate2's
converter (``ct2-int8/``). Tokenising uses the model's own fast tokenizer (``tokenizers``); pooling (mean or
CLS) and L2 normalisation are done as sentence-transformers does them.

The files live in the user cache (``<cache root>/onnx/<key>/``), where ``key`` hashes the model's
identity, the ONNX Runtime and CTranslate2 versions, the CPU's features and the export recipe, so a new
model, a new runtime or a moved cache never reuses a stale graph. A folder is written atomically (built in a
temporary folder, then renamed) and verified on every load: SHA-256 of each file against its
manifest, and a probe sentence whose vector must match the fp32 vector recorded at export time.
A broken or stale folder is removed and rebuilt.

Examples:
    >>> from icml_topics.embedding import load_model
    >>> from icml_topics.embedding.onnx_backend import onnx_encoder
    >>> encode = onnx_encoder(load_model(), "int8")
    >>> encode(["Graph neural networks."]).shape
    (1, 384)
"""

from __future__ import annotations

import atexit
import hashlib
import json
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from icml_topics.errors import InvalidValueError

from .._io import sha256_file
from . import ct2_backend
from .cache import machine_dir
from .ct2_backend import ct2_unsupported_reason, ct2_version
from .identity import model_identity
from .onnx_export import export, stage
from .onnx_layout import CT2_PATH, EXPORTED_PATHS, MANIFEST, ONNX_PATHS, PROBE, PROBE_MIN_COSINE, RECIPE
from .precision import cpu_features

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = [
    "CT2_PATH",
    "EXPORTED_PATHS",
    "ONNX_PATHS",
    "OnnxEncoder",
    "export_dir",
    "export_ready",
    "forget_sessions",
    "install_export",
    "onnx_encoder",
    "onnx_unsupported_reason",
    "stage_export",
]

logger = logging.getLogger("icml_topics")

MAX_SESSIONS = 8
"""At most this many ONNX Runtime sessions per encoder; more CPU threads are shared out among them."""

_sessions: dict[tuple[str, str, int], OnnxEncoder] = {}
_checked: dict[tuple[str, str], int] = {}  # (folder, path) -> manifest mtime of a verified export
_lock = threading.Lock()
_process_root: Path | None = None  # the export folder of this process when the machine folder is read-only


def forget_sessions() -> None:
    """Drop the ONNX Runtime sessions loaded in this process: the next call reads (and checks) the export again
    (and looks again whether the machine folder can be written)."""
    global _process_root
    with _lock:
        _sessions.clear()
        _checked.clear()
        _process_root = None


def onnx_root() -> Path:
    """Folder of exported models: ``<machine dir>/onnx`` (``machine_dir``)."""

    return machine_dir() / "onnx"


def onnx_unsupported_reason(st: SentenceTransformer) -> str | None:
    """Why ``st`` cannot run on ONNX Runtime here (``None`` when it can)."""
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError as exc:
        return f"onnxruntime/tokenizers are not installed ({exc})"
    modules = list(st)
    if len(modules) < 2 or type(modules[0]).__name__ != "Transformer" or type(modules[1]).__name__ != "Pooling":
        return "the model is not a Transformer + Pooling sentence-transformers model"
    if any(type(m).__name__ not in {"Normalize"} for m in modules[2:]):
        return "the model has modules after pooling other than Normalize"
    if _pooling_mode(st) is None:
        return "only mean and CLS pooling are supported on ONNX Runtime"
    if getattr(getattr(st, "tokenizer", None), "backend_tokenizer", None) is None:
        return "the model has no fast (tokenizers) tokenizer"
    return None


def _pooling_mode(st: SentenceTransformer) -> str | None:
    """``"mean"`` or ``"cls"`` when the Pooling module does exactly that (old and new config styles), else None."""
    config = st[1].get_config_dict()
    mode = config.get("pooling_mode")
    if isinstance(mode, str):
        modes = {mode}
    else:
        modes = {k[len("pooling_mode_") :] for k, v in config.items() if k.startswith("pooling_mode_") and v is True}
    aliases = {"mean": "mean", "mean_tokens": "mean", "cls": "cls", "cls_token": "cls"}
    if len(modes) == 1 and next(iter(modes)) in aliases and config.get("include_prompt", True):
        return aliases[next(iter(modes))]
    return None


def export_key(model_id: str) -> str:
    """Folder name for ``model_id`` on this machine: identity, ONNX Runtime and CTranslate2 versions, CPU
    features, recipe."""
    import onnxruntime

    parts = [model_id, onnxruntime.__version__, ct2_version() or "no-ctranslate2", cpu_features(), RECIPE]
    name = model_id.split("@", 1)[0].replace("/", "_")
    return f"{name}-{hashlib.sha256('|'.join(parts).encode()).hexdigest()[:16]}"


def export_dir(model_id: str, root: Path | None = None) -> Path:
    return Path(root or writable_onnx_root()) / export_key(model_id)


def writable_onnx_root() -> Path:
    """``onnx_root``, or, when that folder cannot be written (a read-only machine folder), one temporary
    folder for this process: the export is then made again in every process, but the same graphs are
    used, so the vectors (and the topics) do not depend on whether the machine folder is writable."""
    global _process_root
    root = onnx_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=root).close()
        return root
    except OSError as exc:
        with _lock:
            if _process_root is None:
                _process_root = Path(tempfile.mkdtemp(prefix="icml-topics-onnx-"))
                atexit.register(shutil.rmtree, _process_root, ignore_errors=True)
                logger.warning(
                    "cannot write the ONNX export folder %s (%s); exporting into %s for this process only. "
                    "Set ICML_TOPICS_MACHINE_DIR to a writable folder to make the export once per machine",
                    root,
                    exc.strerror or type(exc).__name__,
                    _process_root,
                )
        return _process_root


class OnnxEncoder:
    """Embed batches of texts with an exported model: tokenise, run, pool, L2-normalise (float32 rows).

    ``path`` is an ONNX graph (``int8``, ``fp32-onnx``) or the CTranslate2 model (``int8-ct2``). ``threads``
    CPU threads (default: every CPU this process may use) run as that many one-thread workers (ONNX Runtime
    sessions, CTranslate2 replicas), each embedding its share of a batch, up to ``MAX_SESSIONS`` (more
    threads are shared out among ONNX sessions). One text per run on one-thread sessions was 1.2x faster
    than one two-thread session on 2 Xeon cores (300 ICML abstracts), and every text still gets the same vector.
    """

    def __init__(self, folder: Path, path: str, max_tokens: int, *, threads: int | None = None) -> None:
        from tokenizers import Tokenizer

        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        self.folder, self.path, self.max_tokens = folder, path, int(max_tokens)
        self.pooling = manifest["pooling"]
        total = max(1, threads or _thread_count())
        n_workers = min(total, MAX_SESSIONS)
        if path == CT2_PATH:
            self.sessions = [ct2_backend.encoder(folder, n_workers)] * n_workers  # one encoder, n replicas
            self._hidden = lambda encoding, model: ct2_backend.hidden_states(model, encoding.ids)
        else:
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.intra_op_num_threads = max(1, total // n_workers)
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            model = str(folder / ONNX_PATHS[path])
            self.sessions = [
                ort.InferenceSession(model, options, providers=["CPUExecutionProvider"]) for _ in range(n_workers)
            ]
            self._inputs = [i.name for i in self.sessions[0].get_inputs()]
            self._hidden = self._run_graph
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.max_tokens)
        self.tokenizer.enable_padding(pad_id=int(manifest.get("pad_id", 0)))
        self._pool: ThreadPoolExecutor | None = None

    def __call__(self, batch: list[str]) -> np.ndarray:
        """One text per run: dynamic int8 quantisation scales activations by the whole input tensor, so a
        batch would make a text's vector depend on its batch-mates and their padding (CTranslate2 scales
        each token on its own, but its kernels for a padded batch are not the ones for one text). Run alone,
        a text always gets the same vector (a warm, a partial or a distributed run equals a cold one),
        whichever worker runs it."""
        if not batch:
            return np.zeros((0, 0), dtype=np.float32)
        n = min(len(self.sessions), len(batch))
        if n == 1:
            return np.vstack([self._encode_one(text, self.sessions[0]) for text in batch])
        if self._pool is None:
            self._pool = ThreadPoolExecutor(len(self.sessions), thread_name_prefix="icml-topics-onnx")
        shares = list(
            self._pool.map(lambda k: np.vstack([self._encode_one(t, self.sessions[k]) for t in batch[k::n]]), range(n))
        )
        out = np.empty((len(batch), shares[0].shape[1]), dtype=np.float32)
        for k, rows in enumerate(shares):
            out[k::n] = rows
        return out

    def _encode_one(self, text: str, session: Any) -> np.ndarray:
        encoding = self.tokenizer.encode(text)
        hidden = self._hidden(encoding, session)
        if self.pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            mask = np.array([encoding.attention_mask], dtype=np.float32)[..., None]
            pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)

    def _run_graph(self, encoding: Any, session: Any) -> np.ndarray:
        """The ONNX graph's last hidden states ``(1, tokens, width)`` for one tokenised text."""
        feed = {
            "input_ids": np.array([encoding.ids], dtype=np.int64),
            "attention_mask": np.array([encoding.attention_mask], dtype=np.int64),
            "token_type_ids": np.array([encoding.type_ids], dtype=np.int64),
        }
        return session.run(None, {k: feed[k] for k in self._inputs})[0]


def onnx_encoder(
    st: SentenceTransformer | None,
    path: str,
    *,
    model_id: str | None = None,
    max_tokens: int | None = None,
    root: Path | None = None,
) -> Callable[[list[str]], np.ndarray]:
    """An encoder for ``st`` on exported path ``path`` (``"int8"``, ``"fp32-onnx"`` or ``"int8-ct2"``), exporting
    it on first use.

    ``st=None`` with ``model_id``: the export made earlier (see ``export_ready``), so neither torch nor
    the model's weights are loaded. Raises ``ValueError`` when the model cannot run on that path (see
    ``onnx_unsupported_reason``, ``ct2_backend.ct2_unsupported_reason``).
    """

    if path not in EXPORTED_PATHS:
        raise InvalidValueError(f"unknown exported path {path!r}; use one of {', '.join(EXPORTED_PATHS)}")
    if st is None and model_id is None:
        raise InvalidValueError("onnx_encoder needs the model or, for an existing export, its model_id")
    reason = onnx_unsupported_reason(st) if st is not None else None
    if reason is None and st is not None and path == CT2_PATH:
        reason = ct2_unsupported_reason(st)
    if reason:
        raise InvalidValueError(f"cannot use precision={path!r}: {reason}; use precision='fp32'")
    model_id = model_id or model_identity(st)
    folder = export_dir(model_id, root)
    with _lock:
        if not _verified(folder, path):
            if st is None:
                raise InvalidValueError(f"no usable ONNX export of {model_id} in {folder}; pass the model to make it")
            _rebuild(st, folder)
            if not _verified(folder, path):
                raise RuntimeError(f"the ONNX export in {folder} failed its check right after being built")
        limit = int(max_tokens or (st.max_seq_length if st is not None else 0) or _manifest(folder)["max_tokens"])
        key = (str(folder), path, limit)
        if key not in _sessions:
            _sessions[key] = OnnxEncoder(folder, path, limit)
        return _sessions[key]


def export_ready(model_id: str, path: str, root: Path | None = None) -> bool:
    """Whether an intact export of ``model_id`` for ``path`` is on this machine (so no model load is needed)."""
    return path in EXPORTED_PATHS and _verified(export_dir(model_id, root), path)


def _manifest(folder: Path) -> dict[str, Any]:
    return json.loads((folder / MANIFEST).read_text(encoding="utf-8"))


def _verified(folder: Path, path: str) -> bool:
    """True when ``folder`` holds an intact export whose ``path`` graph reproduces the probe vector
    (checked once per process and folder while its manifest is unchanged)."""
    try:
        stamp = (folder / MANIFEST).stat().st_mtime_ns
    except OSError:
        stamp = None
    if stamp is not None and _checked.get((str(folder), path)) == stamp:
        return True
    ok = _check(folder, path)
    if ok and stamp is not None:
        _checked[(str(folder), path)] = stamp
    return ok


def _check(folder: Path, path: str) -> bool:
    try:
        manifest = _manifest(folder)
        if manifest.get("recipe") != RECIPE:
            raise InvalidValueError("made by another export recipe")
        if path not in manifest.get("paths", ONNX_PATHS):
            raise InvalidValueError(f"made without the {path} model")
        for name, digest in manifest["sha256"].items():
            if sha256_file(folder / name) != digest:
                raise InvalidValueError(f"{name} does not match its checksum")
        vector = OnnxEncoder(folder, path, int(manifest["max_tokens"]), threads=1)([PROBE])[0]
        reference = np.asarray(manifest["probe_vector"], dtype=np.float32)
        cosine = float(vector @ reference / max(np.linalg.norm(reference), 1e-12))
        if not cosine >= PROBE_MIN_COSINE[path]:
            raise InvalidValueError(f"probe cosine {cosine:.4f} < {PROBE_MIN_COSINE[path]}")
        return True
    except FileNotFoundError:
        if folder.exists():
            logger.warning("the exported ONNX model in %s is incomplete; rebuilding it", folder)
        return False
    except Exception as exc:  # damaged, truncated, stale: rebuild
        logger.warning("the exported ONNX model in %s is unusable (%s); rebuilding it", folder, exc)
        return False


def _rebuild(st: SentenceTransformer, folder: Path) -> None:
    """Export into a temporary sibling folder, then move it into place (replacing a broken one)."""
    tmp = _staging_folder(folder)
    try:
        export(st, tmp, pooling=_pooling_mode(st))
        install_export(tmp, folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def stage_export(st: SentenceTransformer, model_id: str) -> dict[str, Any] | None:
    """The torch half of the export of ``model_id`` (``onnx_export.stage``) in a temporary sibling of its folder,
    for a setup that runs the graph passes in a process of their own once this one has ended; returns the passes'
    spec (``onnx_export.finish``) with the folder to install into (``"folder"``), or None when the machine folder
    cannot be written (then the whole export is made where it is used)."""
    root = writable_onnx_root()
    if root != onnx_root():
        return None  # a per-process folder: gone when this process ends
    folder = export_dir(model_id, root)
    tmp = _staging_folder(folder)
    try:
        spec = stage(st, tmp, pooling=_pooling_mode(st))
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return {**spec, "folder": str(folder)}


def install_export(tmp: Path, folder: Path) -> None:
    """Move the finished export ``tmp`` into place as ``folder`` (replacing a broken one); ``tmp`` is left as it
    is when another process installed a good export meanwhile."""
    if folder.exists() and all(_verified(folder, path) for path in _manifest(tmp)["paths"]):
        return  # another process (e.g. a Dask worker) installed a good export meanwhile: keep it
    if folder.exists():
        trash = folder.with_name(f".{folder.name}.old-{os.getpid()}")
        os.replace(folder, trash)
        shutil.rmtree(trash, ignore_errors=True)
    os.replace(tmp, folder)


def _staging_folder(folder: Path) -> Path:
    folder.parent.mkdir(parents=True, exist_ok=True)
    logger.info(
        "exporting %s (ONNX Runtime fp32 + int8, CTranslate2 int8), once for this machine", folder.name.split("-")[0]
    )
    return Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))


def _thread_count() -> int:
    """``ICML_TOPICS_NUM_THREADS``, else ``OMP_NUM_THREADS``, else every CPU this process may use."""
    for name in ("ICML_TOPICS_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return _available_cpus()


def _available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
