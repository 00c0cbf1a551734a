"""A model behind a real OpenAI-compatible server (issue 34): llama-cpp-python's own server, started here on a
loopback port with the packaged SmolLM2 GGUF, against the same GGUF in-process. A misbehaving endpoint (down,
malformed JSON, ignoring grammars) is a small HTTP server of the test's: those are the remote's faults the
client must name, not the client under test."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from kalma_graph.generation.grammar import llama_grammar
from kalma_graph.models.llm import GenerationParams, LLMError, default_model_path, load_llm
from kalma_graph.models.server import Endpoint, ServerLLM

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, log, model=None) -> subprocess.Popen:
    """`python -m llama_cpp.server` on 127.0.0.1:port, waited for until it lists its model (its log goes to a
    file: llama.cpp's loading messages would fill a pipe nobody reads and stall it)."""
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(model or default_model_path()),
                             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "1",
                             "--seed", "0"], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            raise AssertionError(f"llama_cpp.server exited: {log.read()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.5)
    proc.kill()
    raise AssertionError("llama_cpp.server did not start in 90 s")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    with (tmp_path_factory.mktemp("server") / "server.log").open("w+") as log:
        proc = start_server(port, log)
        yield f"http://127.0.0.1:{port}/v1"
        stop(proc)


@pytest.fixture(scope="module")
def local():
    llm = load_llm(None, n_ctx=2048, n_threads=1, seed=0)
    yield llm
    llm.close()


def local_header_sha() -> str:
    from kalma_graph.files import file_sha256

    return file_sha256(default_model_path())


def sample_questions(tmp_path, tmp_path_factory, name: str, n: int):
    """The sample store (released for the CLI to open) and `n` BioKaLMA questions (from the 61st) in a file."""
    import gzip

    from tests.conftest import DUMPS
    from tests.e2e.test_retrieval_linking import release_sample_store, sample_store_path

    store = sample_store_path(tmp_path_factory)
    release_sample_store()
    with gzip.open(DUMPS / "biokalma/simple_question_graph.json.gz", "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    questions = tmp_path / f"{name}.json"
    questions.write_text(json.dumps(data[60:60 + n]), encoding="utf-8")
    return store, questions


MESSAGES = [
    [{"role": "user", "content": "Who was Stephen Crane? Answer in one sentence."}],
    [{"role": "system", "content": "You answer briefly."}, {"role": "user", "content": "Name a colour."}],
]


def test_an_endpoint_is_a_model_like_a_file(server):
    llm = load_llm(server)  # the first model the server lists
    try:
        assert isinstance(llm, ServerLLM) and llm.model.endswith(".gguf")
        head = llm.header()
        assert head["endpoint"] == server and head["device"] == "server"
        assert head["model_sha256"] == local_header_sha()  # the file the served model's name points to here
    finally:
        llm.close()


def test_greedy_outputs_equal_the_in_process_model(server, local):
    """Same GGUF, temperature 0: the server writes what the in-process model writes, with and without a grammar."""
    remote = ServerLLM(server, seed=0)
    params = GenerationParams(max_tokens=32, temperature=0.0, seed=0)
    try:
        for messages in MESSAGES:
            local.reset()
            assert remote.chat(messages, params).text == local.chat(messages, params).text
        grammar = llama_grammar('root ::= "The answer is " ("yes" | "no") "."')
        local.reset()
        constrained = remote.chat(MESSAGES[0], params, grammar=grammar)
        assert constrained.text == local.chat(MESSAGES[0], params, grammar=grammar).text
        assert constrained.text in ("The answer is yes.", "The answer is no.")
        assert remote.header()["grammar"] == "grammar"  # llama-cpp-python's field, found by the probe
        assert remote.count_tokens("Stephen Crane was an American writer.") == local.count_tokens(
            "Stephen Crane was an American writer.")
    finally:
        remote.close()


def test_next_token_log_probabilities_match_the_in_process_model(server, local):
    """G-Eval's 1–5 scores read the first token's log-probabilities: equal where the server lists the token
    among its 20 most likely, -inf (weighing nothing) where it does not."""
    remote = ServerLLM(server, seed=0)
    prompt, candidates = "The capital of France is", [" Paris", " the", " a", " located", " Zanzibar"]
    try:
        got, want = remote.next_token_logprobs(prompt, candidates), local.next_token_logprobs(prompt, candidates)
        assert got[" Paris"] > -3 and got[" Zanzibar"] == float("-inf")
        listed = [c for c in candidates if got[c] > float("-inf")]
        assert len(listed) >= 2
        for c in listed:
            assert got[c] == pytest.approx(want[c], abs=0.05), (c, got, want)
    finally:
        remote.close()


def test_the_chat_template_comes_from_the_gguf_the_server_names(server, local):
    """`--cite grounded` continues the rendered chat prompt with completions under a grammar; G-Eval reads the
    next token after it. llama-cpp-python's server lists its model by path, so the template is read from that
    GGUF here; the rendered prompt and the greedy constrained continuation equal the in-process ones."""
    remote = ServerLLM(server, seed=0)
    try:
        prompt = remote.chat_prompt(MESSAGES[1])
        assert prompt == local.chat_prompt(MESSAGES[1])
        params = GenerationParams(max_tokens=16, temperature=0.0, seed=0)
        grammar = llama_grammar('root ::= [A-Za-z ]+ "."')
        local.reset()
        assert (remote.complete(prompt, params, grammar=grammar).text
                == local.complete(prompt, params, grammar=grammar).text)
        with pytest.raises(LLMError, match="in-process"):
            remote.continuation_logprobs("Stephen Crane was", " a writer")
    finally:
        remote.close()
    unnamed = ServerLLM(f"{server}#some-served-model")
    try:
        with pytest.raises(LLMError, match="does not serve its chat template"):
            unnamed.chat_prompt(MESSAGES[0])
    finally:
        unnamed.close()


def test_a_registry_server_entry_is_a_model_by_name(server, local, tmp_path, monkeypatch):
    """A user registry that extends the packaged one names the server; the GGUF it says it serves gives the chat
    template and the header's sha256 (the served name alone means nothing here)."""
    from click.testing import CliRunner

    from kalma_graph.cli.main import cli
    from kalma_graph.models.registry import choose_model

    registry = tmp_path / "servers.json"
    registry.write_text(json.dumps({"extends": "packaged", "servers": [
        {"kind": "server", "name": "loopback-smollm", "endpoint": f"{server}#some-served-model",
         "serves": "smollm2-135m", "timeout": 60, "retries": 1}]}), encoding="utf-8")
    monkeypatch.setenv("KALMA_MODEL_REGISTRY", str(registry))
    choice = choose_model("loopback-smollm")
    assert choice.name == "loopback-smollm" and server in choice.why
    remote = load_llm(choice.path)
    try:
        assert isinstance(remote, ServerLLM) and remote.timeout == 60 and remote.retries == 1
        assert remote.header()["model_sha256"] == local_header_sha()
        assert remote.chat_prompt(MESSAGES[1]) == local.chat_prompt(MESSAGES[1])
        local.reset()
        params = GenerationParams(max_tokens=16, temperature=0.0, seed=0)
        assert remote.chat(MESSAGES[0], params).text == local.chat(MESSAGES[0], params).text
    finally:
        remote.close()
    listed = CliRunner().invoke(cli, ["models", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    data = json.loads(listed.output)
    assert [s["name"] for s in data["servers"]] == ["loopback-smollm"]
    assert data["models"][0]["name"] == "qwen2.5-coder-1.5b-q4km"  # the packaged models stay, first
    pulled = CliRunner().invoke(cli, ["models", "pull", "loopback-smollm"])
    assert pulled.exit_code != 0 and "is a model server" in pulled.output


def test_a_server_that_is_down_is_named():
    url = f"http://127.0.0.1:{free_port()}/v1"
    remote = ServerLLM(f"{url}#model", retries=1, backoff=0.01)
    with pytest.raises(LLMError, match=f"{url}/chat/completions did not answer after 2 tries"):
        remote.chat(MESSAGES[0], GenerationParams(max_tokens=8))


class _Faulty(BaseHTTPRequestHandler):
    """Malformed JSON on /v1/completions; on /v1/chat/completions, "hello" whatever the grammar."""

    def do_POST(self):  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path.endswith("/completions") and "chat" not in self.path:
            body = b"{not json"
        else:
            body = json.dumps({"choices": [{"message": {"content": "hello"}, "finish_reason": "stop"}],
                               "usage": {}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # quiet
        pass


@pytest.fixture
def faulty():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Faulty)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1#m"
    httpd.shutdown()


def test_malformed_json_and_an_ignored_grammar_are_refused_by_name(faulty):
    remote = ServerLLM(faulty, retries=0)
    base = Endpoint.parse(faulty).base
    with pytest.raises(LLMError, match="malformed JSON"):
        remote.complete("Hello", GenerationParams(max_tokens=4))
    assert remote.chat(MESSAGES[0], GenerationParams(max_tokens=4)).text == "hello"  # no grammar asked: fine
    with pytest.raises(LLMError, match=f"{base} ignores grammars"):
        remote.chat(MESSAGES[0], GenerationParams(max_tokens=4), grammar=llama_grammar('root ::= "yes"'))


def test_a_server_killed_mid_run_loses_nothing_and_the_run_resumes(tmp_path, tmp_path_factory):
    """`kalma-graph answer --model URL`: the server dies after two answers; those are kept, the rest fail with
    the endpoint named; with the server back, the same command answers only what is missing."""
    from tests.e2e.test_cli import kg

    store, questions = sample_questions(tmp_path, tmp_path_factory, "six", 6)
    out = tmp_path / "answers.jsonl"
    port = free_port()
    url = f"http://127.0.0.1:{port}/v1"
    args = ["answer", "--questions", str(questions), "--out", str(out), "--store", f"embedded:{store}",
            "--model", url, "--max-tokens", "24", "--no-progress", "--json"]
    with (tmp_path / "server.log").open("w+") as log:
        proc = start_server(port, log)
        run = subprocess.Popen([sys.executable, "-m", "kalma_graph.cli.main", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        while run.poll() is None and (not out.exists() or len(out.read_text().splitlines()) < 2):
            time.sleep(0.05)
        proc.kill()
        proc.wait()
        stdout, stderr = run.communicate(timeout=600)
        first = out.read_text().splitlines()
        assert 2 <= len(first) < 6, (stdout, stderr)
        assert f"127.0.0.1:{port}/" in stdout + stderr and "did not answer after" in stdout + stderr
        proc = start_server(port, log)
        try:
            again = json.loads(kg(*args).stdout)
        finally:
            stop(proc)
    lines = out.read_text().splitlines()
    assert lines[: len(first)] == first  # nothing finished was rewritten
    assert again["written"] == 6 - len(first) and again["skipped_done"] == len(first)
    assert sorted(json.loads(line)["id"] for line in lines) == [f"six:{i}" for i in range(6)]


def _untimed(record: dict) -> dict:
    """An answer record less what the clock says (`timings`; the grounded loop's `seconds`, `first_sentence_s`)."""
    out = {k: v for k, v in record.items() if k != "timings"}
    if out.get("grounding"):
        out["grounding"] = {k: v for k, v in out["grounding"].items() if k not in ("seconds", "first_sentence_s")}
    return out


def test_concurrent_requests_write_the_sequential_file(server, tmp_path, tmp_path_factory):
    """`--concurrency 3` against a server: the same answers, in the same order, as one request at a time."""
    from tests.e2e.test_cli import kg

    store, questions = sample_questions(tmp_path, tmp_path_factory, "five", 5)
    runs = {}
    for n in (1, 3):
        out = tmp_path / f"answers{n}.jsonl"
        summary = json.loads(
            kg("answer", "--questions", str(questions), "--out", str(out), "--store", f"embedded:{store}",
               "--model", server, "--max-tokens", "24", "--no-progress", "--json",
               "--concurrency", str(n)).stdout)
        assert summary["written"] == 5 and summary["failed"] == []
        runs[n] = [_untimed(json.loads(line)) for line in out.read_text().splitlines()]
    assert [r["id"] for r in runs[3]] == [f"five:{i}" for i in range(5)]
    assert runs[3] == runs[1]


def test_two_shards_merged_are_the_unsharded_run(server, tmp_path, tmp_path_factory):
    """`answer --shard 1/2` and `--shard 2/2` (as two machines would run them), then `merge`: the unsharded
    run's answers in its order; a shard file from another run is refused."""
    from tests.e2e.test_cli import kg

    store, questions = sample_questions(tmp_path, tmp_path_factory, "five", 5)
    common = ["--questions", str(questions), "--store", f"embedded:{store}", "--model", server, "--max-tokens", "24",
              "--no-progress", "--json"]

    def answers(path):
        return [_untimed(json.loads(line)) for line in path.read_text().splitlines()]

    whole = tmp_path / "whole.jsonl"
    kg("answer", *common, "--out", str(whole))
    parts = [tmp_path / f"part{i}.jsonl" for i in (1, 2)]
    sizes = [json.loads(kg("answer", *common, "--out", str(p), "--shard", f"{i}/2").stdout)["written"]
             for i, p in zip((1, 2), parts)]
    assert sum(sizes) == 5 and all(sizes)  # both shards hold some of the five
    merged = tmp_path / "merged.jsonl"
    summary = json.loads(
        kg("merge", "--questions", str(questions), "--out", str(merged), *map(str, parts), "--json").stdout)
    assert (summary["merged"], summary["missing"]) == (5, 0)
    assert answers(merged) == answers(whole)
    clash = kg("merge", "--questions", str(questions), "--out", str(tmp_path / "x.jsonl"), str(whole), str(parts[0]),
               check=False)
    assert clash.returncode == 2 and "both answer" in clash.stderr


def test_a_build_written_through_a_server_is_the_in_process_build(server, tmp_path):
    """`build biokalma --model URL --scorer-model GGUF --concurrency 2`: eq. 1 scored in-process, sentences and
    questions written by the server, two entries in flight: the same entries, in the same order, as an in-process
    sequential build (greedy); a server without a scorer is refused."""
    from tests.e2e.test_biokalma_cli import tiny_store
    from tests.e2e.test_cli import kg

    path = tiny_store(tmp_path)
    common = ["build", "biokalma", "--store", f"embedded:{path}", "--limit", "2", "--rounds", "2", "--no-nli", "--json",
              "--n-ctx", "2048"]
    kg(*common, "--out", str(tmp_path / "local.jsonl"))
    via = json.loads(kg(*common, "--out", str(tmp_path / "server.jsonl"), "--model", server,
                        "--scorer-model", str(default_model_path()), "--concurrency", "2").stdout)
    assert via["settings"]["writer_endpoint"] == server and via["settings"]["model_sha256"]

    def entries(name):
        return [{k: v for k, v in json.loads(line).items() if k != "provenance"}
                for line in (tmp_path / name).read_text().splitlines()]

    assert entries("server.jsonl") == entries("local.jsonl") and len(entries("local.jsonl")) == 2
    refused = kg(*common, "--out", str(tmp_path / "x.jsonl"), "--model", server, check=False)
    assert refused.returncode == 2 and "--scorer-model" in refused.stderr


def test_geval_scores_through_a_server_equal_the_in_process_judge(server, local):
    """`evaluate --judge URL --judge-concurrency 3`: the rendered judge prompt, its next-token probabilities of 1..5
    and so the score, for each item and aspect, in order, with three judgements in flight."""
    from kalma_graph.evaluation.geval import GEvalInput, GEvalJudge, geval

    items = [GEvalInput("q1", "Who was Stephen Crane?", "Stephen Crane was an American writer.",
                        "{qid: Q206534, name: Stephen Crane, occupation: writer}"),
             GEvalInput("q2", "Where was Stephen Crane born?", "He was born in Newark, New Jersey.",
                        "{qid: Q206534, name: Stephen Crane, place of birth: Newark}"),
             GEvalInput("q3", "What did Crane write?", "He wrote The Red Badge of Courage.", "")]
    remote = ServerLLM(server, seed=0)
    try:
        got = geval(items, GEvalJudge(remote, aspects=("fluency", "coherence"), concurrency=3))
        want = geval(items, GEvalJudge(local, aspects=("fluency", "coherence")))
        pairs = [(row["id"], aspect) for row in want["per_answer"] for aspect in ("fluency", "coherence")]
        assert [(row["id"], a) for row in got["per_answer"] for a in ("fluency", "coherence")] == pairs
        for g, w in zip(got["per_answer"], want["per_answer"]):
            for aspect in ("fluency", "coherence"):
                assert w[aspect]["score"] is not None
                assert g[aspect]["score"] == pytest.approx(w[aspect]["score"], abs=0.02), (g["id"], aspect)
    finally:
        remote.close()


def test_caqa_and_sck_llm_judges_keep_calls_in_flight_and_their_order(server, local):
    """`caqa bench --concurrency 3` and `score --attribution-judge llm --concurrency 3` through a server: every
    label the sequential in-process judge gives, in the samples' order."""
    from kalma_graph.caqa.evaluators import make_evaluator
    from kalma_graph.caqa.model import Sample

    def sample(i, answer, citation):
        return Sample(id=f"s{i}", query_key="q", kb="wikidata", split="test", question="Where was Stephen Crane born?",
                      extended_question=None, answer=["Newark"], answer_ids=["Q18127"], answer_statement=answer,
                      citation=citation, category="supportive", complexity="single", triples=[], facts=[], query={},
                      group_size=1)

    samples = [sample(0, "Stephen Crane was born in Newark.", "Stephen Crane, place of birth: Newark"),
               sample(1, "Stephen Crane was born in Paris.", "Stephen Crane, place of birth: Newark"),
               sample(2, "Stephen Crane wrote novels.", "Stephen Crane, occupation: novelist"),
               sample(3, "Crane died in 1900.", "Stephen Crane, date of death: 1900")]
    from kalma_graph.sck.judges import LLMAttributionJudge
    from kalma_graph.sck.kg_attr import SentenceEvidence
    from tests.unit.test_sck_scores import BIRTH, CRANE, JOB, NAMES, NEWARK, TYPES

    evidence = SentenceEvidence((NEWARK,), (NEWARK, CRANE), (BIRTH,), (JOB,), NAMES, TYPES)
    sentences = [(s, evidence) for s in ("Stephen Crane was born in Newark.", "Crane was a poet.",
                                         "Crane was born in Boston.", "He liked Newark.")]
    remote = ServerLLM(server, seed=0)
    try:
        for name in ("llm-zero-shot", "cot-llm"):
            local.reset()
            want = make_evaluator(name, llm=local, constrained=True).judge(samples)
            got = make_evaluator(name, llm=remote, constrained=True, concurrency=3).judge(samples)
            assert [(j.label, j.raw) for j in got] == [(j.label, j.raw) for j in want], name
        local.reset()
        want = LLMAttributionJudge(local, max_tokens=64).judge("Where was Stephen Crane born?", sentences)
        got = LLMAttributionJudge(remote, max_tokens=64, concurrency=3).judge(
            "Where was Stephen Crane born?", sentences)
        assert [(j.label, j.raw) for j in got] == [(j.label, j.raw) for j in want]
        assert len({j.raw for j in got}) > 1  # four sentences, not one answer repeated
    finally:
        remote.close()
