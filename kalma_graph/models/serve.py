"""`kalma-graph serve`: one GGUF behind an OpenAI-compatible endpoint, decoded exactly as in-process (issue 34),
on FastAPI + uvicorn with the bounds a shared server needs (issue 46).

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
`POST /kalma/call`. Anything else gets a 4xx naming what it does not do — never a silent default.

Bounds (`Limits`; every refusal is a JSON `{"error": {"message", "type"}}`, never a traceback, and the server goes
on), checked in this order by `_Guard`, an ASGI layer round the FastAPI app:

1. **API key** (`--api-key`, `KALMA_API_KEY`): `Authorization: Bearer <key>` on every request, compared in constant
   time, else 401. Required to listen anywhere but a loopback address (`check_settings`, exit 2).
2. **body size** (`--max-body-bytes`): a POST whose Content-Length says more is refused (413) before a byte of its
   body is read; a body without one (chunked) is counted as it arrives and refused once it passes the bound. What
   the client still sends after the 413 is discarded by uvicorn as it arrives (never stored), so that the client
   reads the 413: closing at once would reset the connection and lose the answer (the load test saw it). A body
   declared over `Limits.drain_bytes` is not waited for: the 413 closes the connection.
3. **requests in flight** (`--max-in-flight`): a POST beyond it gets 503 with `Retry-After` at once, never a queue.
   The model itself serves one call at a time (`LocalLLM`'s lock): the others admitted wait for it.
4. **time** (`--request-timeout`): from admission (body read, waiting for the model, the call) to the answer; past it
   504. The call runs on a worker thread and is cancelled there (`chat.cancellable`: before the next token or prompt
   evaluation); its slot stays counted until the worker has stopped, so the bound holds for the model's work, not
   only for the answers sent. A client that disconnects cancels its call the same way.

GET requests (`/v1/models`, `/props`) take no slot: uvicorn's `limit_concurrency` (`Limits.max_connections`) bounds
connections and tasks altogether, with a plain 503.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Mapping, MutableMapping, Sequence, TypeVar

from kalma_graph import __version__
from kalma_graph.errors import BadInputError

from .chat import Completion, GenerationCancelled, cancellable
from .llm import GenerationParams, Grammar, LLMError, LocalLLM

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.types import ASGIApp

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
API_KEY_ENV = "KALMA_API_KEY"
_logger = logging.getLogger(__name__)


class BadRequest(BadInputError, ValueError):
    """A request this server will not run as asked (HTTP 400, the message says why)."""


class ServeSettingsError(BadInputError, ValueError):
    """`kalma-graph serve` options it will not serve with (exit 2): no API key on a non-loopback address, a bound
    that is not positive."""


@dataclass(frozen=True)
class Limits:
    """What one server admits (module docstring: the order they are checked in)."""

    api_key: str | None = None
    max_body_bytes: int = 1 << 20
    max_in_flight: int = 4
    request_timeout: float = 300.0
    retry_after: int = 1  # seconds, the 503's Retry-After

    @property
    def drain_bytes(self) -> int:
        """A declared body up to this size is discarded after its 413 (the connection kept); beyond it, closed."""
        return 16 * self.max_body_bytes

    @property
    def max_connections(self) -> int:
        """uvicorn's `limit_concurrency`: connections (and tasks) beyond it get uvicorn's plain 503."""
        return max(64, 8 * self.max_in_flight)


def is_loopback(host: str) -> bool:
    """Is `host` a loopback address (127.0.0.0/8, ::1, localhost)? '' and 0.0.0.0 listen on every interface."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to any interface


def check_settings(host: str, limits: Limits) -> None:
    """Refuse (exit 2, before the model loads) what `serve` will not run with."""
    if not limits.api_key and not is_loopback(host):
        raise ServeSettingsError(
            f"--host {host or '(every interface)'} is not a loopback address: an API key is required there. Pass "
            f"--api-key KEY or set {API_KEY_ENV}=KEY (clients send it as `Authorization: Bearer KEY`; kalma-graph's "
            f"own --model http://… clients read {API_KEY_ENV}), or listen on 127.0.0.1")
    if limits.api_key is not None and (not limits.api_key.strip() or any(c.isspace() for c in limits.api_key)):
        raise ServeSettingsError("--api-key: a non-empty key without spaces")
    for name, value in (("--max-body-bytes", limits.max_body_bytes), ("--max-in-flight", limits.max_in_flight),
                        ("--request-timeout", limits.request_timeout)):
        if not value > 0:
            raise ServeSettingsError(f"{name} must be positive, got {value}")


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

    def routes(self) -> dict[tuple[str, str], Callable[[Mapping[str, Any]], dict]]:
        """(method, path) -> the function of the request body that answers it."""
        return {
            ("GET", "/v1/models"): lambda _: self.models(),
            ("GET", "/props"): lambda _: self.props(),
            ("POST", "/v1/chat/completions"): self.chat_completions,
            ("POST", "/v1/completions"): self.completions,
            ("POST", "/extras/tokenize/count"): self.tokenize_count,
            ("POST", "/kalma/call"): self.call,
        }


_T = TypeVar("_T")


def _field(body: Mapping[str, Any], name: str, kind: type[_T]) -> _T:
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
    try:
        if float(body.get("repeat_penalty", 1.0)) != 1.0:
            raise BadRequest("repeat_penalty: only 1.0 (the in-process decoding's) is served")
        stop = body.get("stop") or ()
        stop = (stop,) if isinstance(stop, str) else tuple(stop)
        if not all(isinstance(s, str) for s in stop):
            raise BadRequest("stop: a string or a list of strings")
        return GenerationParams(max_tokens=int(body.get("max_tokens") or 256),
                                temperature=float(body.get("temperature", 0.0)),
                                top_p=float(body.get("top_p", 1.0)), seed=int(body.get("seed", 0)), stop=stop)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, BadRequest):
            raise
        raise BadRequest(f"sampling fields: {exc}") from None


def _grammar(body: Mapping[str, Any]) -> Grammar | None:
    text = body.get("grammar")
    if text is None:
        return None
    if not isinstance(text, str) or not text.strip():
        raise BadRequest("grammar: GBNF text")
    return Grammar(text)


def _response(kind: str, model: str, done: Completion, content: dict) -> dict:
    return {"id": f"kalma-{uuid.uuid4().hex[:12]}", "object": kind, "created": int(time.time()), "model": model,
            "choices": [{"index": 0, **content, "finish_reason": done.finish_reason}],
            "usage": {"prompt_tokens": done.prompt_tokens, "completion_tokens": done.completion_tokens,
                      "total_tokens": done.prompt_tokens + done.completion_tokens}}


def error_answer(exc: BaseException) -> tuple[int, dict]:
    """The HTTP status and JSON body of an exception a route raised (the request's fault, the model's, or ours)."""
    if isinstance(exc, GenerationCancelled):  # the server stops
        status, kind = 503, "cancelled"
    elif isinstance(exc, (BadRequest, json.JSONDecodeError)):
        status, kind = 400, "invalid_request_error"
    elif isinstance(exc, (LLMError, ValueError)):  # llama.cpp's ValueError: a prompt too long for the context, say
        status, kind = 400, "model_error"
    else:  # the client gets a 500 naming it; the server goes on
        return 500, _error(f"{type(exc).__name__}: {exc}", "server_error")
    return status, _error(str(exc), kind)


def _error(message: str, kind: str) -> dict:
    return {"error": {"message": message, "type": kind}}


# --- admission: slots, the guard round the app ---------------------------------------------------
class _Gate:
    """`max_in_flight` slots. A slot is held by its request and by the worker running its call; it is free when
    both are done (a timed-out call's worker still holds it)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_flight = 0
        self._lock = threading.Lock()

    def enter(self) -> "_Slot | None":
        with self._lock:
            if self.in_flight >= self.limit:
                return None
            self.in_flight += 1
        return _Slot(self)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


class _Slot:
    def __init__(self, gate: _Gate) -> None:
        self._gate = gate
        self._holders = 1
        self._lock = threading.Lock()

    def hold(self) -> None:
        with self._lock:
            self._holders += 1

    def release(self) -> None:
        with self._lock:
            self._holders -= 1
            free = self._holders == 0
        if free:
            self._gate._leave()


_TOO_LARGE, _GONE = "too large", "gone"  # what `_read_body` says instead of a body
Message = MutableMapping[str, Any]  # an ASGI event (JSON-like fields)
Send = Callable[[Message], Awaitable[None]]
Receive = Callable[[], Awaitable[Message]]


async def _send_json(send: Send, status: int, data: dict, headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    payload = json.dumps(data, ensure_ascii=False).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
                            *headers]})
    await send({"type": "http.response.body", "body": payload})


async def _read_body(receive: Receive, limit: int) -> bytes | str:
    """The request body; `_TOO_LARGE` as soon as more than `limit` bytes have arrived, `_GONE` if the client left."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return _GONE
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return _TOO_LARGE
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


class _Guard:
    """ASGI layer round the app: API key, body size, slots (module docstring), and one log line per request."""

    calls: _Calls  # set by `make_app`: cancels the calls in flight

    def __init__(self, app: ASGIApp, limits: Limits, gate: _Gate, log: Callable[[str], None] | None) -> None:
        self.app = app
        self.limits = limits
        self.gate = gate
        self.log = log
        self._key = limits.api_key.encode("utf-8") if limits.api_key else None

    async def __call__(self, scope: dict, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan
            await self.app(scope, receive, send)
            return
        started, status = time.perf_counter(), [0]

        async def tracked(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self._admit(scope, receive, tracked)
        except Exception as exc:  # noqa: BLE001 - a bug of ours: a 500 naming it if none was sent, and the server goes on
            _logger.error("%s %s failed", scope["method"], scope["path"], exc_info=exc)
            if not status[0]:
                await _send_json(tracked, *error_answer(exc))
        finally:
            if self.log is not None:
                self.log(f"{scope['method']} {scope['path']} {status[0] or 'dropped'} "
                         f"{time.perf_counter() - started:.2f}s")

    @staticmethod
    def _authorized(header: bytes | None, key: bytes) -> bool:
        scheme, _, token = (header or b"").partition(b" ")
        # compare_digest over the whole token: its time does not depend on where a wrong key differs
        return hmac.compare_digest(token.strip() if scheme.lower() == b"bearer" else b"", key)

    async def _admit(self, scope: dict, receive: Receive, send: Send) -> None:
        limits = self.limits
        headers = dict((name.lower(), value) for name, value in scope["headers"])
        if self._key is not None and not self._authorized(headers.get(b"authorization"), self._key):
            await _send_json(send, 401, _error("a valid API key is required: send `Authorization: Bearer KEY` (the "
                                               f"server's --api-key; kalma-graph clients read {API_KEY_ENV})",
                                               "authentication_error"),
                             [(b"www-authenticate", b'Bearer realm="kalma-graph"')])
            return
        if scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        too_large = _error(f"the request body exceeds {limits.max_body_bytes} bytes (--max-body-bytes)",
                           "request_too_large")
        try:
            declared = int(headers.get(b"content-length", b"0"))
        except ValueError:
            declared = 0  # h11 refuses a malformed Content-Length before it gets here
        if declared > limits.max_body_bytes:
            await _send_json(send, 413, too_large,
                             [(b"connection", b"close")] if declared > limits.drain_bytes else [])
            return
        slot = self.gate.enter()
        if slot is None:
            await _send_json(send, 503, _error(f"the server has its {limits.max_in_flight} request(s) in flight "
                                               "(--max-in-flight); retry after Retry-After seconds", "server_busy"),
                             [(b"retry-after", str(limits.retry_after).encode())])
            return
        try:
            deadline = time.monotonic() + limits.request_timeout
            try:
                body = await asyncio.wait_for(_read_body(receive, limits.max_body_bytes), limits.request_timeout)
            except asyncio.TimeoutError:
                await _send_json(send, 408, _error("the request body did not arrive within --request-timeout "
                                                   f"({limits.request_timeout:g} s)", "timeout"),
                                 [(b"connection", b"close")])
                return
            if body is _TOO_LARGE:
                await _send_json(send, 413, too_large)
                return
            if body is _GONE:
                return
            replayed = False

            async def replay() -> Message:
                # the body read here, then the connection's own messages (its disconnect, awaited by `_Calls.run`)
                nonlocal replayed
                if not replayed:
                    replayed = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            scope["kalma.slot"], scope["kalma.deadline"] = slot, deadline
            await self.app(scope, replay, send)
        finally:
            slot.release()


class _Calls:
    """Runs route functions on worker threads: one thread per admitted call (so at most `max_in_flight` POST
    calls, GET metadata aside), each cancellable (`chat.cancellable`), cancelled on timeout, disconnect or
    shutdown."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._running: set[threading.Event] = set()
        self._lock = threading.Lock()

    def cancel_all(self) -> None:
        with self._lock:
            for event in self._running:
                event.set()

    async def run(self, fn: Callable[[Mapping[str, Any]], dict], body: Mapping[str, Any], scope: Mapping[str, Any],
                  receive: Receive) -> tuple[int, dict]:
        loop = asyncio.get_running_loop()
        outcome: asyncio.Future = loop.create_future()
        cancel = threading.Event()
        slot: _Slot | None = scope.get("kalma.slot")
        deadline = scope.get("kalma.deadline") or time.monotonic() + self.limits.request_timeout

        def settle(result: dict | None, exc: BaseException | None) -> None:
            if outcome.done():
                return
            if exc is None:
                outcome.set_result(result)
            else:
                outcome.set_exception(exc)

        def work() -> None:
            result, error = None, None
            try:
                with cancellable(cancel):
                    result = fn(body)
            except BaseException as exc:  # noqa: BLE001 - handed to the request, which answers it
                error = exc
            finally:
                with self._lock:
                    self._running.discard(cancel)
                if slot is not None:
                    slot.release()
            try:
                loop.call_soon_threadsafe(settle, result, error)
            except RuntimeError:  # the loop is closed: the server has stopped, nobody waits
                pass

        with self._lock:
            self._running.add(cancel)
        if slot is not None:
            slot.hold()
        threading.Thread(target=work, name="kalma-serve-call", daemon=True).start()
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            done, _ = await asyncio.wait({outcome, gone}, timeout=max(0.0, deadline - time.monotonic()),
                                         return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:  # the server shuts down
            cancel.set()
            raise
        finally:
            gone.cancel()
        if outcome in done:
            exc = outcome.exception()
            return (200, outcome.result()) if exc is None else error_answer(exc)
        cancel.set()
        outcome.add_done_callback(lambda f: f.cancelled() or f.exception())  # an abandoned call's error: not logged
        if gone in done:
            return 499, _error("the client disconnected; its call was cancelled", "client_closed")
        return 504, _error(f"no answer within --request-timeout ({self.limits.request_timeout:g} s); the call "
                           "was cancelled", "timeout")


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def make_app(service: ModelService, limits: Limits = Limits(), log: Callable[[str], None] | None = None) -> _Guard:
    """The ASGI app: FastAPI routes for `service.routes()` inside `_Guard`. Its `.calls` cancels calls in flight."""
    from fastapi import FastAPI
    from starlette.exceptions import HTTPException
    from starlette.responses import Response

    def reply(data: dict, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
        # json.dumps as before: -Infinity stays a log-probability (Starlette's JSONResponse refuses non-finite floats)
        return Response(json.dumps(data, ensure_ascii=False), status, headers, media_type="application/json")

    app = FastAPI(title="kalma-graph serve", version=__version__, docs_url=None, redoc_url=None, openapi_url=None)
    calls = _Calls(limits)

    def endpoint(fn: Callable[[Mapping[str, Any]], dict], method: str) -> Callable[[Request], Awaitable[Response]]:
        async def answer(request: Request) -> Response:
            body: Mapping[str, Any] = {}
            if method == "POST":
                raw = await request.body()
                try:
                    body = json.loads(raw or b"{}")
                except ValueError as exc:  # malformed JSON, or not UTF-8
                    return reply(_error(f"the body is not JSON: {exc}", "invalid_request_error"), 400)
                if not isinstance(body, dict):
                    return reply(_error("the body must be a JSON object", "invalid_request_error"), 400)
            status, data = await calls.run(fn, body, request.scope, request.receive)
            return reply(data, status)

        return answer

    for (method, path), fn in service.routes().items():
        # Starlette routes (a function of the request): the body is validated by ModelService, with its messages
        app.add_route(path, endpoint(fn, method), methods=[method], include_in_schema=False)

    async def not_served(request: Request, exc: Exception) -> Response:  # 404, 405
        status = getattr(exc, "status_code", 404)
        kind = "method_not_allowed" if status == 405 else "not_found"
        return reply(_error(f"{request.method} {request.url.path}: not served here", kind), status,
                     getattr(exc, "headers", None))

    async def failed(request: Request, exc: Exception) -> Response:  # a bug of ours: a 500 naming it
        status, data = error_answer(exc)
        return reply(data, status)

    app.add_exception_handler(HTTPException, not_served)
    app.add_exception_handler(Exception, failed)

    guarded = _Guard(app, limits, _Gate(limits.max_in_flight), log)
    guarded.calls = calls
    return guarded


def bind(host: str, port: int) -> socket.socket:
    """A socket bound to host:port (port 0: a free one), not yet listening (uvicorn listens when it serves, so a
    client is refused, not kept waiting, while the model loads); `OSError` when the address cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say TCP, and without it the answer's
    # body waits behind its headers for the client's delayed ACK (40 ms on Linux)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
    except OSError:
        sock.close()
        raise
    return sock


class Server:
    """A uvicorn server for `make_app(service, limits)` on a socket of `bind`: `run()` blocks (Ctrl-C stops it),
    `start()` serves on a daemon thread (tests), `stop()` ends either."""

    def __init__(self, service: ModelService, sock: socket.socket, limits: Limits = Limits(),
                 log: Callable[[str], None] | None = None) -> None:
        import uvicorn

        self.sock = sock
        self.app = make_app(service, limits, log)
        self.port = sock.getsockname()[1]
        host = sock.getsockname()[0]
        self.url = f"http://{f'[{host}]' if ':' in host else host}:{self.port}/v1"
        config = uvicorn.Config(self.app, http="h11", lifespan="off", log_config=None, log_level="warning",
                                access_log=False, limit_concurrency=limits.max_connections, timeout_keep_alive=5,
                                timeout_graceful_shutdown=5, server_header=False)
        calls = self.app.calls

        class Uvicorn(uvicorn.Server):
            async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
                calls.cancel_all()  # calls in flight stop at their next token: their requests end at once
                await super().shutdown(sockets)

        self.uvicorn = Uvicorn(config)
        self._thread: threading.Thread | None = None

    def run(self) -> None:
        try:
            self.uvicorn.run(sockets=[self.sock])
        finally:
            self.app.calls.cancel_all()
            self.sock.close()

    def start(self, wait: float = 10.0) -> "Server":
        self._thread = threading.Thread(target=self.run, name="kalma-serve", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + wait
        while not self.uvicorn.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("kalma-graph serve did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.app.calls.cancel_all()
        self.uvicorn.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=15)


def serve_in_thread(service: ModelService, host: str = "127.0.0.1", port: int = 0,
                    limits: Limits = Limits()) -> tuple[Server, str]:
    """Start serving on a background thread (port 0: a free one); returns the server (`.stop()`) and its `/v1` URL."""
    server = Server(service, bind(host, port), limits).start()
    return server, server.url
