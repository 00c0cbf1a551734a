"""A model behind an OpenAI-compatible HTTP endpoint, called like an in-process GGUF (issue 34).

`--model http://HOST:PORT/v1#MODEL` (or `KALMA_LLM` set so) gives a `ServerLLM` instead of a `LocalLLM`:
llama.cpp's `llama-server`, llama-cpp-python's server (`python -m llama_cpp.server`) or vLLM. What it does:

- **chat / complete** — `/v1/chat/completions`, `/v1/completions`, with the run's seed, temperature, top-p,
  stop strings and token cap;
- **grammars** (the citation grammar, the judges' label grammars) are sent as GBNF text in the server's own
  field. Which field the server honours is **probed** once, with a grammar that admits one word no model
  would say unprompted: llama.cpp's and llama-cpp-python's `grammar`, then vLLM's `guided_grammar`, then
  vLLM's `structured_outputs.grammar`. A server that honours none is refused with an error naming it — a run
  that needs a grammar never runs unconstrained. The field found is in `header()["grammar"]`;
- **next-token log-probabilities** (G-Eval's 1–5 scores) from `/v1/completions` with `logprobs`;
- **robustness** — every request has a timeout and bounded retries with backoff on a refused connection, a
  timeout or a 5xx; what still fails, or answers with malformed JSON, raises `LLMError` naming the endpoint.
  A 503 with `Retry-After` (a server at its bound of requests in flight: `kalma-graph serve --max-in-flight`) is
  waited for as it says, for up to the request timeout, without using up the retries.
  The callers' run files are resumable, so the finished answers are kept and a re-run goes on.
- **API key** — `KALMA_API_KEY`, when set, is sent as `Authorization: Bearer KEY` (`kalma-graph serve --api-key`,
  llama.cpp's and vLLM's `--api-key`).

- **the chat template's text** (`chat_prompt`: `--cite grounded` continues the assistant's turn, G-Eval reads the
  next token after it) from llama.cpp's `/props`, else from the GGUF named after `#` when it is here.

Not over HTTP, except from `kalma-graph serve --scoring` (`models.serve`; raises `LLMError` saying so): the
log-probabilities of a given continuation (BioKaLMA's eq. 1 perplexities: llama-cpp-python's server shifts echoed
prompt log-probabilities by one position, and llama-server returns none). `kalma-graph serve` also computes G-Eval's
next-token log-probabilities exactly, where other servers give their top N.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence
from urllib.parse import urlsplit

from . import chat
from .chat import (
    Completion,
    GenerationParams,
    LLMError,
    is_endpoint,  # noqa: F401 - where callers have found it
)

if TYPE_CHECKING:
    from pathlib import Path

    import httpx

    from .protocols import GrammarLike

#: How a server takes a GBNF grammar, in the order probed: (name, request fields for grammar text).
GRAMMAR_STYLES: tuple[tuple[str, Any], ...] = (
    ("grammar", lambda text: {"grammar": text}),  # llama.cpp llama-server, llama-cpp-python
    ("guided_grammar", lambda text: {"guided_grammar": text}),  # vLLM < 0.11
    ("structured_outputs", lambda text: {"structured_outputs": {"grammar": text}}),  # vLLM >= 0.11
)
_PROBE_WORD = "kalmagraphprobe"
API_KEY_ENV = "KALMA_API_KEY"


class ServerRefused(LLMError):
    """The server answered a request with a 4xx: it will not do this (an unknown field, a bound it enforces)."""


@dataclass(frozen=True)
class Endpoint:
    """`http://host:port/v1#model`: the API base (ending in `/v1`) and the model name (empty: the server's first)."""

    base: str
    model: str = ""

    @classmethod
    def parse(cls, spec: str) -> "Endpoint":
        """
        >>> Endpoint.parse("http://127.0.0.1:8080/v1#qwen")
        Endpoint(base='http://127.0.0.1:8080/v1', model='qwen')
        >>> Endpoint.parse("http://gpu-box:8000")
        Endpoint(base='http://gpu-box:8000/v1', model='')
        """
        url, _, model = spec.partition("#")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise LLMError(f"{spec!r} is not a model endpoint: use http://HOST:PORT/v1#MODEL")
        base = url.rstrip("/")
        if not base.endswith("/v1"):
            base += "/v1"
        return cls(base, model)

    @property
    def root(self) -> str:
        return self.base[: -len("/v1")]


def grammar_text(grammar: object) -> str:
    """The GBNF text of what callers pass as `grammar=`: text, or `generation.grammar.Grammar`."""
    if isinstance(grammar, str):
        return grammar
    text = getattr(grammar, "text", None)
    if isinstance(text, str):
        return text
    raise LLMError(f"a model server takes grammars as GBNF text, not {type(grammar).__name__}")


class ServerLLM:
    """`LocalLLM`'s interface over HTTP. Thread-safe: requests share one connection pool, so callers may keep
    several in flight (`--concurrency`)."""

    def __init__(self, spec: str, *, seed: int = 0, timeout: float = 300.0, retries: int = 3,
                 backoff: float = 0.5, connections: int = 8, serves: str | None = None,
                 api_key: str | None = None) -> None:
        import httpx

        self.endpoint = Endpoint.parse(spec)
        self.seed = seed
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        key = api_key if api_key is not None else os.environ.get(API_KEY_ENV, "")
        headers = {"Authorization": f"Bearer {key.strip()}"} if key.strip() else {}
        self._client = httpx.Client(timeout=timeout, limits=httpx.Limits(max_connections=connections), headers=headers)
        self._lock = threading.Lock()
        self._grammar_style: str | None = None
        self._template: tuple[str, str, str] | None = None  # chat template, BOS text, EOS text
        self.model = self.endpoint.model or self._first_model()
        self._props = self._read_props()
        # llama.cpp's /props says the context size; other servers do not, and enforce their own (a prompt too long
        # for it is refused with the server's message)
        try:
            self.n_ctx = int(self._props["default_generation_settings"]["n_ctx"])
        except (KeyError, TypeError, ValueError):
            self.n_ctx = sys.maxsize
        # `kalma-graph serve` says which of LocalLLM's scoring methods it runs (`models.serve`)
        kalma = self._props.get("kalma_graph")
        self._kalma: dict = kalma if isinstance(kalma, dict) else {}
        self.scoring: frozenset[str] = frozenset(self._kalma.get("scoring") or ())
        self._local = self._local_file(serves)

    # --- plumbing ------------------------------------------------------------------------------
    def _request(self, method: str, url: str, body: Mapping[str, Any] | None = None) -> dict:
        """One request, retried on a refused connection, a timeout or a 5xx; JSON or a clear `LLMError`."""
        import httpx

        last = ""
        attempt, busy_until = 0, time.monotonic() + self.timeout
        while attempt <= self.retries:
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                response = self._client.request(method, url, json=body)
            except httpx.TransportError as exc:  # refused, reset, timed out, cut off
                last = f"{type(exc).__name__}: {exc}"
                attempt += 1
                continue
            wait = _retry_after(response)
            if wait is not None and time.monotonic() + wait < busy_until:  # busy: come back as it says
                time.sleep(wait)
                continue
            if response.status_code >= 500:
                last = f"HTTP {response.status_code}: {response.text[:200]}"
                attempt += 1
                continue
            if response.status_code == 401:
                raise ServerRefused(f"model server {url} refused the request: HTTP 401 (an API key is required): set "
                                    f"{API_KEY_ENV} to the server's key: {response.text[:200]}")
            if response.status_code >= 400:
                raise ServerRefused(f"model server {url} refused the request: HTTP {response.status_code}: "
                                    f"{response.text[:300]}")
            try:
                data = response.json()
            except ValueError:
                raise LLMError(f"model server {url} answered with malformed JSON: {response.text[:200]!r}") from None
            if not isinstance(data, dict):
                raise LLMError(f"model server {url} answered with {type(data).__name__}, not a JSON object")
            return data
        raise LLMError(f"model server {url} did not answer after {self.retries + 1} tries ({last}); "
                       "is it running? finished work is kept and a re-run resumes")

    def _first_model(self) -> str:
        data = self._request("GET", f"{self.endpoint.base}/models").get("data") or []
        if not data or "id" not in data[0]:
            raise LLMError(f"model server {self.endpoint.base} lists no model; name one: {self.endpoint.base}#MODEL")
        return str(data[0]["id"])

    def _read_props(self) -> dict:
        """llama.cpp's `/props` (context size, chat template), read once; {} from a server without it."""
        import httpx

        try:
            props = self._client.get(f"{self.endpoint.root}/props", timeout=5).json()
        except (httpx.HTTPError, ValueError):
            return {}
        return props if isinstance(props, dict) else {}

    def _choice(self, data: dict, url: str) -> dict:
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise LLMError(f"model server {url} answered without choices: {json.dumps(data)[:200]}")
        return choices[0]

    def _grammar_fields(self, grammar: GrammarLike | None) -> dict:
        if grammar is None:
            return {}
        return dict(self._style_fields()(grammar_text(grammar)))

    def _style_fields(self):
        with self._lock:
            if self._grammar_style is None:
                self._grammar_style = self._probe_grammar()
        return dict(GRAMMAR_STYLES)[self._grammar_style]

    def _probe_grammar(self) -> str:
        """The first grammar field the server honours: a grammar admitting one odd word must yield that word."""
        url = f"{self.endpoint.base}/chat/completions"
        for name, fields in GRAMMAR_STYLES:
            body = {"model": self.model, "messages": [{"role": "user", "content": "Say hello."}],
                    "max_tokens": 16, "temperature": 0.0, "seed": self.seed, **fields(f'root ::= "{_PROBE_WORD}"')}
            try:
                data = self._request("POST", url, body)
            except ServerRefused:  # an unknown field may be a 400: try the next style
                continue
            text = (self._choice(data, url).get("message") or {}).get("content") or ""
            if text.strip() == _PROBE_WORD:
                return name
        tried = ", ".join(n for n, _ in GRAMMAR_STYLES)
        raise LLMError(f"model server {self.endpoint.base} ignores grammars (tried {tried}); "
                       "a run that needs the citation grammar cannot use it")

    # --- metadata ------------------------------------------------------------------------------
    def _local_file(self, serves: str | None = None) -> Path | None:
        """The GGUF served, when it is here: the registry model a server entry says it serves (which must be
        present), else the file or registry model the endpoint's model name names, else None."""
        from .registry import resolve

        if serves is not None:
            return resolve(serves)[0]
        try:
            return resolve(self.model)[0]
        except Exception:  # noqa: BLE001 - a served model name that means nothing here
            return None

    def header(self) -> dict[str, Any]:
        from .registry import cached_sha256

        local = self._local
        return {
            "model_file": self.model.rsplit("/", 1)[-1],
            # a server does not say which file it serves: the file its model name points to here, if any
            "model_sha256": cached_sha256(local)[0] if local is not None else self._kalma.get("model_sha256"),
            "endpoint": self.endpoint.base,
            "server_model": self.model,
            "device": "server",
            "seed": self.seed,
            "grammar": self._grammar_style or "not probed",
        }

    def device_line(self) -> str:
        return (f"{self.model} at {self.endpoint.base} (model server; grammar field: "
                f"{self._grammar_style or 'not probed yet'})")

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` by the server's tokenizer: llama-cpp-python's `/extras/tokenize/count`, else
        llama.cpp's `/tokenize`."""
        try:
            return int(self._request("POST", f"{self.endpoint.root}/extras/tokenize/count", {"input": text})["count"])
        except (LLMError, KeyError, TypeError, ValueError):
            tokens = self._request("POST", f"{self.endpoint.root}/tokenize", {"content": text}).get("tokens")
            if not isinstance(tokens, list):
                raise LLMError(f"model server {self.endpoint.root} cannot count tokens") from None
            return len(tokens)

    # --- generation ----------------------------------------------------------------------------
    def chat(self, messages: Sequence[dict[str, str]], params: GenerationParams = GenerationParams(),
             grammar: GrammarLike | None = None) -> Completion:
        url = f"{self.endpoint.base}/chat/completions"
        body = {"model": self.model, "messages": list(messages), **_request_sampling(params),
                **self._grammar_fields(grammar)}
        data = self._request("POST", url, body)
        choice = self._choice(data, url)
        return chat.completion_of({"choices": [choice], "usage": data.get("usage")},
                           (choice.get("message") or {}).get("content"), params)

    def complete(self, prompt: str, params: GenerationParams = GenerationParams(),
                 grammar: GrammarLike | None = None) -> Completion:
        url = f"{self.endpoint.base}/completions"
        body = {"model": self.model, "prompt": prompt, **_request_sampling(params), **self._grammar_fields(grammar)}
        data = self._request("POST", url, body)
        choice = self._choice(data, url)
        return chat.completion_of({"choices": [choice], "usage": data.get("usage")}, choice.get("text"), params)

    # --- scoring -------------------------------------------------------------------------------
    def next_token_logprobs(self, prompt: str, candidates: Sequence[str], top: int = 20,
                            wider: int = 1000) -> dict[str, float]:
        """Log-probability of each candidate as the first token after `prompt`, from the server's `top` most likely
        next tokens; when a candidate is not among them, asked once more for the `wider` most likely (a weak judge
        puts little mass on "1".."5" and they rank low). A candidate outside those gets -inf (it weighs nothing); a
        server that refuses the wider request (vLLM caps it at its `--max-logprobs`) keeps the first answer.
        `kalma-graph serve` computes every candidate's exactly, as in-process."""
        if "next_token_logprobs" in self.scoring:
            return {str(k): float(v) for k, v in self._call("next_token_logprobs", prompt, list(candidates)).items()}
        ranked = self._top_logprobs(prompt, top)
        if any(not _find(ranked, c) for c in candidates):
            try:
                ranked = self._top_logprobs(prompt, wider)
            except ServerRefused:
                pass
        return {c: float(max(_find(ranked, c))) if _find(ranked, c) else float("-inf") for c in candidates}

    def _top_logprobs(self, prompt: str, top: int) -> dict[str, float]:
        url = f"{self.endpoint.base}/completions"
        body = {"model": self.model, "prompt": prompt, "max_tokens": 1, "temperature": 0.0, "seed": self.seed,
                "logprobs": top}
        choice = self._choice(self._request("POST", url, body), url)
        try:
            return dict(choice["logprobs"]["top_logprobs"][0])
        except (KeyError, IndexError, TypeError):
            raise LLMError(f"model server {url} returned no log-probabilities") from None

    def _call(self, method: str, *args: object) -> Any:
        """A scoring method of `kalma-graph serve` (`/kalma/call`), run there as `LocalLLM` runs it here."""
        if method not in self.scoring:
            how = ("start it with `kalma-graph serve --scoring`" if "next_token_logprobs" in self.scoring else
                   "serve the GGUF with `kalma-graph serve --scoring`, or pass a GGUF file or registry name for the "
                   "scoring model (in-process)")
            raise LLMError(f"model server {self.endpoint.base}: {method} (log-probabilities of a given continuation, "
                           f"BioKaLMA's eq. 1) is not served there: {how}")
        url = f"{self.endpoint.root}/kalma/call"
        data = self._request("POST", url, {"method": method, "args": list(args)})
        if "result" not in data:
            raise LLMError(f"model server {url} answered without a result: {json.dumps(data)[:200]}")
        return data["result"]

    def continuation_logprobs(self, prefix: str, continuation: str) -> list[float]:
        return [float(x) for x in self._call("continuation_logprobs", prefix, continuation)]

    def continuation_logprobs_many(self, prefix: str, continuations: Sequence[str]) -> list[list[float]]:
        rows = self._call("continuation_logprobs_many", prefix, list(continuations))
        return [[float(x) for x in row] for row in rows]

    def scored_extensions(self, prefix: str, continuations: Sequence[str]) -> tuple[list[float], list[list[float]]]:
        own, rows = self._call("scored_extensions", prefix, list(continuations))
        return [float(x) for x in own], [[float(x) for x in row] for row in rows]

    def perplexity(self, prefix: str, continuation: str) -> float:
        return float(self._call("perplexity", prefix, continuation))

    def chat_prompt(self, messages: Sequence[dict[str, str]]) -> str:
        """The exact text the served model's chat template makes of `messages` (`--cite grounded` continues it,
        G-Eval reads the next token after it). The template comes from llama.cpp's `/props`, else from the GGUF
        itself when the endpoint's model is a file or registry name present here (its vocabulary only is
        read); a server that gives neither cannot serve those two."""
        with self._lock:
            if self._template is None:
                self._template = self._find_template()
        return chat.render_chat(*self._template, messages)

    def _find_template(self) -> tuple[str, str, str]:
        props = self._props
        if props.get("chat_template"):
            return str(props["chat_template"]), str(props.get("bos_token") or ""), str(props.get("eos_token") or "")
        path = self._local
        if path is None:
            raise LLMError(f"model server {self.endpoint.base} does not serve its chat template (llama.cpp's /props) "
                           f"and {self.model!r} is no GGUF file or registry model here; --cite grounded and G-Eval "
                           "need it: name the model as http://HOST:PORT/v1#NAME with NAME a registry model or GGUF "
                           "path")
        return gguf_chat_template(path)

    def close(self) -> None:
        self._client.close()


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds a 503 says to wait (`Retry-After` in seconds, at most a minute); None for any other answer."""
    if response.status_code != 503:
        return None
    try:
        return min(60.0, max(0.0, float(response.headers.get("retry-after", ""))))
    except ValueError:
        return None


def _find(ranked: Mapping[str, float], candidate: str) -> list[float]:
    return [lp for token, lp in ranked.items() if token == candidate or token.strip() == candidate.strip()]


def gguf_chat_template(path: str | os.PathLike[str]) -> tuple[str, str, str]:
    """A GGUF's chat template and its BOS/EOS texts, reading its vocabulary only (no weights)."""
    from llama_cpp import Llama

    llama = Llama(model_path=str(path), vocab_only=True, verbose=False)
    try:
        return chat.chat_template_of(llama, str(path))
    finally:
        llama.close()


def _request_sampling(params: GenerationParams) -> dict[str, Any]:
    """The request's sampling fields: the in-process ones, and no repetition penalty (llama-cpp-python's server
    defaults to 1.1 where the in-process call uses 1.0, and greedy outputs then differ)."""
    sampling = chat.sampling_args(params)
    if sampling["stop"] is None:
        del sampling["stop"]
    return {**sampling, "repeat_penalty": 1.0}
