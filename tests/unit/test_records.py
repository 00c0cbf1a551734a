"""The answer record (kalma_graph.records): the files in the repository read, round-trip byte for
byte, older shapes still read, and a bad line names its file, line and field."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kalma_graph.evaluation.answers_file import AnswersFileError, read_answers
from kalma_graph.evaluation.evaluate import evaluate_records
from kalma_graph.records import AnswerRecord, TripleRecord
from tests.unit.test_evaluate_fixtures import answer_records

ROOT = Path(__file__).resolve().parents[2]
ANSWERS_FILES = sorted(
    ROOT / p for p in subprocess.run(["git", "-C", str(ROOT), "ls-files", "*answers.jsonl"], capture_output=True,
                                     text=True, check=False).stdout.split()
)


def test_the_repository_has_answers_files():
    assert ANSWERS_FILES, "bench/results/paper holds the Table 3 answers"


@pytest.mark.parametrize("path", ANSWERS_FILES, ids=lambda p: p.parent.name)
def test_pipeline_answers_round_trip_byte_for_byte(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    for line in lines:
        record = AnswerRecord.model_validate_json(line)
        assert json.dumps(record.to_json_dict(), ensure_ascii=False) == line
    assert len(read_answers(path).records) == len(lines)


def test_fixture_records_round_trip():
    for raw in answer_records():
        assert AnswerRecord.model_validate(raw).to_json_dict() == raw


def test_older_record_shapes_read():
    # null lists, no pid, a selected entity written as the candidate itself, candidates named
    # qid/label, no sentences, an integer id, and a key this version does not know
    old = {"id": 7, "answer": "He was born in Newark [Q1, place of birth: Newark].", "retrieved": None,
           "removed": [{"subject": "Q1", "label": "place of birth", "value": "Newark"}],
           "entities": [{"mention": "Crane", "selected": {"qid": "Q1", "label": "Stephen Crane"},
                         "candidates": [{"qid": "Q2", "label": "Hart Crane"}, "Q3"]}],
           "legacy_field": {"kept": True}}
    record = AnswerRecord.model_validate(old)
    assert record.retrieved == [] and record.sentences is None and record.stored_citations() is None
    assert record.entity_names() == {"Q1": "Stephen Crane", "Q2": "Hart Crane"}
    assert record.to_json_dict()["legacy_field"] == {"kept": True}
    assert record.shown_triples() == []  # everything retrieved (nothing) minus what was removed
    results = evaluate_records([record])
    assert results.per_answer[0].id == "7" and results.summary.citations == 1


def test_shown_is_retrieved_minus_removed_unless_recorded():
    a, b = (TripleRecord(subject="Q1", pid="P1", label="x", value=v) for v in ("a", "b"))
    record = AnswerRecord(id="q", answer="", retrieved=[a, b], removed=[b])
    assert record.shown_triples() == [a]
    assert AnswerRecord(id="q", answer="", retrieved=[a, b], removed=[b], shown=[b]).shown_triples() == [b]


def test_truncation_from_either_field():
    assert AnswerRecord(id="q", answer="", finish_reason="length").was_truncated
    assert AnswerRecord(id="q", answer="", truncated=True).was_truncated
    assert not AnswerRecord(id="q", answer="", finish_reason="stop", truncated=False).was_truncated


@pytest.mark.parametrize("change, message", [
    ({"retrieved": [{"subject": "Q1", "value": "x"}]}, r"retrieved\[0\]\.label: Field required"),
    ({"sentences": [{"text": "A.", "citations": [{"qid": "Q1", "prop": "p"}]}]},
     r"sentences\[0\]\.citations\[0\]\.value: Field required"),
    ({"truncated": "maybe"}, r"truncated: Input should be a valid boolean"),
    ({"params": []}, r"params: Input should be a valid dictionary"),
])
def test_a_malformed_record_names_line_and_field(tmp_path, change, message):
    good, bad = answer_records()[0], answer_records()[1] | change
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(AnswersFileError, match=rf"answers\.jsonl:2: {message}"):
        read_answers(path)
    with pytest.raises(AnswersFileError, match=rf"^record 1: {message}"):
        evaluate_records([good, bad])


def test_documented_schema_is_the_models():
    """docs/answer.md names every field of every model, and docs/answer_record.schema.json is the
    models' JSON schema (the command that regenerates it is in docs/answer.md)."""
    import kalma_graph.records as records

    saved = json.loads((ROOT / "docs/answer_record.schema.json").read_text(encoding="utf-8"))
    assert saved == AnswerRecord.model_json_schema()
    text = (ROOT / "docs/answer.md").read_text(encoding="utf-8")
    table = next(b for b in text[text.index("<!-- answer-record-fields -->"):].split("\n\n") if b.startswith("| Model"))
    documented: dict[str, set[str]] = {}
    model = None
    for row in table.splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        model = cells[0].strip("`") or model
        documented.setdefault(model, set()).update(f.strip().strip("`") for f in cells[1].split(","))
    models = {name: getattr(records, name) for name in records.__all__ if name.endswith(("Record", "Entity"))}
    assert documented == {name: set(m.model_fields) for name, m in models.items()}


def test_an_entity_is_named_as_the_graph_names_it_not_as_the_question_did():
    # v6 labelled set, complex_question_graph:110: "General Tipu Sultan" links Q10088 with the honorific stripped;
    # the answer writes "Tipu Sultan", and every citation of his was checked against "General Tipu Sultan"
    record = AnswerRecord.model_validate({
        "id": "complex_question_graph:110", "question": "What were the roles of General Tipu Sultan?",
        "entities": [{"mention": "General Tipu Sultan", "selected": "Q10088",
                      "candidates": [{"id": "Q10088", "name": "Tipu Sultan", "score": 0.0}]},
                     {"mention": "Hyder Ali", "selected": "Q1569078"}],
        "answer": ""})
    assert record.entity_names() == {"Q10088": "Tipu Sultan", "Q1569078": "Hyder Ali"}
