"""The layout of an exported model folder, shared by the exporter (``onnx_export``) and its reader
(``onnx_backend``): the graph file of each precision path, the manifest's name, the export recipe and the
probe sentence whose vector proves an export intact. Neither module imports the other for these.

Examples:
    >>> from icml_topics.embedding.onnx_layout import EXPORTED_PATHS, ONNX_PATHS
    >>> ONNX_PATHS["int8"], EXPORTED_PATHS
    ('model_int8.onnx', ('int8', 'fp32-onnx', 'int8-ct2'))
"""

from __future__ import annotations

__all__ = ["CT2_PATH", "EXPORTED_PATHS", "MANIFEST", "ONNX_PATHS", "PROBE", "PROBE_MIN_COSINE", "RECIPE"]

ONNX_PATHS = {"int8": "model_int8.onnx", "fp32-onnx": "model.onnx"}
"""Precision path -> ONNX graph of the exported folder."""
CT2_PATH = "int8-ct2"
"""The CTranslate2 path, whose model lives in the same folder (``ct2_backend.CT2_FOLDER``)."""
EXPORTED_PATHS = (*ONNX_PATHS, CT2_PATH)
RECIPE = "torch.onnx.export-opset17+ort-bert-optimizer+quantize_dynamic-qint8-per-channel-v1+ct2-int8-v1"
PROBE = "Offline reinforcement learning with conservative value estimates for policy optimization."
PROBE_MIN_COSINE = {"int8": 0.97, "fp32-onnx": 0.999, CT2_PATH: 0.97}
MANIFEST = "manifest.json"
