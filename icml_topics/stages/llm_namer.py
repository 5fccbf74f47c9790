"""``OpenAINamer``: tree names from any OpenAI-compatible chat-completions endpoint (a local llama.cpp server,
Ollama or vLLM, or a hosted one), asked only when ``TopicMap(topic_namer=OpenAINamer(...))`` is given.

One request names the children of one parent together (``stages/llm_names.py``): the prompt gives the
parent's name and, for each sibling, its keyphrases and its most representative titles, and asks for one
distinct name per sibling as JSON. A parent with more than ``max_group`` children is asked in parts, each
later part told the names its siblings already got. Answers are cached on disk by the request's content
(the model, the prompt), in ``cache_dir`` or else the fit's cache folder, so a second fit of the same
papers sends no request. The standard library's ``urllib`` sends it (proxies as the environment sets them);
nothing is installed for it.

The API key is never written anywhere: not in a saved model (which records only that a namer was used), not
in a pickle (a pickled namer has no key: give ``api_key_env``, the name of an environment variable read at
each request, to use one across processes), not in its ``repr``.

    >>> namer = OpenAINamer("http://127.0.0.1:8080/v1", "llama-3.1-8b-instruct", timeout=30)
    >>> namer
    OpenAINamer(base_url='http://127.0.0.1:8080/v1', model='llama-3.1-8b-instruct', timeout=30.0)
"""

from __future__ import annotations

import copy
import http.client
import json
import math
import os
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from icml_topics._version import __version__
from icml_topics.errors import InvalidValueError
from icml_topics.stages.llm_names import NamerUnavailable, SiblingGroup
from icml_topics.store.cache import cached_json, content_key

__all__ = ["OpenAINamer", "parse_names", "prompt_messages"]

_VERSION = "llm-names-v1"  # change when the prompt changes meaning: cached answers are then asked again
_MAX_REPLY = 2_000_000  # bytes read from a reply at most
_SYSTEM = (
    "You name groups of {corpus} for a topic map that researchers read. Each group is a set of papers on one "
    "subject. Give each group the name a researcher would write as a subject heading: 2 to 6 words, saying "
    "what most of its papers are about, specific enough to tell it apart from its sibling groups. Use the "
    "papers' own terms; keep an acronym with its long form where the papers give it (e.g. 'RL with "
    "verifiable rewards (RLVR)'). Never a generic word alone ('optimization', 'learning', 'models', "
    "'agents'), never the parent topic's name. Give every group a different name. Answer with JSON only, no "
    'other text: {{"names": {{"1": "<name of group 1>", "2": "<name of group 2>", ...}}}}.'
)


def prompt_messages(
    group: SiblingGroup, *, named: tuple[str, ...] = (), corpus: str = "machine-learning research papers"
) -> list[dict[str, str]]:
    """The chat messages that ask for ``group``'s names (``named``: names its other siblings already got).

    Examples:
        >>> from icml_topics.stages.llm_names import NodeBrief
        >>> group = SiblingGroup("Graph learning", 0, (NodeBrief(7, 30, ("graph neural networks",), ("GNNs",)),))
        >>> prompt_messages(group)[1]["content"].splitlines()[0]
        'This group is a subtopic of "Graph learning"; name it for what its papers are about.'
    """
    under = f'of "{group.parent}"' if group.parent else "of the papers without a research theme"
    if len(group.nodes) == 1:
        lines = [f"This group is a subtopic {under}; name it for what its papers are about."]
    else:
        lines = [
            f"These {len(group.nodes)} groups are subtopics {under}; name each so that it is told apart from the others."
        ]
    if named:
        lines.append("Their sibling groups already have these names (use none of them): " + "; ".join(named) + ".")
    # the offline name is not shown: it may be a word chosen for contrast, and the model should read the papers
    for i, brief in enumerate(group.nodes, start=1):
        lines += ["", f"Group {i} ({brief.size} papers)"]
        if brief.keyphrases:
            lines.append("Keyphrases: " + ", ".join(brief.keyphrases))
        if brief.titles:
            lines.append("Titles of its most central papers:")
            lines += [f"- {title}" for title in brief.titles]
    numbers = ", ".join(f'"{i}": "..."' for i in range(1, len(group.nodes) + 1))
    lines += ["", f'Answer with JSON only: {{"names": {{{numbers}}}}}']
    return [{"role": "system", "content": _SYSTEM.format(corpus=corpus)}, {"role": "user", "content": "\n".join(lines)}]


def _json_object(text: str) -> Any:
    """The first JSON object in ``text`` (a reply may wrap it in a code fence or a sentence), or ``None``."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            return decoder.raw_decode(text, start)[0]
        except ValueError:
            start = text.find("{", start + 1)
    return None


def parse_names(content: str, n: int) -> list[str | None]:
    """One candidate per group from a reply: ``{"names": {"1": ..., "2": ...}}`` (or a list of ``n`` names, or
    the numbered object alone); ``None`` for a group the reply gives no text for.

    Examples:
        >>> parse_names('```json\\n{"names": {"1": "KV-cache compression", "2": 5}}\\n```', 2)
        ['KV-cache compression', None]
        >>> parse_names("I cannot help with that.", 2)
        [None, None]
    """
    found = _json_object(content)
    names = found.get("names", found) if isinstance(found, dict) else None
    if isinstance(names, list):
        names = {str(i): v for i, v in enumerate(names, start=1)} if len(names) == n else {}
    if not isinstance(names, dict):
        return [None] * n
    return [v if isinstance(v := names.get(str(i)), str) else None for i in range(1, n + 1)]


def _positive(name: str, value: Any, low: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= low:
        raise InvalidValueError(f"OpenAINamer({name}={value!r}): use a number above {low:g}.")
    return float(value)


class OpenAINamer:
    """Names the topic tree's nodes with a language model behind an OpenAI-compatible chat-completions endpoint.

    Args:
        base_url: the API's base address, up to and including ``/v1``, e.g. ``"http://127.0.0.1:8080/v1"``
            (llama.cpp's server), ``"http://localhost:11434/v1"`` (Ollama), ``"https://api.openai.com/v1"``;
            requests go to ``<base_url>/chat/completions``.
        model: the model name the endpoint serves, e.g. ``"llama-3.1-8b-instruct"``.
        api_key: the key sent as ``Authorization: Bearer``; kept in memory only (not pickled, saved or shown).
        api_key_env: the name of an environment variable holding the key, read at each request (used when
            ``api_key`` is ``None``); no key is sent when neither is given.
        timeout: seconds to wait for the endpoint (each connection and read); then the fit keeps the offline names.
        cache_dir: folder of the cached answers; ``None``: ``trees/llm-names/`` in the fit's cache folder (none when
            the fit has none: ``cache=False`` or ``random_state=None``).
        max_group: siblings named in one request at most (a parent with more children is asked in parts).
        n_titles: titles shown per node (its most representative papers).
        n_keyphrases: keyphrases shown per node.
        corpus: what the papers are, in the prompt's words.

    Examples:
        >>> from icml_topics import OpenAINamer, TopicMap
        >>> namer = OpenAINamer("http://127.0.0.1:8080/v1", "qwen2.5-7b-instruct", api_key_env="LLM_KEY")
        >>> tm = TopicMap(topic_namer=namer).fit("papers.jsonl")
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        api_key_env: str | None = None,
        timeout: float = 60.0,
        cache_dir: str | os.PathLike | None = None,
        max_group: int = 12,
        n_titles: int = 8,
        n_keyphrases: int = 10,
        corpus: str = "machine-learning research papers",
    ) -> None:
        parts = urllib.parse.urlsplit(base_url) if isinstance(base_url, str) else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise InvalidValueError(
                f"OpenAINamer(base_url={base_url!r}): use an http:// or https:// address of an OpenAI-compatible API, "
                "e.g. 'http://127.0.0.1:8080/v1'."
            )
        if not isinstance(model, str) or not model.strip():
            raise InvalidValueError(f"OpenAINamer(model={model!r}): use the name of a model the endpoint serves.")
        for name, value in (("api_key", api_key), ("api_key_env", api_key_env), ("corpus", corpus)):
            if value is not None and not isinstance(value, str):
                raise InvalidValueError(f"OpenAINamer({name}=<{type(value).__name__}>): use a string or None.")
        for name, value in (("max_group", max_group), ("n_titles", n_titles), ("n_keyphrases", n_keyphrases)):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1000:
                raise InvalidValueError(f"OpenAINamer({name}={value!r}): use an integer from 1 to 1000.")
        self.base_url = base_url.rstrip("/")
        self.model = model.strip()
        self.api_key = api_key
        self.api_key_env = api_key_env
        self.timeout = _positive("timeout", timeout)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.max_group, self.n_titles, self.n_keyphrases, self.corpus = max_group, n_titles, n_keyphrases, corpus

    def __repr__(self) -> str:
        return f"OpenAINamer(base_url={self.base_url!r}, model={self.model!r}, timeout={self.timeout!r})"

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "api_key": None}  # a pickle (a child process's input, a file) carries no key

    def __deepcopy__(self, memo: dict) -> OpenAINamer:
        twin = copy.copy(self)  # clone(TopicMap(topic_namer=...)) in this process keeps the key
        twin.__dict__ = {k: copy.deepcopy(v, memo) for k, v in self.__dict__.items()}
        return twin

    def _key(self) -> str | None:
        if self.api_key:
            return self.api_key
        return os.environ.get(self.api_key_env) or None if self.api_key_env else None

    def name_siblings(self, group: SiblingGroup, cache_dir: Path | None = None) -> list[str | None]:
        """One candidate name per node of ``group``, from the cache or the endpoint (in parts of ``max_group``).

        Args:
            group: the siblings to name.
            cache_dir: the fit's cache folder (its answers go to ``llm-names/`` in it), used when the namer
                has no ``cache_dir`` of its own.

        Raises:
            NamerUnavailable: the endpoint did not answer in time, refused, or did not answer a chat completion.

        Examples:
            >>> namer.name_siblings(group, None)
            ['KV-cache compression', 'speculative decoding']
        """
        folder = self.cache_dir or (Path(cache_dir) / "llm-names" if cache_dir is not None else None)
        out: list[str | None] = []
        for start in range(0, len(group.nodes), self.max_group):
            part = SiblingGroup(group.parent, group.level, group.nodes[start : start + self.max_group])
            named = tuple(n for n in out if n)
            messages = prompt_messages(part, named=named, corpus=self.corpus)
            out += self._names(messages, len(part.nodes), folder)
        return out

    def _names(self, messages: list[dict[str, str]], n: int, folder: Path | None) -> list[str | None]:
        body = {"model": self.model, "messages": messages, "temperature": 0}
        key = content_key(_VERSION, self.model, json.dumps(messages, sort_keys=True))
        unusable: list[list[str | None]] = []

        def ask() -> dict:
            names = parse_names(self._post(body), n)
            if not any(names):
                unusable.append(names)
                raise _Unusable  # not cached: the next fit asks again
            return {"names": names}

        def valid(value: object) -> bool:
            return isinstance(value, dict) and isinstance(value.get("names"), list) and len(value["names"]) == n

        try:
            return list(cached_json(key, ask, folder, check=valid)["names"])
        except _Unusable:
            return unusable[0]

    def _post(self, body: dict) -> str:
        """The reply's text (``choices[0].message.content``); ``NamerUnavailable`` when there is none."""
        url = f"{self.base_url}/chat/completions"
        headers = {"Content-Type": "application/json", "User-Agent": f"icml-topics/{__version__}"}
        key = self._key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        request = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read(_MAX_REPLY)
        except urllib.error.HTTPError as exc:
            raise NamerUnavailable(f"{url} answered HTTP {exc.code}") from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError) or "timed out" in str(reason):
                reason = f"no answer within {self.timeout:g} s"
            raise NamerUnavailable(f"{url}: {reason}") from None
        try:
            content = json.loads(raw.decode("utf-8"))["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            content = None
        if not isinstance(content, str):
            raise NamerUnavailable(f"{url} did not answer a chat completion (choices[0].message.content)")
        return content


class _Unusable(Exception):
    """An answer with no usable name: returned, not cached."""
