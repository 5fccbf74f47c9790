"""Fixtures of the dataset-loader tests (the no-network guard is the root ``tests/conftest.py``'s)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def empty_dataset_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The download cache points at an empty temporary folder; offline mode is off (the network is refused)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("ICML_TOPICS_DATA_DIR", str(cache))
    monkeypatch.delenv("ICML_TOPICS_OFFLINE", raising=False)
    return cache
