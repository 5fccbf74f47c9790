"""BERTopic imported without torch (its lightweight install's way), each optional part still there on use.

Each check runs in a fresh interpreter: the test process has torch loaded already."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import BUNDLED_SEEDS

from icml_topics.embedding.precision import EXPORTED_PRECISIONS


def _run(script: str, **env: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env={**os.environ, **env}, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_bertopic_imports_without_torch_and_its_optional_parts_load_on_first_use():
    result = _run(
        "import json, sys\n"
        "from icml_topics.stages.bertopic_import import import_bertopic\n"
        "bertopic = import_bertopic()\n"
        "light = {n: n in sys.modules for n in ('torch', 'transformers', 'sentence_transformers')}\n"
        "from bertopic.representation import TextGeneration, KeyBERTInspired\n"
        "from bertopic.backend import MultiModalBackend\n"
        "import sentence_transformers\n"
        "try:\n"
        "    bertopic.representation.no_such_name\n"
        "    missing = 'no error'\n"
        "except AttributeError as exc:\n"
        "    missing = str(exc)\n"
        "print(json.dumps({'light': light, 'text_generation': TextGeneration.__module__,\n"
        "    'multimodal': MultiModalBackend.__module__, 'keybert': KeyBERTInspired.__module__,\n"
        "    'torch_after': 'torch' in sys.modules, 'missing': missing}))\n"
    )
    assert result["light"] == {"torch": False, "transformers": False, "sentence_transformers": False}
    # the optional parts BERTopic left out are the real classes when asked for
    assert result["text_generation"] == "bertopic.representation._textgeneration"
    assert result["multimodal"] == "bertopic.backend._multimodal"
    assert result["keybert"] == "bertopic.representation._keybert"
    assert result["torch_after"] is True
    assert "no_such_name" in result["missing"]


def test_a_fit_whose_embeddings_are_on_onnx_never_loads_torch():
    result = _run(
        "import json, sys\n"
        "from icml_topics import TopicMap\n"
        "from icml_topics.embedding.cache import EmbeddingCache\n"
        "from icml_topics.embedding.models import known_identity\n"
        "from icml_topics.embedding.paths import decided_path\n"
        "from icml_topics._deferred_imports import DEFERRED, is_placeholder\n"
        "from icml_topics.plotting import plot_map_static\n"
        f"tm = TopicMap(random_state=42).fit({str(BUNDLED_SEEDS)!r})\n"
        "plot_map_static(tm.documents_)\n"
        "model_id = known_identity(None, EmbeddingCache(None).path.parent)[0]\n"
        "print(json.dumps({'path': decided_path(model_id, 'cpu'), 'torch': 'torch' in sys.modules,\n"
        "    'topics': int(len(tm.topics_)), 'unused': {n: is_placeholder(n) for n in DEFERRED}}))\n",
        ICML_TOPICS_DIRECT_BELOW="0",  # the machine's path even for 38 abstracts (smaller fits embed with fp32)
    )
    assert result["topics"] > 0
    # the slow modules of DataMapPlot's edge bundling and jsonschema's IRI check were never needed by the fit
    # and its static map: still placeholders (icml_topics._deferred_imports)
    assert result["unused"] == {"datashader.bundling": True, "rfc3987_syntax": True}
    if result["path"] not in EXPORTED_PRECISIONS:
        pytest.skip(f"this machine embeds on {result['path']}, a torch path")
    assert result["torch"] is False  # neither the embedding (ONNX Runtime, CTranslate2) nor BERTopic's import loaded it
