"""Any shared attribution evaluator (`kalma_graph.attribution.REGISTRY`: the graph-grounded verifier, …) as a
CAQA evaluator: the citation's triples (`Sample.triples`: subject name, relation, object name) are the graph the
statement is checked against, and the verdict is read in CAQA's four categories:

- **contradictory** when the verdict is *contradicted*, or when the statement states a cited relation of a
  cited subject (its label's words and the subject's name both in the statement) with none of the values the
  citation holds for it while naming another value (CAQA's contradictory substitution);
- **supportive** when *supported*: every value, name, date and number the statement states is held;
- **partially_supportive** when *partial*: some are held and some are not;
- **irrelevant** when *unsupported*: none is held.
"""

from __future__ import annotations

from typing import Any, Sequence

from kalma_graph.attribution import AttributionEvaluator, StatementCase, Verdict
from kalma_graph.caqa.evaluators.base import Judgement
from kalma_graph.caqa.model import CONTRADICTORY, IRRELEVANT, PARTIAL, SUPPORTIVE, Sample
from kalma_graph.verification import GraphEntity, GraphTriple
from kalma_graph.verification.text import phrase, tokenize


class SharedEvaluator:
    labels = (SUPPORTIVE, PARTIAL, CONTRADICTORY, IRRELEVANT)

    def __init__(self, evaluator: AttributionEvaluator) -> None:
        self.evaluator = evaluator
        self.name = evaluator.name

    def describe(self) -> dict[str, Any]:
        return {**self.evaluator.describe(), "graph": "the citation's triples"}

    def judge(self, samples: Sequence[Sample]) -> list[Judgement]:
        cases = [statement_case(s) for s in samples]
        return [category(case, verdict) for case, verdict in zip(cases, self.evaluator.attribute(cases))]

    def supported(self, facts: Sequence[str], citations: Sequence[str]) -> list[bool | None]:
        """FActScore's sub-fact check gives the citation as text, not as triples: there is no graph to check
        against, so every sub-fact is reported unjudged (None), never guessed."""
        return [None for _ in facts]


def statement_case(sample: Sample) -> StatementCase:
    shown = tuple(GraphTriple(subject=s, label=r, value=o)
                  for s, r, o in (t[:3] for t in sample.triples) if s and r and o)
    names = sorted({t.subject for t in shown})
    return StatementCase(sample.question, sample.answer_statement, shown,
                         tuple(GraphEntity(id=n, name=n) for n in names))


def category(case: StatementCase, verdict: Verdict) -> Judgement:
    """The verdict in CAQA's categories, with the rationale a report shows."""
    detail = verdict.claims_detail()
    if verdict.label == "contradicted":
        return Judgement(CONTRADICTORY, "a claim is contradicted by the citation", detail=detail)
    if verdict.facts("absent") and (other := _substituted(case)):
        return Judgement(CONTRADICTORY, other, detail=detail)
    if verdict.label == "supported":
        return Judgement(SUPPORTIVE, "every fact stated is held by the citation", detail=detail)
    held = verdict.facts("held")
    if verdict.label == "partial":
        missing = ", ".join(c.text for c in verdict.facts("absent"))
        return Judgement(PARTIAL, f"held: {', '.join(c.text for c in held)}; not held: {missing}", detail=detail)
    return Judgement(IRRELEVANT, "the citation holds nothing the statement states", detail=detail)


def _substituted(case: StatementCase) -> str | None:
    """CAQA's contradictory substitution: a cited relation of a cited subject stated with another value."""
    words = {t.norm for t in tokenize(case.statement) if t.word}
    for t in case.triples:
        stated = set(phrase(t.label)) <= words and set(phrase(t.subject)) <= words
        values = [x.value for x in case.triples if x.subject == t.subject and x.label == t.label]
        if stated and not any(set(phrase(v)) <= words for v in values):
            return f"the statement gives another {t.label} of {t.subject} than the citation's ({', '.join(values)})"
    return None

