"""`kalma-graph serve`'s bounds (issue 46), on the real uvicorn server with a stand-in model: API key, body size,
requests in flight, request timeout (the call cancelled, its slot freed), malformed requests, and `ServerLLM`
against it (the key sent, a busy server waited for). The real model behind it: tests/e2e/test_kalma_serve.py."""

from __future__ import annotations

import json
import socket
import threading
import time

import httpx
import pytest
from click.testing import CliRunner

from kalma_graph.errors import BadInputError
from kalma_graph.models.chat import Completion, GenerationCancelled, cancellable, check_cancelled
from kalma_graph.models.serve import (
    Limits,
    ModelService,
    ServeSettingsError,
    check_settings,
    is_loopback,
    serve_in_thread,
)

KEY = "test-key-123"
AUTH = {"Authorization": f"Bearer {KEY}"}
CHAT = {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}


class StandIn:
    """What `ModelService` uses of a `LocalLLM`. A prompt "hold" generates until `release` is set, checking for
    cancellation at every step as the in-process decoding does at every token."""

    n_ctx = 2048
    logits_all = False

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.release = threading.Event()
        self.started = threading.Event()
        self.cancelled = 0

    def chat_template(self):
        return "{% for m in messages %}{{ m.content }}{% endfor %}", "<s>", "</s>"

    def header(self):
        return {"model_file": "stand-in.gguf", "model_sha256": "0" * 64, "grammar_first": True}

    def count_tokens(self, text):
        return len(text.split())

    def _generate(self, text, params):
        with self._lock:
            self.started.set()
            try:
                while text == "hold" and not self.release.wait(0.01):
                    check_cancelled()
            except GenerationCancelled:
                self.cancelled += 1
                raise
        return Completion(text=f"echo {text}", finish_reason="stop", prompt_tokens=1, completion_tokens=2)

    def chat(self, messages, params, grammar=None):
        return self._generate(messages[-1]["content"], params)

    def complete(self, prompt, params, grammar=None):
        return self._generate(prompt, params)

    def next_token_logprobs(self, prompt, candidates):
        return {c: float("-inf") if not c else -1.5 for c in candidates}


def start(**limits):
    llm = StandIn()
    server, url = serve_in_thread(ModelService(llm, "stand-in"), limits=Limits(**limits))
    return llm, server, url


@pytest.fixture
def keyed():
    llm, server, url = start(api_key=KEY, max_body_bytes=4096, max_in_flight=2, request_timeout=30)
    with httpx.Client(timeout=10) as client:
        yield llm, server, url, client
    llm.release.set()
    server.stop()


def wait_for(condition, seconds=10.0):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.01)


def error_type(response) -> str:
    assert response.headers["content-type"] == "application/json"
    return response.json()["error"]["type"]


def test_loopback_hosts():
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.0.1.1", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "", "::", "192.168.1.5", "gpu-box"))


def test_a_key_is_required_off_loopback():
    with pytest.raises(ServeSettingsError, match="KALMA_API_KEY"):
        check_settings("0.0.0.0", Limits())
    assert issubclass(ServeSettingsError, BadInputError) and ServeSettingsError.exit_code == 2
    check_settings("0.0.0.0", Limits(api_key=KEY))
    check_settings("127.0.0.1", Limits())
    with pytest.raises(ServeSettingsError, match="without spaces"):
        check_settings("127.0.0.1", Limits(api_key="two words"))


def test_the_command_refuses_before_loading_a_model(monkeypatch):
    from kalma_graph.cli.main import cli

    monkeypatch.delenv("KALMA_API_KEY", raising=False)
    result = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0", "--port", "0"])
    assert result.exit_code == 2, result.output
    assert "error:" in result.output and "--api-key" in result.output and "Traceback" not in result.output


def test_the_api_key(keyed):
    _, _, url, client = keyed
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": KEY}, {"Authorization": f"Basic {KEY}"}):
        for response in (client.get(f"{url}/models", headers=headers),
                         client.post(f"{url}/chat/completions", headers=headers, json=CHAT),
                         client.get(f"{url[:-3]}/nowhere", headers=headers)):
            assert response.status_code == 401 and error_type(response) == "authentication_error"
            assert response.headers["www-authenticate"].startswith("Bearer")
    assert client.get(f"{url}/models", headers=AUTH).json()["data"][0]["id"] == "stand-in"
    assert client.get(f"{url}/models", headers={"Authorization": f"bearer {KEY}"}).status_code == 200


def test_answers_and_refusals_are_json(keyed):
    _, _, url, client = keyed
    root = url[:-3]
    done = client.post(f"{url}/chat/completions", headers=AUTH, json=CHAT).json()
    assert done["choices"][0]["message"]["content"] == "echo hi" and done["usage"]["total_tokens"] == 3
    scored = client.post(f"{root}/kalma/call", headers=AUTH,
                         json={"method": "next_token_logprobs", "args": ["x", ["", "a"]]})
    assert scored.status_code == 200 and scored.json()["result"] == {"": float("-inf"), "a": -1.5}  # -Infinity kept
    for body, status, kind in [(b"{not json", 400, "invalid_request_error"),
                               (b"\xff\xfe", 400, "invalid_request_error"),
                               (b"[1, 2]", 400, "invalid_request_error"),
                               (json.dumps({"messages": "hi"}).encode(), 400, "invalid_request_error"),
                               (json.dumps({**CHAT, "max_tokens": "many"}).encode(), 400, "invalid_request_error"),
                               (json.dumps({**CHAT, "stop": [1]}).encode(), 400, "invalid_request_error"),
                               (json.dumps({**CHAT, "frequency_penalty": 1}).encode(), 400, "invalid_request_error")]:
        response = client.post(f"{url}/chat/completions", headers=AUTH, content=body)
        assert (response.status_code, error_type(response)) == (status, kind), body
    assert client.post(f"{root}/kalma/call", headers=AUTH, json={"method": "close", "args": []}).status_code == 400
    assert client.get(f"{root}/nowhere", headers=AUTH).status_code == 404
    wrong_method = client.get(f"{url}/chat/completions", headers=AUTH)
    assert wrong_method.status_code == 405 and error_type(wrong_method) == "method_not_allowed"
    assert client.post(f"{url}/chat/completions", headers=AUTH, json=CHAT).status_code == 200  # still serving


def test_a_body_over_the_limit_is_refused_before_it_is_read(keyed):
    _, _, url, client = keyed
    big = json.dumps({**CHAT, "pad": "x" * 8000}).encode()
    declared = client.post(f"{url}/chat/completions", headers=AUTH, content=big)
    assert declared.status_code == 413 and error_type(declared) == "request_too_large"
    chunked = client.post(f"{url}/chat/completions", headers=AUTH,  # no Content-Length: counted as it arrives
                          content=(big[i:i + 1000] for i in range(0, len(big), 1000)))
    assert chunked.status_code == 413 and error_type(chunked) == "request_too_large"
    small = client.post(f"{url}/chat/completions", headers=AUTH, content=(b for b in [json.dumps(CHAT).encode()]))
    assert small.status_code == 200


def test_beyond_the_requests_in_flight_503_with_retry_after(keyed):
    llm, server, url, client = keyed
    held = [threading.Thread(target=httpx.post, args=(f"{url}/completions",),
                             kwargs={"headers": AUTH, "json": {"prompt": "hold"}, "timeout": 30}) for _ in range(2)]
    for thread in held:
        thread.start()
    wait_for(lambda: server.app.gate.in_flight == 2)
    busy = client.post(f"{url}/completions", headers=AUTH, json={"prompt": "x"})
    assert busy.status_code == 503 and busy.headers["retry-after"] == "1" and error_type(busy) == "server_busy"
    assert client.get(f"{url}/models", headers=AUTH).status_code == 200  # metadata takes no slot
    llm.release.set()
    for thread in held:
        thread.join()
    wait_for(lambda: server.app.gate.in_flight == 0)
    assert client.post(f"{url}/completions", headers=AUTH, json={"prompt": "x"}).status_code == 200


def test_a_timed_out_call_is_cancelled_and_its_slot_freed():
    llm, server, url = start(max_in_flight=1, request_timeout=0.5)
    try:
        response = httpx.post(f"{url}/completions", json={"prompt": "hold"}, timeout=10)
        assert response.status_code == 504 and error_type(response) == "timeout"
        wait_for(lambda: server.app.gate.in_flight == 0)  # the worker stopped at its next check
        assert llm.cancelled == 1
        assert httpx.post(f"{url}/completions", json={"prompt": "x"}, timeout=10).status_code == 200
    finally:
        server.stop()


def test_a_client_that_leaves_cancels_its_call():
    llm, server, url = start(max_in_flight=1)
    try:
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"{url}/completions", json={"prompt": "hold"}, timeout=0.5)
        wait_for(lambda: server.app.gate.in_flight == 0)
        assert llm.cancelled == 1
    finally:
        server.stop()


def test_many_refused_bodies_each_get_their_413():
    """The 413 is read by the client, not lost to a reset: the rest of a declared body is discarded after it."""
    _, server, url = start(max_body_bytes=256 * 1024)
    big = b"x" * (2 << 20)  # over the limit, under Limits.drain_bytes (and more than the socket buffers take at once)
    failures: list[object] = []

    def client() -> None:
        with httpx.Client(timeout=10) as c:
            for _ in range(10):
                try:
                    status = c.post(f"{url}/completions", content=big).status_code
                except httpx.HTTPError as exc:
                    status = exc
                if status != 413:
                    failures.append(status)

    try:
        threads = [threading.Thread(target=client) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
    finally:
        server.stop()


def test_the_socket_says_tcp():
    """asyncio sets TCP_NODELAY only on a socket whose proto is TCP; without it every answer waits ~40 ms."""
    from kalma_graph.models.serve import bind

    with bind("127.0.0.1", 0) as sock:
        assert sock.proto == socket.IPPROTO_TCP


def test_garbage_on_the_wire_does_not_stop_the_server():
    _, server, url = start()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(b"\x16\x03\x01 not http at all\r\n\r\n")
            assert sock.recv(100).startswith(b"HTTP/1.1 400")
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n{")  # then gone
        assert httpx.post(f"{url}/completions", json={"prompt": "x"}, timeout=10).status_code == 200
    finally:
        server.stop()


def test_server_llm_sends_the_key_and_waits_while_busy(monkeypatch):
    from kalma_graph.models.chat import GenerationParams
    from kalma_graph.models.server import ServerLLM, ServerRefused

    llm, server, url = start(api_key=KEY, max_in_flight=1)
    try:
        monkeypatch.delenv("KALMA_API_KEY", raising=False)
        with pytest.raises(ServerRefused, match="KALMA_API_KEY"):
            ServerLLM(url, retries=0)
        monkeypatch.setenv("KALMA_API_KEY", KEY)
        remote = ServerLLM(url, retries=0, timeout=30)
        holder = threading.Thread(target=remote.complete, args=("hold", GenerationParams(max_tokens=4)))
        holder.start()
        wait_for(lambda: server.app.gate.in_flight == 1)
        threading.Timer(1.5, llm.release.set).start()
        # 503 + Retry-After until the slot is free: waited for, not counted as a failed try (retries=0)
        assert remote.chat([{"role": "user", "content": "hi"}], GenerationParams(max_tokens=4)).text == "echo hi"
        holder.join()
        remote.close()
    finally:
        llm.release.set()
        server.stop()


def test_cancellable_is_per_thread():
    event = threading.Event()
    check_cancelled()  # outside a block: nothing to cancel
    with cancellable(event):
        check_cancelled()
        event.set()
        other: list[BaseException] = []
        thread = threading.Thread(target=lambda: other.append(check_cancelled()))
        thread.start()
        thread.join()
        assert other == [None]  # another thread's calls are not this one's
        with pytest.raises(GenerationCancelled):
            check_cancelled()
    check_cancelled()
