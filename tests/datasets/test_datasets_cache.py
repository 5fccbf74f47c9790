"""Download cache and offline use of load_pmlr; the network function is replaced in every test."""

from __future__ import annotations

from pathlib import Path

import pytest

from icml_topics.datasets import (
    DatasetUnavailableError,
    get_cache_dir,
    load_pmlr,
    load_report,
    pmlr_cache_path,
)
from icml_topics.datasets.cache import http_get as real_http_get  # kept before the fixture replaces it

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "datasets"
SAMPLE_BIB = FIXTURES / "pmlr-v235-sample.bib"
URL_235 = "https://proceedings.mlr.press/v235/assets/bib/bibliography.bib"


class FakeNetwork:
    """Stands in for ``icml_topics.datasets.cache.http_get``: serves fixed bodies, records calls."""

    def __init__(self, responses: dict[str, bytes | Exception]) -> None:
        self.responses = responses
        self.calls: list[str] = []

    def __call__(self, url: str, **kwargs: object) -> bytes:
        self.calls.append(url)
        response = self.responses.get(url, OSError(f"no route to {url}"))
        if isinstance(response, Exception):
            raise response
        return response


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No cache folder or offline switch from the environment (conftest.py refuses any network access)."""
    monkeypatch.delenv("ICML_TOPICS_DATA_DIR", raising=False)
    monkeypatch.delenv("ICML_TOPICS_OFFLINE", raising=False)


def _serve(monkeypatch: pytest.MonkeyPatch, responses: dict[str, bytes | Exception]) -> FakeNetwork:
    fake = FakeNetwork(responses)
    monkeypatch.setattr("icml_topics.datasets.cache.http_get", fake)
    return fake


def test_download_is_cached_then_reused_offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = _serve(monkeypatch, {URL_235: SAMPLE_BIB.read_bytes()})
    df = load_pmlr(2024, cache_dir=tmp_path)
    assert fake.calls == [URL_235]
    cached = tmp_path / "pmlr" / "v235.bib"
    assert cached.read_bytes() == SAMPLE_BIB.read_bytes()
    assert [p.name for p in cached.parent.iterdir()] == ["v235.bib"]  # no temporary file left behind
    assert len(df) == 6 and set(df["year"]) == {2024} and set(df["venue"]) == {"ICML"}
    assert "PMLR volume 235 (ICML 2024)" in load_report(df).source

    again = load_pmlr(volume=235, cache_dir=tmp_path, offline=True)
    assert fake.calls == [URL_235]  # served from the cache
    assert again["id"].tolist() == df["id"].tolist()


def test_offline_without_cache_names_url_and_path(tmp_path: Path) -> None:
    with pytest.raises(DatasetUnavailableError) as info:
        load_pmlr(2019, cache_dir=tmp_path, offline=True)
    expected_path = tmp_path / "pmlr" / "v97.bib"
    message = str(info.value)
    assert "https://proceedings.mlr.press/v97/assets/bib/bibliography.bib" in message
    assert str(expected_path) in message
    assert info.value.path == expected_path
    assert info.value.url == "https://proceedings.mlr.press/v97/assets/bib/bibliography.bib"
    assert isinstance(info.value, RuntimeError)


def test_offline_environment_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = _serve(monkeypatch, {URL_235: SAMPLE_BIB.read_bytes()})
    monkeypatch.setenv("ICML_TOPICS_OFFLINE", "1")
    with pytest.raises(DatasetUnavailableError, match="network access is off"):
        load_pmlr(2024, cache_dir=tmp_path)
    assert fake.calls == []


def test_network_failure_is_a_clear_error_and_caches_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _serve(monkeypatch, {URL_235: OSError("Temporary failure in name resolution")})
    with pytest.raises(DatasetUnavailableError) as info:
        load_pmlr(235, cache_dir=tmp_path)
    assert "Temporary failure in name resolution" in str(info.value)
    assert str(tmp_path / "pmlr" / "v235.bib") in str(info.value)
    assert isinstance(info.value.__cause__, OSError)
    assert not (tmp_path / "pmlr" / "v235.bib").exists()


def test_non_bibtex_response_is_rejected_and_not_cached(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _serve(monkeypatch, {URL_235: b"<!DOCTYPE html><html><body>Rate limited</body></html>"})
    with pytest.raises(DatasetUnavailableError, match="not the expected file"):
        load_pmlr(2024, cache_dir=tmp_path)
    assert not (tmp_path / "pmlr" / "v235.bib").exists()


def test_damaged_cached_file_says_to_delete_it(tmp_path: Path) -> None:
    cached = pmlr_cache_path(235, tmp_path)
    cached.parent.mkdir(parents=True)
    cached.write_text("this is not bibtex\n", encoding="utf-8")
    with pytest.raises(ValueError, match="delete it"):
        load_pmlr(2024, cache_dir=tmp_path, offline=True)


def test_local_path_needs_no_cache_or_network(tmp_path: Path) -> None:
    df = load_pmlr(2024, path=SAMPLE_BIB, offline=True, cache_dir=tmp_path)
    assert len(df) == 6  # the sample's repeated key is kept, renamed
    assert not (tmp_path / "pmlr").exists()


def test_cache_dir_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ICML_TOPICS_DATA_DIR", str(tmp_path / "from-env"))
    assert get_cache_dir() == tmp_path / "from-env"
    assert get_cache_dir(tmp_path / "explicit") == tmp_path / "explicit"
    assert pmlr_cache_path(97) == tmp_path / "from-env" / "pmlr" / "v97.bib"
    monkeypatch.delenv("ICML_TOPICS_DATA_DIR")
    default = get_cache_dir()
    assert default.name == "datasets" and "icml_topics" in str(default)


def test_environment_cache_dir_is_used_for_downloads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _serve(monkeypatch, {URL_235: SAMPLE_BIB.read_bytes()})
    monkeypatch.setenv("ICML_TOPICS_DATA_DIR", str(tmp_path / "env-cache"))
    load_pmlr(2024)
    assert (tmp_path / "env-cache" / "pmlr" / "v235.bib").is_file()


def test_load_pmlr_without_volume_year_or_path_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="load_pmlr needs a volume, a year or a path"):
        load_pmlr()


def test_http_get_sends_a_user_agent_and_a_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    class Response:
        def __enter__(self) -> Response:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def read(self) -> bytes:
            return b"@InProceedings{k, title={T}}"

    def fake_urlopen(request: object, timeout: float) -> Response:
        seen["url"] = request.full_url  # type: ignore[attr-defined]
        seen["agent"] = request.get_header("User-agent")  # type: ignore[attr-defined]
        seen["timeout"] = timeout
        return Response()

    monkeypatch.setattr("urllib.request.urlopen", fake_urlopen)
    assert real_http_get(URL_235, timeout=12.5) == b"@InProceedings{k, title={T}}"
    assert seen["url"] == URL_235
    assert str(seen["agent"]).startswith("icml-topics/")
    assert seen["timeout"] == 12.5
