"""The optional LLM namer (``OpenAINamer``, issue 49 item 5) against a real HTTP server on the loopback interface
that each test starts (``http.server`` in a thread, serving ``/v1/chat/completions``): the names it gives are
used, its answers are cached (a second fit sends no request), a server that does not answer in time or answers
nonsense leaves the offline names in place (said once at info level), and no request is sent when no namer is
given. The conftest refuses the network; these tests let ``urlopen`` reach 127.0.0.1 only."""

from __future__ import annotations

import copy
import json
import logging
import pickle
import re
import threading
import time
import urllib.parse
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from icml_topics import OpenAINamer, TopicMap
from icml_topics.errors import InvalidValueError
from icml_topics.stages.llm_names import llm_levels

REAL_URLOPEN = urllib.request.urlopen  # taken at import, before the conftest's guard replaces it
SEEDS = Path(__file__).resolve().parents[2] / "icml_topics" / "data" / "icml-2026-seed-abstracts.jsonl"
WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()


class Endpoint:
    """What the loopback server does (``mode``) and what it received (``requests``: the JSON bodies)."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.given = 0  # names handed out so far: each one distinct
        self.url = ""

    def reply(self, body: dict) -> tuple[int, str]:
        prompt = body["messages"][-1]["content"]
        n = len(re.findall(r"^Group \d+ \(", prompt, re.M))
        if self.mode == "slow":
            time.sleep(1.5)
        if self.mode == "html":
            return 200, "<html>not an API</html>"
        if self.mode == "http-500":
            return 500, "{}"
        names = {}
        for i in range(1, n + 1):
            names[str(i)] = f"subject {WORDS[self.given % 16]} {self.given}"
            self.given += 1
        content = json.dumps({"names": names})
        if self.mode == "prose":
            content = "Sure! Here are some names: subject one, subject two."
        return 200, json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})


@pytest.fixture
def loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """``urlopen`` reaches 127.0.0.1 and nothing else (the conftest refuses every address)."""

    def loopback_only(request, *args, **kwargs):
        url = request.full_url if isinstance(request, urllib.request.Request) else str(request)
        assert urllib.parse.urlsplit(url).hostname == "127.0.0.1", f"network access attempted: {url}"
        return REAL_URLOPEN(request, *args, **kwargs)

    monkeypatch.setattr("urllib.request.urlopen", loopback_only)
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")


@pytest.fixture
def endpoint(loopback: None):
    state = Endpoint()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append(body)
            state.headers.append(dict(self.headers))
            status, text = (404, "{}") if self.path != "/v1/chat/completions" else state.reply(body)
            data = text.encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (the timeout test)
                pass

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads, server.block_on_close = True, False
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    yield state
    server.shutdown()
    server.server_close()


def _tree_names(tm: TopicMap) -> dict[tuple[int, int], str]:
    tree = tm.topic_tree_
    return {(int(lv), int(t)): str(name) for lv, t, name in zip(tree["level"], tree["topic"], tree["label"])}


def test_the_endpoints_names_are_used_and_a_second_fit_sends_no_request(endpoint, tmp_path, seeds_fitted):
    namer = OpenAINamer(endpoint.url, "loopback-model", timeout=20, cache_dir=tmp_path / "answers")
    two_levels = (10, 4)  # 38 papers get one level by default: two, so a level is named under an LLM name
    tm = TopicMap(random_state=0, topic_namer=namer, topic_sizes=two_levels).fit(SEEDS)
    sent = len(endpoint.requests)
    assert sent >= 2  # one request per sibling group, top-down
    names = _tree_names(tm)
    assert names and [n for n in names.values() if not re.fullmatch(r"subject [a-z]+ \d+", n)] == []
    assert set(tm.topics_["label"]) <= set(names.values())
    # the prompt holds each node's keyphrases and titles, its parent's name, and asks for one name per sibling
    prompts = "\n".join(r["messages"][-1]["content"] for r in endpoint.requests)
    assert "Keyphrases: " in prompts and "Titles of its most central papers:" in prompts
    abstracts = pd.read_json(SEEDS, lines=True)["abstract"]  # no titles: a paper shows its first words
    assert sum(" ".join(a.split()[:10]) in prompts for a in abstracts) >= len(abstracts) // 2
    assert any(
        f'subtopic of "{theme}"' in prompts or f'subtopics of "{theme}"' in prompts for theme in tm.themes_["theme"]
    )
    assert any(f'of "{name}"' in prompts for name in names.values())  # a lower level under an LLM name
    assert {r["model"] for r in endpoint.requests} == {"loopback-model"}
    # a second fit of the same papers: every answer from the cache, the same names
    again = TopicMap(
        random_state=0,
        topic_namer=OpenAINamer(endpoint.url, "loopback-model", cache_dir=tmp_path / "answers"),
        topic_sizes=two_levels,
    ).fit(SEEDS)
    assert len(endpoint.requests) == sent
    assert _tree_names(again) == names
    assert _tree_names(seeds_fitted) != names  # the offline names are other names


def test_a_server_that_does_not_answer_in_time_leaves_the_offline_names_and_says_so_once(
    endpoint, tmp_path, seeds_fitted, caplog
):
    endpoint.mode = "slow"
    namer = OpenAINamer(endpoint.url, "loopback-model", timeout=0.3, cache_dir=tmp_path / "answers")
    with caplog.at_level(logging.INFO, logger="icml_topics"):
        tm = TopicMap(random_state=0, topic_namer=namer).fit(SEEDS)
    assert _tree_names(tm) == _tree_names(seeds_fitted)  # the offline names, every one
    assert len(endpoint.requests) == 1  # asked once, then no more for this fit
    lines = [r for r in caplog.records if "could not answer" in r.getMessage()]
    assert len(lines) == 1 and lines[0].levelno == logging.INFO
    assert "no answer within 0.3 s" in lines[0].getMessage() and endpoint.url in lines[0].getMessage()
    assert not list((tmp_path / "answers").glob("*.json"))  # a failure is not cached: the next fit asks again


def test_no_request_is_sent_when_no_namer_is_given(endpoint):
    TopicMap(random_state=0).fit(SEEDS)
    OpenAINamer(endpoint.url, "loopback-model")  # making a namer sends nothing either
    assert endpoint.requests == []


# ------------------------------------------------------------------ answers checked node by node

LABELS = np.array([[0, 4], [0, 4], [1, 4], [1, 4], [2, 5], [2, 5], [3, 5], [3, 5]])  # finest, coarser
PARENTS = [{0: 4, 1: 4, 2: 5, 3: 5}, {4: -1, 5: -1}]
THEMES = ["Graphs"] * 4 + ["Diffusion"] * 4
TITLES = [f"Paper {i} on {w}" for i, w in enumerate(WORDS[:8])]
KEYWORDS = [{n: [f"phrase {WORDS[n]}"] for n in range(4)}, {4: ["graphs"], 5: ["diffusion"]}]
OFFLINE = [{0: "offline zero", 1: "offline one", 2: "offline two", 3: "offline three"}, {4: "graph", 5: "diffusion"}]
ORDER = [{n: list(np.flatnonzero(LABELS[:, 0] == n)) for n in range(4)}, {4: [0, 1, 2, 3], 5: [4, 5, 6, 7]}]


def _levels(namer) -> list[dict[int, str]]:
    return llm_levels(namer, LABELS, PARENTS, THEMES, TITLES, TITLES, KEYWORDS, OFFLINE, ORDER)


class Scripted:
    """A sibling namer that returns what a test scripts per parent (the checks are the tree side's)."""

    def __init__(self, answers: dict[str, list]) -> None:
        self.answers = answers

    def name_siblings(self, group, cache_dir=None):
        return self.answers[group.parent]


def test_each_unusable_answer_falls_back_to_its_offline_name_alone(caplog):
    namer = Scripted(
        {
            "Graphs": ["Graph neural networks"],
            "Diffusion": ["Score-based diffusion"],
            "Graph neural networks": ["x" * 81, "message passing"],  # too long: that node alone falls back
            "Score-based diffusion": ["Score-based diffusion", None],  # its parent's name; no name
        }
    )
    with caplog.at_level(logging.INFO, logger="icml_topics"):
        names = _levels(namer)
    assert names[1] == {4: "Graph neural networks", 5: "Score-based diffusion"}
    assert names[0] == {0: "offline zero", 1: "message passing", 2: "offline two", 3: "offline three"}
    [line] = [r.getMessage() for r in caplog.records if "not kept" in r.getMessage()]
    assert "3 of 6 answers not kept" in line


def test_a_name_given_twice_in_a_level_is_kept_once_and_never_shadows_an_offline_name():
    namer = Scripted(
        {
            "Graphs": ["Spectral methods"],
            "Diffusion": ["Sampling"],
            "Spectral methods": ["Graph transformers", "offline two"],  # node 1 takes node 2's offline name
            "Sampling": ["graph transformer", "Consistency models"],  # node 2: node 0's name again (a plural away)
        }
    )
    names = _levels(namer)[0]
    assert names[0] == "Graph transformers" and names[3] == "Consistency models"
    assert names[2] == "offline two" and names[1] == "offline one"  # both fell back; no two nodes share a name
    assert len(set(names.values())) == 4


@pytest.mark.parametrize("mode", ["prose", "html", "http-500"])
def test_malformed_replies_keep_the_offline_names(endpoint, mode, caplog):
    endpoint.mode = mode
    with caplog.at_level(logging.INFO, logger="icml_topics"):
        names = _levels(OpenAINamer(endpoint.url, "loopback-model", timeout=5))
    assert names == OFFLINE
    lines = [r for r in caplog.records if "offline names" in r.getMessage()]
    assert len(lines) == 1 and lines[0].levelno == logging.INFO
    if mode == "prose":
        assert len(endpoint.requests) == 4  # every group asked: the server answers, only not usably
    else:
        assert len(endpoint.requests) == 1  # not a chat completion: asked once


def test_the_answers_of_a_good_endpoint_are_cached_by_content(endpoint, tmp_path):
    first = _levels(OpenAINamer(endpoint.url, "loopback-model", cache_dir=tmp_path))
    assert len(endpoint.requests) == 4 and first[1][4].startswith("subject ")
    assert _levels(OpenAINamer(endpoint.url, "loopback-model", cache_dir=tmp_path)) == first
    assert len(endpoint.requests) == 4  # all from the cache
    _levels(OpenAINamer(endpoint.url, "another-model", cache_dir=tmp_path))
    assert len(endpoint.requests) == 8  # another model: other answers


def test_a_large_sibling_group_is_asked_in_parts_each_told_its_siblings_names(endpoint):
    namer = OpenAINamer(endpoint.url, "loopback-model", max_group=1)
    names = _levels(namer)
    assert len(endpoint.requests) == 6  # 2 top-level nodes (one per theme), then 4 finest, one per request
    prompts = [r["messages"][-1]["content"] for r in endpoint.requests]
    told = [p for p in prompts if "already have these names" in p]
    assert len(told) == 2  # the second child of each of the two parents
    assert any(f"(use none of them): {names[0][0]}." in p for p in told)
    assert any(f"(use none of them): {names[0][2]}." in p for p in told)


def test_the_key_is_sent_but_never_saved_pickled_or_shown(endpoint, tmp_path, monkeypatch, caplog):
    namer = OpenAINamer(endpoint.url, "loopback-model", api_key="sk-very-secret-1234")
    _levels(namer)
    assert endpoint.headers[0]["Authorization"] == "Bearer sk-very-secret-1234"
    assert b"sk-very-secret" not in pickle.dumps(namer) and "sk-very-secret" not in repr(namer)
    assert copy.deepcopy(namer).api_key == "sk-very-secret-1234"  # clone() in this process keeps it
    tm = TopicMap(random_state=0, topic_namer=namer).fit(SEEDS)
    tm.save(tmp_path / "model")
    for path in (tmp_path / "model").rglob("*"):
        assert not path.is_file() or b"sk-very-secret" not in path.read_bytes(), path
    with caplog.at_level(logging.WARNING, logger="icml_topics"):  # recorded by name only: a folder chooses no URL
        assert TopicMap.load(tmp_path / "model").topic_namer is None
    assert any("topic_namer=<a OpenAINamer object> is ignored" in r.getMessage() for r in caplog.records)
    assert TopicMap.load(tmp_path / "model", topic_namer=namer).topic_namer is namer
    monkeypatch.setenv("MY_LLM_KEY", "from-the-environment")
    _levels(OpenAINamer(endpoint.url, "other", api_key_env="MY_LLM_KEY"))
    assert endpoint.headers[-1]["Authorization"] == "Bearer from-the-environment"
    _levels(OpenAINamer(endpoint.url, "third"))
    assert "Authorization" not in endpoint.headers[-1]  # no key unless one is given


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"base_url": "file:///etc/passwd", "model": "m"}, "base_url"),
        ({"base_url": "http://127.0.0.1:8080/v1", "model": " "}, "model"),
        ({"base_url": "http://127.0.0.1:8080/v1", "model": "m", "timeout": 0}, "timeout"),
        ({"base_url": "http://127.0.0.1:8080/v1", "model": "m", "max_group": 0}, "max_group"),
    ],
)
def test_a_namer_with_a_bad_setting_is_refused_with_the_fix(kwargs, word):
    with pytest.raises(InvalidValueError, match=word):
        OpenAINamer(**kwargs)


# ------------------------------------------------------------------ the command line


def test_fit_names_the_tree_with_the_namer_given_on_the_command_line(endpoint, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from icml_topics.cli import app

    monkeypatch.setenv("LOOPBACK_KEY", "cli-key-5678")
    args = ["fit", str(SEEDS), "--out", str(tmp_path / "out"), "--random-state", "0", "--maps", "none", "-q"]
    model = f"cli-model-{uuid.uuid4().hex[:8]}"  # answers are cached by model and prompt: none from an earlier run
    result = CliRunner().invoke(
        app, [*args, "--namer-url", endpoint.url, "--namer-model", model, "--namer-key-env", "LOOPBACK_KEY"]
    )
    assert result.exit_code == 0, result.output
    topics = pd.read_csv(tmp_path / "out" / "topics.csv")
    assert topics["label"].str.fullmatch(r"subject [a-z]+ \d+").all()
    assert {r["model"] for r in endpoint.requests} == {model}
    assert {h["Authorization"] for h in endpoint.headers} == {"Bearer cli-key-5678"}
    for path in (tmp_path / "out").rglob("*"):
        assert not path.is_file() or b"cli-key-5678" not in path.read_bytes(), path


def test_fit_on_the_command_line_says_once_that_the_namer_did_not_answer(loopback, tmp_path, seeds_fitted):
    import socket

    from typer.testing import CliRunner

    from icml_topics.cli import app

    with socket.socket() as probe:  # a loopback port with nothing listening: the connection is refused
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    args = ["fit", str(SEEDS), "--out", str(tmp_path / "out"), "--random-state", "0", "--maps", "none"]
    result = CliRunner().invoke(app, [*args, "--namer-url", url, "--namer-model", "m"])
    assert result.exit_code == 0, result.output
    assert result.output.count("could not answer") == 1 and url in result.output
    topics = pd.read_csv(tmp_path / "out" / "topics.csv")
    assert sorted(topics["label"]) == sorted(seeds_fitted.topics_["label"])  # the offline names


@pytest.mark.parametrize(
    "extra, said",
    [
        (["--namer-url", "http://127.0.0.1:9/v1"], "--namer-model"),
        (["--namer-model", "m"], "--namer-url"),
        (["--namer-url", "http://127.0.0.1:9/v1", "--namer-model", "m", "--namer-key-env", "NO_SUCH_VAR_49"], "export"),
        (["--namer-url", "ftp://127.0.0.1/v1", "--namer-model", "m"], "http://"),
    ],
)
def test_an_incomplete_namer_option_is_one_clear_line_before_any_work(tmp_path, extra, said):
    from typer.testing import CliRunner

    from icml_topics.cli import app

    result = CliRunner().invoke(app, ["fit", str(SEEDS), "--out", str(tmp_path / "out"), *extra])
    assert result.exit_code == 2 and said in result.output, result.output
    assert not (tmp_path / "out").exists()
