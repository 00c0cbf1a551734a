"""`bench/closed_book_answers.py` (issue 44): a local model's answers from memory, the kind `kalma-graph verify` is
for, written one record a line and resumed without redoing an answer; a file made with another model is refused.
The real packaged SmolLM2 GGUF (its prose is not what is checked), and `verify` reads what it wrote against the real
sample graph."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kalma_graph.cli.main import cli
from kalma_graph.models.llm import resolve_model_path
from kalma_graph.records import AnswerRecord
from tests.e2e.test_retrieval_linking import release_sample_store, sample_store_path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))
from closed_book_answers import main  # noqa: E402


@pytest.mark.slow
def test_answers_are_written_resumed_and_readable_by_verify(tmp_path, tmp_path_factory):
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps({"id": f"q{i}", "question": q}) + "\n" for i, q in enumerate(
        ["Where was Franz Kafka born?", "Who was Stephen Crane?"])), encoding="utf-8")
    out = tmp_path / "answers.jsonl"
    args = ["--questions", str(questions), "--out", str(out), "--model", "smollm2-135m", "--threads", "1",
            "--max-tokens", "24"]
    assert main(args) == 0
    first = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in first] == ["q0", "q1"]
    # each line is an AnswerRecord, written as the pipeline writes one (byte for byte)
    assert all(json.dumps(AnswerRecord.model_validate(r).to_json_dict(), ensure_ascii=False) == line
               for r, line in zip(first, out.read_text(encoding="utf-8").splitlines()))
    assert all(r["answer"] and r["model"]["model_file"] == Path(resolve_model_path("smollm2-135m")).name
               for r in first)
    assert {r["params"]["prompt"] for r in first} == {"chatbot/closed_book"}
    # a third question: the two answered are kept as they are, only the new one is answered
    with questions.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"id": "q2", "question": "Who was Edgar Allan Poe?"}) + "\n")
    assert main(args) == 0
    second = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert second[:2] == first and [r["id"] for r in second] == ["q0", "q1", "q2"]
    # answers made with another model are not mixed in
    other = [json.dumps({**r, "model": {**r["model"], "model_sha256": "0" * 64}}) + "\n" for r in second]
    out.write_text("".join(other), encoding="utf-8")
    with pytest.raises(SystemExit, match="other settings"):
        main(args)
    # what it writes is what `verify` reads
    out.write_text("".join(json.dumps(r) + "\n" for r in second), encoding="utf-8")
    report = tmp_path / "verify.json"
    store = sample_store_path(tmp_path_factory)
    release_sample_store()  # the CLI opens the store by its URI
    result = CliRunner().invoke(cli, ["verify", str(out), "--store", f"embedded:{store}", "--out", str(report)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    written = json.loads(report.read_text(encoding="utf-8"))
    assert written["answers"] == 3 and len(written["checks"]) == 3
