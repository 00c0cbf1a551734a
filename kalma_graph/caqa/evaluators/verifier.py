"""The graph-grounded verifier as a CAQA attribution evaluator (no model).

The citation's triples (`Sample.triples`: subject name, relation, object name) are the graph; the answer
statement is checked against it by `kalma_graph.verification`:

- **contradictory** when a claim is contradicted, or when the statement states a cited relation of a cited
  subject (its label's words and the subject's name both in the statement) with none of the values the
  citation holds for it while naming another value (CAQA's contradictory substitution);
- **supportive** when every value, name, date and number the statement states is held by the citation;
- **partially_supportive** when some are held and some are not;
- **irrelevant** when none is held.
"""

from __future__ import annotations

from typing import Any, Sequence

from kalma_graph.caqa.evaluators.base import Judgement
from kalma_graph.caqa.model import CONTRADICTORY, IRRELEVANT, PARTIAL, SUPPORTIVE, Sample


class VerifierEvaluator:
    name = "verifier"
    labels = (SUPPORTIVE, PARTIAL, CONTRADICTORY, IRRELEVANT)

    def __init__(self, verifier: Any | None = None) -> None:
        from kalma_graph.verification import Verifier

        self.verifier = verifier or Verifier()

    def describe(self) -> dict[str, Any]:
        return {"evaluator": self.name, "verifier": self.verifier.describe(), "graph": "the citation's triples"}

    def judge(self, samples: Sequence[Sample]) -> list[Judgement]:
        return [self._judge(s.question, s.answer_statement, s.triples) for s in samples]

    def supported(self, facts: Sequence[str], citations: Sequence[str]) -> list[bool | None]:
        """FActScore's sub-fact check gives the citation as text, not as triples: the verifier has no graph
        to check against, so every sub-fact is reported unjudged (None), never guessed."""
        return [None for _ in facts]

    def _judge(self, question: str, statement: str, triples: Sequence[Sequence[str]]) -> Judgement:
        from kalma_graph.verification import AnswerInput, GraphEntity, GraphTriple
        from kalma_graph.verification.text import phrase, tokenize

        shown = [GraphTriple(subject=s, label=r, value=o) for s, r, o in (t[:3] for t in triples) if s and r and o]
        names = sorted({t.subject for t in shown})
        check = self.verifier.verify(AnswerInput(question=question, sentences=[(statement, [])], shown=shown,
                                                 entities=[GraphEntity(id=n, name=n) for n in names]))
        checked = check.sentences[0]
        facts = checked.facts()
        held = [c for c in facts if c.held]
        detail = {"claims": [c.model_dump(exclude_none=True) for c in checked.claims]}
        if any(c.status == "contradicted" for c in facts):
            return Judgement(CONTRADICTORY, "a claim is contradicted by the citation", detail=detail)
        words = {t.norm for t in tokenize(statement) if t.word}
        for t in shown:
            stated = set(phrase(t.label)) <= words and set(phrase(t.subject)) <= words
            values = [x.value for x in shown if x.subject == t.subject and x.label == t.label]
            if stated and not any(set(phrase(v)) <= words for v in values) and any(c.status == "absent" for c in facts):
                return Judgement(CONTRADICTORY, f"the statement gives another {t.label} of {t.subject} than the citation's "
                                                f"({', '.join(values)})", detail=detail)
        if held and len(held) == len(facts):
            return Judgement(SUPPORTIVE, "every fact stated is held by the citation", detail=detail)
        if held:
            missing = ", ".join(c.text for c in facts if c.status == "absent")
            return Judgement(PARTIAL, f"held: {', '.join(c.text for c in held)}; not held: {missing}", detail=detail)
        return Judgement(IRRELEVANT, "the citation holds nothing the statement states", detail=detail)
