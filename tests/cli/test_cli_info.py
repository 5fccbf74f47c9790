"""``icml-topics info``: the embedding path chosen for this machine, with its guard figures (real guard)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from icml_topics.cli import app
from icml_topics.embedding.guard import guard_sample
from icml_topics.embedding.precision import PRECISIONS


def test_info_decides_and_shows_the_embedding_path_with_its_figures():
    runner = CliRunner()
    result = runner.invoke(app, ["info", "--decide", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output[result.output.index("{") :])
    path = data["embedding_path"]
    assert path["precision"] in PRECISIONS and path["precision"] != "auto"
    assert path["n_sample"] == len(guard_sample()) and path["fp32_docs_per_second"] > 0
    for report in path["guard"]:
        assert {"candidate", "passed", "reason"} <= set(report)
    text = runner.invoke(app, ["info"])
    assert text.exit_code == 0, text.output
    assert f"embedding path (precision='auto'): {path['precision']}" in text.output
    assert "embedding cache:" in text.output
