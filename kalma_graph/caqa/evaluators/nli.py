"""NLI cross-encoder evaluators (premise = citation, hypothesis = answer statement).

- `nli-2way` (AutoAIS-style, §5 / Appendix D.1): P(entailment) ≥ threshold → supportive, else
  not supportive. Like AutoIS in Table 5 it is scored on the Sup. column only.
- `nli-3way` (AttrScore-style mapping): entailment → supportive, contradiction → contradictory,
  neutral → irrelevant. It never says partially supportive (Table 5 shows "-" there); a 2-way NLI
  model's `not_entailment` maps to irrelevant.

The model is a `kalma_graph.models.nli.NLIModel` built by the caller (`load_nli`) and passed in.
"""

from __future__ import annotations

from typing import Any, Sequence

from kalma_graph.caqa.evaluators.base import Judgement
from kalma_graph.caqa.model import CONTRADICTORY, IRRELEVANT, NOT_SUPPORTIVE, SUPPORTIVE, Sample

_THREE_WAY = {"entailment": SUPPORTIVE, "contradiction": CONTRADICTORY, "neutral": IRRELEVANT,
              "not_entailment": IRRELEVANT}


class NLIEvaluator:
    def __init__(self, nli, mode: str = "3way", threshold: float = 0.5, batch_size: int | None = None) -> None:
        if mode not in ("2way", "3way"):
            raise ValueError("mode is 2way or 3way")
        self.nli = nli
        self.mode = mode
        self.threshold = threshold
        self.batch_size = batch_size
        self.name = f"nli-{mode}"
        self.labels = (SUPPORTIVE, NOT_SUPPORTIVE) if mode == "2way" else (SUPPORTIVE, CONTRADICTORY, IRRELEVANT)

    def describe(self) -> dict[str, Any]:
        return {"evaluator": self.name, "threshold": self.threshold, "premise": "citation",
                "hypothesis": "answer statement", "nli": self.nli.describe()}

    def judge(self, samples: Sequence[Sample]) -> list[Judgement]:
        preds = self.nli.predict([s.citation for s in samples], [s.answer_statement for s in samples],
                                 batch_size=self.batch_size)
        out = []
        for p in preds:
            probs = {k: round(v, 4) for k, v in p.probs.items()}
            if self.mode == "2way":
                label = SUPPORTIVE if p.entailment_prob >= self.threshold else NOT_SUPPORTIVE
            else:
                label = _THREE_WAY[p.label]
            out.append(Judgement(label, f"NLI {p.label} (P(entailment)={p.entailment_prob:.2f})", None,
                                 {"probs": probs}))
        return out

    def supported(self, facts: Sequence[str], citations: Sequence[str]) -> list[bool | None]:
        probs = self.nli.entailment_prob(list(citations), list(facts), batch_size=self.batch_size)
        return [bool(p >= self.threshold) for p in probs]
