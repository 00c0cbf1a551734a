"""`kalma-graph serve` (issue 34): the packaged SmolLM2 GGUF served by a real `kalma-graph serve` process on a
loopback port, against the same GGUF in-process — generation, G-Eval's and eq. 1's log-probabilities, a whole
BioKaLMA build with both models over HTTP, and requests it refuses by name. Its bounds (issue 46): a server that
requires an API key, with one request in flight and a small body limit, answers 401, 413, 503 + Retry-After and 400
as JSON and goes on serving the in-process decoding; without a key it will not listen on 0.0.0.0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from kalma_graph.generation.grammar import llama_grammar
from kalma_graph.models.llm import GenerationParams, load_llm
from kalma_graph.models.server import ServerLLM, ServerRefused
from tests.e2e.test_model_server import MESSAGES, free_port, local_header_sha, stop

pytestmark = pytest.mark.slow


KEY = "e2e-key-46"
SERVE = [sys.executable, "-m", "kalma_graph.cli.main", "serve", "--model", "smollm2-135m", "--n-ctx", "2048",
         "--threads", "1", "--scoring"]
WITHOUT_KEY = {k: v for k, v in os.environ.items() if k != "KALMA_API_KEY"}


def start_serve(log, *options: str, headers: dict | None = None) -> tuple[subprocess.Popen, str]:
    """`kalma-graph serve --scoring OPTIONS` on a free port, waited for until it lists its model."""
    port = free_port()
    proc = subprocess.Popen([*SERVE, "--port", str(port), *options], stdout=log, stderr=subprocess.STDOUT,
                            env=WITHOUT_KEY)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 90
    while True:
        if proc.poll() is not None or time.monotonic() > deadline:
            log.seek(0)
            stop(proc)
            raise AssertionError(f"kalma-graph serve did not start: {log.read()[-2000:]}")
        try:
            if httpx.get(f"{url}/models", timeout=2, headers=headers).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.5)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`kalma-graph serve --scoring` on a free port (the defaults: no key on loopback, 4 requests in flight)."""
    log = (tmp_path_factory.mktemp("serve") / "serve.log").open("w+")
    proc, url = start_serve(log)
    yield url
    stop(proc)
    log.close()


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    """`kalma-graph serve --scoring` requiring an API key (as off loopback), one request in flight, 64 KiB bodies."""
    log = (tmp_path_factory.mktemp("guarded") / "serve.log").open("w+")
    proc, url = start_serve(log, "--api-key", KEY, "--max-in-flight", "1", "--max-body-bytes", "65536",
                            "--request-timeout", "600", headers={"Authorization": f"Bearer {KEY}"})
    yield proc, url
    stop(proc)
    log.close()


@pytest.fixture(scope="module")
def local():
    llm = load_llm(None, n_ctx=2048, n_threads=1, seed=0, logits=True)
    yield llm
    llm.close()


def test_generation_equals_the_in_process_model(served, local):
    remote = ServerLLM(served, seed=0)
    params = GenerationParams(max_tokens=32, temperature=0.0, seed=0)
    try:
        head = remote.header()
        assert head["model_sha256"] == local_header_sha() and remote.n_ctx == 2048
        assert remote.scoring >= {"next_token_logprobs", "scored_extensions", "continuation_logprobs"}
        for messages in MESSAGES:
            local.reset()
            assert remote.chat(messages, params).text == local.chat(messages, params).text
        grammar = llama_grammar('root ::= "The answer is " ("yes" | "no") "."')
        local.reset()
        got = remote.chat(MESSAGES[0], params, grammar=grammar).text
        assert got == local.chat(MESSAGES[0], params, grammar=grammar).text
        assert remote.header()["grammar"] == "grammar"
        prompt = remote.chat_prompt(MESSAGES[1])  # the template from /props, not from a local file
        assert prompt == local.chat_prompt(MESSAGES[1])
        local.reset()
        assert remote.complete(prompt, params).text == local.complete(prompt, params).text
    finally:
        remote.close()


def test_log_probabilities_equal_the_in_process_model(served, local):
    """G-Eval's next-token log-probabilities for every candidate (not only a top N) and eq. 1's."""
    remote = ServerLLM(served, seed=0)
    try:
        prompt, candidates = "The capital of France is", [" Paris", " Zanzibar", "1", "5"]
        got, want = remote.next_token_logprobs(prompt, candidates), local.next_token_logprobs(prompt, candidates)
        assert got == pytest.approx(want, abs=1e-5) and got[" Zanzibar"] > float("-inf")
        prefix, ends = "Stephen Crane was an American", [" writer.", " poet and novelist."]
        want_one = local.continuation_logprobs(prefix, ends[0])
        assert remote.continuation_logprobs(prefix, ends[0]) == pytest.approx(want_one, abs=1e-5)
        own, rows = remote.scored_extensions(prefix, ends)
        want_own, want_rows = local.scored_extensions(prefix, ends)
        assert own == pytest.approx(want_own, abs=1e-5) and len(rows) == 2
        assert all(r == pytest.approx(w, abs=1e-5) for r, w in zip(rows, want_rows))
        assert remote.perplexity(prefix, ends[1]) == pytest.approx(local.perplexity(prefix, ends[1]), rel=1e-5)
    finally:
        remote.close()


def test_calls_in_flight_are_answered_as_one_at_a_time(served, local):
    remote = ServerLLM(served, seed=0)
    params = GenerationParams(max_tokens=24, temperature=0.0, seed=0)
    asks = [[{"role": "user", "content": f"Name a {thing}."}] for thing in ("colour", "river", "poet", "city")]
    try:
        with ThreadPoolExecutor(4) as pool:
            got = list(pool.map(lambda m: remote.chat(m, params).text, asks))
        want = []
        for messages in asks:
            local.reset()
            want.append(local.chat(messages, params).text)
        assert got == want
    finally:
        remote.close()


def test_what_it_does_not_serve_is_refused_by_name(served):
    remote = ServerLLM(served, seed=0)
    try:
        with pytest.raises(ServerRefused, match="unsupported field.*frequency_penalty"):
            remote._request("POST", f"{served}/chat/completions",
                            {"messages": MESSAGES[0], "max_tokens": 4, "frequency_penalty": 0.5})
        with pytest.raises(ServerRefused, match="/kalma/call"):
            remote._request("POST", f"{served}/completions", {"prompt": "Hi", "max_tokens": 1, "logprobs": 5})
        with pytest.raises(ServerRefused, match="scores with"):
            remote._request("POST", f"{served[:-3]}/kalma/call", {"method": "close", "args": []})
        with pytest.raises(ServerRefused, match="context window"):
            remote.chat([{"role": "user", "content": "word " * 3000}], GenerationParams(max_tokens=4))
    finally:
        remote.close()


def test_a_build_with_both_models_over_http_is_the_in_process_build(served, tmp_path):
    """`build biokalma --model URL --scorer-model URL` against `kalma-graph serve --scoring`: eq. 1 over HTTP."""
    from tests.e2e.test_biokalma_cli import tiny_store
    from tests.e2e.test_cli import kg

    path = tiny_store(tmp_path)
    common = ["build", "biokalma", "--store", f"embedded:{path}", "--limit", "2", "--rounds", "2", "--no-nli", "--json",
              "--n-ctx", "2048"]
    kg(*common, "--out", str(tmp_path / "local.jsonl"))
    via = json.loads(kg(*common, "--out", str(tmp_path / "served.jsonl"), "--model", served,
                        "--scorer-model", served).stdout)
    assert via["settings"]["model_sha256"] == local_header_sha()

    def entries(name):
        return [{k: v for k, v in json.loads(line).items() if k != "provenance"}
                for line in (tmp_path / name).read_text().splitlines()]

    assert entries("served.jsonl") == entries("local.jsonl") and len(entries("local.jsonl")) == 2


def test_a_guarded_server_refuses_what_it_bounds_and_goes_on(guarded, local, monkeypatch):
    """401 without the key (or a wrong one), 413 for a body over --max-body-bytes (declared or chunked), 400 for
    malformed JSON, 503 + Retry-After beyond --max-in-flight; then a valid request decodes as in-process."""
    proc, url = guarded
    root, auth = url[:-3], {"Authorization": f"Bearer {KEY}"}
    chat = {"messages": MESSAGES[0], "max_tokens": 8, "temperature": 0.0, "seed": 0}
    with httpx.Client(timeout=300) as client:
        for headers in ({}, {"Authorization": "Bearer not-the-key"}):
            for response in (client.get(f"{url}/models", headers=headers), client.get(f"{root}/props", headers=headers),
                             client.post(f"{url}/chat/completions", json=chat, headers=headers)):
                assert response.status_code == 401 and response.json()["error"]["type"] == "authentication_error"
        oversized = json.dumps({**chat, "messages": [{"role": "user", "content": "word " * 20000}]}).encode()
        for content in (oversized, (oversized[i:i + 8192] for i in range(0, len(oversized), 8192))):
            response = client.post(f"{url}/chat/completions", content=content, headers=auth)
            assert response.status_code == 413 and response.json()["error"]["type"] == "request_too_large"
        for content in (b'{"messages": [', b"not json", b"[]"):
            response = client.post(f"{url}/chat/completions", content=content, headers=auth)
            assert response.status_code == 400 and response.json()["error"]["type"] == "invalid_request_error"

        # --max-in-flight 1: while a generation runs, a second request is refused at once, with Retry-After
        slow = {"messages": [{"role": "user", "content": "Write a long story about a river."}], "max_tokens": 256,
                "temperature": 0.0, "seed": 0}
        busy: list[httpx.Response] = []

        def generate(into: list[httpx.Response]) -> None:
            while True:  # a probe below may hold the slot when this arrives: sent again until admitted
                response = httpx.post(f"{url}/chat/completions", json=slow, headers=auth, timeout=300)
                if response.status_code != 503:
                    into.append(response)
                    return

        for _ in range(3):  # a generation that ends before a probe arrives is tried again
            first: list[httpx.Response] = []
            runner = threading.Thread(target=generate, args=(first,))
            runner.start()
            while runner.is_alive() and not busy:
                response = client.post(f"{root}/extras/tokenize/count", json={"input": "a b"}, headers=auth)
                assert response.status_code in (200, 503)
                if response.status_code == 503:  # the one slot is the generation's
                    busy.append(response)
            runner.join()
            assert first[0].status_code == 200
            if busy:
                break
        assert busy, "no request was ever refused while a generation ran"
        assert busy[0].headers["retry-after"].isdigit() and busy[0].json()["error"]["type"] == "server_busy"

    # still up, and the decoding is the in-process one (kalma-graph's client sends KALMA_API_KEY)
    assert proc.poll() is None
    monkeypatch.setenv("KALMA_API_KEY", KEY)
    remote = ServerLLM(url, seed=0)
    params = GenerationParams(max_tokens=32, temperature=0.0, seed=0)
    try:
        for messages in MESSAGES:
            local.reset()
            assert remote.chat(messages, params).text == local.chat(messages, params).text
    finally:
        remote.close()


def test_it_will_not_listen_off_loopback_without_a_key():
    """Refused before the model loads: exit 2 and one line naming the way out."""
    proc = subprocess.run([*SERVE, "--host", "0.0.0.0", "--port", str(free_port())], capture_output=True, text=True,
                          env=WITHOUT_KEY, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "--api-key" in proc.stderr and "KALMA_API_KEY" in proc.stderr and "Traceback" not in proc.stderr
