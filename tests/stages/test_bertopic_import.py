"""A fit imports BERTopic as it is (``stages/bertopic_import.py``): nothing held back or replaced.

The check runs in a fresh interpreter: the test process has BERTopic loaded already."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import BUNDLED_SEEDS


def _run(script: str, **env: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env={**os.environ, **env}, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_fit_on_the_machines_path_and_its_static_map_run_with_the_real_modules():
    result = _run(
        "import json, sys\n"
        "from icml_topics import TopicMap\n"
        "from icml_topics.plotting import plot_map_static\n"
        f"tm = TopicMap(random_state=42, cache=False).fit({str(BUNDLED_SEEDS)!r})\n"  # no stage cache: BERTopic runs
        "plot_map_static(tm.documents_)\n"
        "real = {n: getattr(sys.modules.get(n), '__file__', None) is not None\n"
        "    for n in ('bertopic', 'datashader.bundling', 'datamapplot')}\n"
        "print(json.dumps({'topics': int(len(tm.topics_)), 'real': real}))\n",
        ICML_TOPICS_DIRECT_BELOW="0",  # the machine's path even for 38 abstracts (smaller fits embed with fp32)
    )
    assert result["topics"] > 0
    # BERTopic and DataMapPlot (with datashader's edge bundling) are imported as themselves, nothing stands in
    assert result["real"] == {"bertopic": True, "datashader.bundling": True, "datamapplot": True}
