"""The graph-grounded verifier as an attribution evaluator (no model): the statement's claims are checked
against the case's triples by `kalma_graph.verification` (rules: docs/alignment-labels.md).

- **contradicted** when a fact the statement states is contradicted (the triples hold another value of a
  single-valued relation: place or date of birth, father, …);
- **supported** when at least one fact is stated and the triples hold every one (evaluations and leftover
  words do not count: the question is whether the statement rests on the triples, not whether it adds colour);
- **partial** when they hold some; **unsupported** when they hold none, or the statement states no fact.
"""

from __future__ import annotations

from typing import Any, Sequence

from kalma_graph.verification import AnswerInput, Verifier

from .base import Label, StatementCase, Verdict


class VerifierAttribution:
    name = "verifier"

    def __init__(self, verifier: Verifier | None = None) -> None:
        self.verifier = verifier or Verifier()

    def describe(self) -> dict[str, Any]:
        return {"evaluator": self.name, "verifier": self.verifier.describe()}

    def attribute(self, cases: Sequence[StatementCase]) -> list[Verdict]:
        return [self._one(case) for case in cases]

    def _one(self, case: StatementCase) -> Verdict:
        check = self.verifier.verify(AnswerInput(question=case.question, sentences=[(case.statement, [])],
                                                 shown=list(case.triples), entities=list(case.entities)))
        claims = tuple(check.sentences[0].claims)
        verdict = Verdict("unsupported", claims)
        held = verdict.facts("held")
        label: Label
        if verdict.facts("contradicted"):
            label = "contradicted"
        elif held and len(held) == len(verdict.facts()):
            label = "supported"
        else:
            label = "partial" if held else "unsupported"
        return Verdict(label, claims)
