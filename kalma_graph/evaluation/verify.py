"""`kalma-graph verify`: check answers from any LLM against the loaded graph.

    checks = verify_answers(read_items("answers.jsonl"), store=store)   # JSONL or CSV of (question, answer)
    report = verify_report(checks)                                       # counts, and each check as JSON

An item is an answers-file record of `kalma-graph answer` (its own shown graph is used) or any object with
`answer` (and optionally `question`, `id`): the graph is then what the store holds about the entities the
question and answer name. Reading never guesses: a line that is not an object with an `answer` is an error
naming `file:line`.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, Sequence

from kalma_graph.errors import BadInputError
from kalma_graph.lines import json_lines
from kalma_graph.verification import AnswerCheck, AnswerInput, GraphEntity, Verifier
from kalma_graph.verification.verifier import cited_sentences, graph_triple

from .answers_file import ScoredAnswer

MAX_ANSWER_CHARS = 20000  # longer answers are checked up to here


class VerifyInputError(BadInputError, ValueError):
    """An input the verify command cannot read; the message starts with `file:line:`."""


def read_items(path: str | Path) -> list[dict[str, Any]]:
    """(question, answer) items from a JSONL file (answers-file records too) or a CSV with an `answer` column."""
    path = Path(path)
    if not path.is_file():
        raise VerifyInputError(f"{path}: no such file")
    items: list[dict[str, Any]] = []
    if path.suffix.lower() in (".csv", ".tsv"):
        with path.open(encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f, delimiter="\t" if path.suffix.lower() == ".tsv" else ",")
            if not reader.fieldnames or "answer" not in reader.fieldnames:
                raise VerifyInputError(f"{path}:1: a CSV needs an 'answer' column (and optionally 'question', 'id')")
            for line, row in enumerate(reader, start=2):
                items.append(_item(row, f"{path}:{line}", len(items)))
        return items
    for where, value in json_lines(path, what="answers file", error=VerifyInputError):
        items.append(_item(value, where, len(items)))
    return items


def _item(value: Any, where: str, index: int) -> dict[str, Any]:
    if not isinstance(value, dict) or not isinstance(value.get("answer"), str):
        raise VerifyInputError(f"{where}: expected an object with a text 'answer' (and optionally 'question', 'id')")
    out = dict(value)
    out["id"] = str(value.get("id") or f"answer-{index + 1}")
    out["question"] = str(value.get("question") or "")
    out["_where"] = where
    return out


def to_input(item: dict[str, Any], store: Any | None) -> AnswerInput:
    """An answers-file record keeps the graph it was shown; any other answer is checked against the store."""
    if item.get("retrieved") or item.get("shown"):
        record = {k: v for k, v in item.items() if not k.startswith("_")}
        return verifier_input(record)
    return text_input(item["answer"], question=item["question"], store=store, answer_id=item["id"])


def verify_answers(items: Sequence[dict[str, Any]], *, store: Any | None = None, verifier: Verifier | None = None,
                   progress: Any | None = None) -> list[AnswerCheck]:
    verifier = verifier or Verifier(store)
    out = []
    for i, item in enumerate(items):
        out.append(verifier.verify(to_input(item, store)))
        if progress:
            progress(i + 1, len(items))
    return out


def verify_report(checks: Sequence[AnswerCheck]) -> dict[str, Any]:
    """Counts over all checks (citations by verdict, claims by status) and every check."""
    totals: dict[str, int] = {}
    for check in checks:
        for k, v in check.counts().items():
            totals[k] = totals.get(k, 0) + v
    cites = totals.get("supported", 0) + totals.get("partial", 0) + totals.get("unsupported", 0)
    return {
        "kind": "kalma-graph.verification",
        "version": 1,
        "answers": len(checks),
        "citations": cites,
        "alignment": totals.get("supported", 0) / cites if cites else None,
        "counts": totals,
        "verifier": checks[0].verifier if checks else {},
        "checks": [c.model_dump() for c in checks],
    }


def from_scored(scored: ScoredAnswer) -> AnswerInput:
    """A `ScoredAnswer` (the evaluation's parse) as the verifier's `AnswerInput` (the evaluation adapts its own
    records: the verifier knows nothing of evaluation)."""
    entities = [GraphEntity(id=i, name=n) for i, n in scored.subject_names.items() if n]
    return AnswerInput(
        id=scored.id,
        question=scored.question,
        sentences=cited_sentences(scored.parsed.sentences),
        shown=[graph_triple(t) for t in scored.shown],
        entities=entities,
    )


def verifier_input(record: Any, extra_names: dict[str, str] | None = None) -> AnswerInput:
    """An answers-file record (`AnswerRecord` or its dict) as the verifier reads it: its sentences as the
    evaluation parses them, the graph shown to the model and the names of its entities."""
    from kalma_graph.evaluation.answers_file import scored_answer

    return from_scored(scored_answer(record, extra_names))


def text_input(answer: str, *, question: str = "", store: Any | None = None, answer_id: str = "answer",
               shown: Sequence[Any] | None = None) -> AnswerInput:
    """Any answer, from any LLM, as an `AnswerInput`: citation marks are read when present; the graph is
    `shown` when given, else the one-hop statements of the entities that the question and the answer name
    (graph-aware mention detection over the store's names, no NER model needed)."""
    from kalma_graph.kg.citations import known_pairs, known_props, parse_answer
    from kalma_graph.kg.triples import Entity

    answer = answer[:MAX_ANSWER_CHARS]
    triples = [graph_triple(t) for t in shown] if shown is not None else []
    names: dict[str, str] = {}
    if shown is None and store is not None:
        from kalma_graph.retrieval.retrieve import retrieve

        found = retrieve(store, f"{question}\n{answer}".strip(), None, type_policy="graph", graph_mentions=True,
                         batched=True)
        names = {e.id: e.name for e in found.entities if e.name}
        triples = [graph_triple(t) for t in found.triples]
    subjects = [Entity(s, name=names.get(s)) for s in dict.fromkeys(t.subject for t in triples)]
    parsed = parse_answer(answer, known_props(subjects, triples) or None, known_pairs(subjects, triples) or None)
    return AnswerInput(
        id=answer_id, question=question,
        sentences=cited_sentences(parsed.sentences),
        shown=triples,
        entities=[GraphEntity(id=i, name=n) for i, n in names.items()],
        shown_is_store=shown is None and store is not None,
    )
