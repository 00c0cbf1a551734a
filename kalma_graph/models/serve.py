"""`kalma-graph serve`: one GGUF behind an OpenAI-compatible endpoint, decoded exactly as in-process (issue 34).

A client machine (or several processes on one) then shares one loaded model: `--model http://HOST:PORT/v1`. What
differs from llama-cpp-python's own server (`python -m llama_cpp.server`):

- **decoding** is `LocalLLM`'s: grammar-first greedy decoding (`grammar_first.py`; that server filters the whole
  vocabulary at every constrained token) and the KV-cache prefix kept between calls;
- **scoring over HTTP**: `POST /kalma/call` runs `LocalLLM`'s scoring methods (`SCORING`) — G-Eval's next-token
  log-probabilities, and with `--scoring` (every position's logits kept) BioKaLMA's eq. 1, which no other server
  gives (`models.server` explains why);
- `/props` says the context size, the chat template and `kalma_graph` (what `ServerLLM` looks for to use the above).

Endpoints: `GET /v1/models`, `GET /props`, `POST /v1/chat/completions`, `POST /v1/completions` (fields: max_tokens,
temperature, top_p, seed, stop, grammar — GBNF text, llama.cpp's field), `POST /extras/tokenize/count`,
`POST /kalma/call`. One model, so calls are served one at a time (`LocalLLM`'s lock); a connection waits, it is
never refused. Anything else gets a 4xx naming what it does not do — never a silent default.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Mapping

from kalma_graph import __version__
from kalma_graph.errors import BadInputError

from .llm import GenerationParams, Grammar, LLMError, LocalLLM

#: `LocalLLM` methods `/kalma/call` runs, and whether they need every position's logits (`serve --scoring`).
SCORING: dict[str, bool] = {
    "next_token_logprobs": False,
    "continuation_logprobs": True,
    "continuation_logprobs_many": True,
    "scored_extensions": True,
    "perplexity": True,
}
_SAMPLING = {"max_tokens", "temperature", "top_p", "seed", "stop"}
_IGNORED = {"model", "stream", "n", "user", "messages", "prompt", "grammar", "repeat_penalty"}


class BadRequest(BadInputError, ValueError):
    """A request this server will not run as asked (HTTP 400, the message says why)."""


class ModelService:
    """The endpoints as functions of a request body (what the HTTP handler calls; testable without a socket)."""

    def __init__(self, llm: LocalLLM, name: str) -> None:
        self.llm = llm
        self.name = name
        self.started = int(time.time())

    # --- metadata ------------------------------------------------------------------------------
    def models(self) -> dict:
        return {"object": "list", "data": [{"id": self.name, "object": "model", "created": self.started,
                                            "owned_by": "kalma-graph"}]}

    def props(self) -> dict:
        template, bos, eos = self.llm.chat_template()
        header = self.llm.header()
        return {"default_generation_settings": {"n_ctx": self.llm.n_ctx}, "chat_template": template,
                "bos_token": bos, "eos_token": eos,
                "kalma_graph": {"version": __version__, "model_file": header["model_file"],
                                "model_sha256": header["model_sha256"], "grammar_first": header["grammar_first"],
                                "scoring": sorted(m for m, needs in SCORING.items()
                                                  if self.llm.logits_all or not needs)}}

    def tokenize_count(self, body: Mapping[str, Any]) -> dict:
        return {"count": self.llm.count_tokens(str(_field(body, "input", str)))}

    # --- generation ----------------------------------------------------------------------------
    def chat_completions(self, body: Mapping[str, Any]) -> dict:
        messages = _field(body, "messages", list)
        if not all(isinstance(m, dict) and isinstance(m.get("content"), str) for m in messages):
            raise BadRequest("messages: a list of {role, content} objects with text content")
        done = self.llm.chat(messages, _params(body), grammar=_grammar(body))
        return _response("chat.completion", self.name, done,
                         {"message": {"role": "assistant", "content": done.text}})

    def completions(self, body: Mapping[str, Any]) -> dict:
        if body.get("logprobs") or body.get("echo"):
            raise BadRequest("logprobs and echo are not served on /v1/completions: POST /kalma/call with "
                             f"method one of {', '.join(SCORING)} (what kalma-graph's ServerLLM does)")
        done = self.llm.complete(str(_field(body, "prompt", str)), _params(body), grammar=_grammar(body))
        return _response("text_completion", self.name, done, {"text": done.text})

    # --- scoring -------------------------------------------------------------------------------
    def call(self, body: Mapping[str, Any]) -> dict:
        method = str(_field(body, "method", str))
        if method not in SCORING:
            raise BadRequest(f"method {method!r}: this server scores with {', '.join(SCORING)}")
        if SCORING[method] and not self.llm.logits_all:
            raise BadRequest(f"{method} needs every position's logits: start the server with `kalma-graph serve "
                             "--scoring`")
        args = _field(body, "args", list)
        try:
            result = getattr(self.llm, method)(*args)
        except TypeError as exc:
            raise BadRequest(f"{method}: {exc}") from None
        return {"method": method, "result": result}


def _field(body: Mapping[str, Any], name: str, kind: type) -> Any:
    value = body.get(name)
    if not isinstance(value, kind):
        raise BadRequest(f"{name}: expected {kind.__name__}, got {type(value).__name__}")
    return value


def _params(body: Mapping[str, Any]) -> GenerationParams:
    unknown = sorted(set(body) - _SAMPLING - _IGNORED - {"logprobs", "echo"})
    if unknown:
        raise BadRequest(f"unsupported field(s) {', '.join(unknown)}: this server takes {', '.join(sorted(_SAMPLING))} "
                         "and grammar (GBNF text)")
    if body.get("stream"):
        raise BadRequest("stream: not served (answers are returned whole)")
    if float(body.get("repeat_penalty", 1.0)) != 1.0:
        raise BadRequest("repeat_penalty: only 1.0 (the in-process decoding's) is served")
    stop = body.get("stop") or ()
    stop = (stop,) if isinstance(stop, str) else tuple(stop)
    try:
        return GenerationParams(max_tokens=int(body.get("max_tokens") or 256),
                                temperature=float(body.get("temperature", 0.0)),
                                top_p=float(body.get("top_p", 1.0)), seed=int(body.get("seed", 0)), stop=stop)
    except (TypeError, ValueError) as exc:
        raise BadRequest(f"sampling fields: {exc}") from None


def _grammar(body: Mapping[str, Any]) -> Grammar | None:
    text = body.get("grammar")
    if text is None:
        return None
    if not isinstance(text, str) or not text.strip():
        raise BadRequest("grammar: GBNF text")
    return Grammar(text)


def _response(kind: str, model: str, done: Any, content: dict) -> dict:
    return {"id": f"kalma-{uuid.uuid4().hex[:12]}", "object": kind, "created": int(time.time()), "model": model,
            "choices": [{"index": 0, **content, "finish_reason": done.finish_reason}],
            "usage": {"prompt_tokens": done.prompt_tokens, "completion_tokens": done.completion_tokens,
                      "total_tokens": done.prompt_tokens + done.completion_tokens}}


def make_server(service: ModelService, host: str = "127.0.0.1", port: int = 8080,
                log: Callable[[str], None] | None = None) -> ThreadingHTTPServer:
    """An HTTP server (not yet serving) routing to `service`; each connection on its own thread."""
    routes: dict[tuple[str, str], Callable[[Mapping[str, Any]], dict]] = {
        ("GET", "/v1/models"): lambda _: service.models(),
        ("GET", "/props"): lambda _: service.props(),
        ("POST", "/v1/chat/completions"): service.chat_completions,
        ("POST", "/v1/completions"): service.completions,
        ("POST", "/extras/tokenize/count"): service.tokenize_count,
        ("POST", "/kalma/call"): service.call,
    }

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self, method: str) -> None:
            route = routes.get((method, self.path.split("?", 1)[0].rstrip("/") or "/"))
            started = time.perf_counter()
            status, data = 200, None
            try:
                if route is None:
                    raise LookupError(f"{method} {self.path}: not served here")
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}") if method == "POST" else {}
                if not isinstance(body, dict):
                    raise BadRequest("the body must be a JSON object")
                data = route(body)
            except LookupError as exc:
                status, data = 404, {"error": {"message": str(exc), "type": "not_found"}}
            except (BadRequest, json.JSONDecodeError) as exc:
                status, data = 400, {"error": {"message": str(exc), "type": "invalid_request_error"}}
            except (LLMError, ValueError) as exc:  # llama.cpp's ValueError: a prompt too long for the context, say
                status, data = 400, {"error": {"message": str(exc), "type": "model_error"}}
            except Exception as exc:  # noqa: BLE001 - the client gets a 500 naming it; the server goes on
                status, data = 500, {"error": {"message": f"{type(exc).__name__}: {exc}", "type": "server_error"}}
            payload = json.dumps(data, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            if log is not None:
                log(f"{method} {self.path} {status} {time.perf_counter() - started:.2f}s")

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            self._answer("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._answer("POST")

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the one line per call is ours
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server


def serve_in_thread(service: ModelService, host: str = "127.0.0.1", port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """Start serving on a background thread (port 0: a free one); returns the server and its `/v1` URL."""
    server = make_server(service, host, port)
    threading.Thread(target=server.serve_forever, name="kalma-serve", daemon=True).start()
    return server, f"http://{host}:{server.server_address[1]}/v1"
