"""Stage two of the verifier: what structure cannot decide, an entailment model weighs in.

Each cited triple's structural outcome (one of `structure.SCORE`'s kinds) and an NLI model's entailment
probability (premise: the sentence; hypothesis: the triple as a sentence, "The employer of Ernst Hanfstaengl is
University of Jena.") are combined by a logistic model. Its weights are trained on pairs the graph generates
(`kalma_graph.nli.verifier_pairs`: true triples verbalised several ways; subject swaps, bystander values,
inverted relations, near relations and other values as negatives) and shipped as data
(`kalma_graph/data/verifier_calibration.json`), together with the sha256 of the NLI weights they were fitted
for: another NLI model needs its own fit (`bench/verifier_calibrate.py`), never a silent reuse.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from kalma_graph.errors import BadInputError
from kalma_graph.kg.hypothesis import the_of_sentence

from .records import AnswerCheck, AnswerInput, CitationCheck
from .structure import SCORE

FEATURES: tuple[str, ...] = (*SCORE, "nli", "nli_if_supported")
DEFAULT_PATH = "data/verifier_calibration.json"


class CalibrationError(BadInputError, ValueError):
    """Calibration weights that do not fit the NLI model given (or cannot be read)."""


def features(outcome: str, nli: float) -> list[float]:
    """The feature vector of one citation: its structural outcome (one-hot) and the entailment probability,
    alone and where structure found the citation supported."""
    row = [1.0 if outcome == kind else 0.0 for kind in SCORE]
    return row + [nli, nli if outcome.startswith("supported") else 0.0]


def fit_logistic(rows: Sequence[Sequence[float]], labels: Sequence[int], *, l2: float = 1.0,
                 steps: int = 50) -> list[float]:
    """Weights (bias last) of an L2-regularised logistic regression, by Newton's method (numpy)."""
    import numpy as np

    x = np.hstack([np.asarray(rows, dtype=float), np.ones((len(rows), 1))])
    y = np.asarray(labels, dtype=float)
    w = np.zeros(x.shape[1])
    reg = np.eye(x.shape[1]) * l2
    reg[-1, -1] = 0.0  # the bias is not shrunk
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) + reg @ w
        hess = (x * (p * (1 - p))[:, None]).T @ x + reg
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return [float(v) for v in w]


class Calibrator:
    """Refines the citation verdicts of an `AnswerCheck` with an NLI model (`entailment_prob(premises,
    hypotheses)`, `model_hash`) and the fitted weights."""

    def __init__(self, weights: Sequence[float], nli: Any, meta: dict | None = None) -> None:
        if len(weights) != len(FEATURES) + 1:
            raise CalibrationError(f"calibration has {len(weights)} weights; this verifier needs {len(FEATURES) + 1}")
        self.weights = list(weights)
        self.nli = nli
        self.meta = dict(meta or {})

    @classmethod
    def load(cls, nli: Any, path: str | Path | None = None) -> "Calibrator":
        raw = Path(path).read_text(encoding="utf-8") if path else \
            resources.files("kalma_graph").joinpath(DEFAULT_PATH).read_text(encoding="utf-8")
        data = json.loads(raw)
        if list(data.get("features", ())) != list(FEATURES):
            raise CalibrationError("the calibration file's features are not this verifier's: refit it "
                                   "(python bench/verifier_calibrate.py)")
        fitted_for = data.get("nli_sha256")
        given = getattr(nli, "model_hash", None)
        if fitted_for and given and fitted_for != given:
            raise CalibrationError(f"the calibration was fitted for NLI weights sha256 {fitted_for[:12]}…, not "
                                   f"{given[:12]}…: refit it for this model "
                                   "(python bench/verifier_calibrate.py --nli MODEL)")
        return cls(data["weights"], nli, {k: v for k, v in data.items() if k != "weights"})

    def describe(self) -> dict[str, Any]:
        nli = self.nli.describe() if hasattr(self.nli, "describe") else {}
        return {"nli": nli.get("name_or_path") or nli.get("model"), "nli_sha256": getattr(self.nli, "model_hash", None),
                "fitted_on": self.meta.get("pairs"), "pairs_sha256": self.meta.get("pairs_sha256")}

    def probability(self, outcome: str, nli: float) -> float:
        z = sum(w * x for w, x in zip(self.weights, features(outcome, nli))) + self.weights[-1]
        return 1.0 / (1.0 + math.exp(-z))

    def refine(self, answer: AnswerInput, check: AnswerCheck) -> AnswerCheck:
        names = {e.id: e.name for e in answer.entities if e.name}
        premises, hypotheses = [], []
        for s in check.sentences:
            for c in s.citations:
                premises.append(s.text)
                hypotheses.append(the_of_sentence(names.get(c.subject, c.subject), c.relation, c.value))
        probs = [float(p) for p in self.nli.entailment_prob(premises, hypotheses)] if premises else []
        k = 0
        sentences = []
        for s in check.sentences:
            refined = []
            for c in s.citations:
                refined.append(self._refined(c, probs[k]))
                k += 1
            sentences.append(s.model_copy(update={"citations": refined}))
        return check.model_copy(update={"sentences": sentences})

    def _refined(self, c: CitationCheck, nli: float) -> CitationCheck:
        score = self.probability(c.outcome, nli)
        verdict = "supported" if score >= 0.5 else ("partial" if c.verdict == "partial" else "unsupported")
        return c.model_copy(update={"score": round(score, 4), "verdict": verdict, "stage": "model",
                                    "reason": f"{c.reason}; entailment {nli:.2f}"})
