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

#: An answer longer than this is checked in pieces of whole sentences (`answer_pieces`), each with the persons it
#: names: every sentence gets a verdict, in memory and time that grow with one piece, not the whole answer.
MAX_PIECE_CHARS = 20000


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


def _keeps_its_graph(item: dict[str, Any]) -> bool:
    """An answers-file record: it carries the graph its model was shown."""
    return bool(item.get("retrieved") or item.get("shown"))


def to_input(item: dict[str, Any], store: Any | None) -> AnswerInput:
    """An answers-file record keeps the graph it was shown; any other answer is checked against the store (one
    `text_input`, however long: `check_item` checks a long one in pieces)."""
    if _keeps_its_graph(item):
        record = {k: v for k, v in item.items() if not k.startswith("_")}
        return verifier_input(record)
    return text_input(item["answer"], question=item["question"], store=store, answer_id=item["id"])


def check_item(verifier: Verifier, item: dict[str, Any], store: Any | None) -> AnswerCheck:
    """`to_input`'s check; an answer without a record's graph is checked whole, in pieces when long (`check_text`)."""
    if _keeps_its_graph(item):
        return verifier.verify(to_input(item, store))
    return check_text(verifier, item["answer"], question=item["question"], store=store, answer_id=item["id"])


def verify_answers(items: Sequence[dict[str, Any]], *, store: Any | None = None, verifier: Verifier | None = None,
                   progress: Any | None = None) -> list[AnswerCheck]:
    verifier = verifier or Verifier(store)
    out = []
    for i, item in enumerate(items):
        out.append(check_item(verifier, item, store))
        if progress:
            progress(i + 1, len(items))
    return out


def answer_pieces(answer: str, limit: int = MAX_PIECE_CHARS) -> list[str]:
    """`answer` in consecutive pieces of at most `limit` characters, each cut after the last sentence end in it
    (else at its last space, else at `limit`); nothing is dropped: the pieces join to the answer.

    >>> answer_pieces("One. Two. Three.", limit=10)
    ['One. Two.', ' Three.']
    """
    pieces: list[str] = []
    rest = answer
    while len(rest) > limit:
        window = rest[:limit]
        end = max(window.rfind(mark) for mark in (". ", "? ", "! ", "\n"))
        cut = end + 1 if end > 0 else (window.rfind(" ") if window.rfind(" ") > 0 else limit)
        pieces.append(rest[:cut])
        rest = rest[cut:]
    return pieces + [rest]


def check_text(verifier: Verifier, answer: str, *, question: str = "", store: Any | None = None,
               answer_id: str = "answer", limit: int = MAX_PIECE_CHARS) -> AnswerCheck:
    """Any answer checked whole: one `text_input` when it is short, else one per piece (`answer_pieces`), the
    pieces' sentences renumbered into one check. A pronoun at the start of a piece cannot reach back into the piece
    before it (it resolves to the question's person)."""
    pieces = [piece for piece in answer_pieces(answer, limit) if piece.strip()] or [answer[:limit]]
    checks = [verifier.verify(text_input(piece, question=question, store=store, answer_id=answer_id))
              for piece in pieces]
    sentences = [s.model_copy(update={"position": n})
                 for n, s in enumerate(s for check in checks for s in check.sentences)]
    return checks[0].model_copy(update={"sentences": sentences})


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
