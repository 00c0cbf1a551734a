"""The NLI step shared by alignment and [NA] quality: hypotheses from triples, verdicts from an
injected `entail` callable. No model is loaded here; the caller passes one (or a lookup table)."""

from __future__ import annotations

import math
from typing import Callable, Iterator, Literal, Mapping, Sequence

from kalma_graph.evaluation.matching import TripleLike, triple_parts
from kalma_graph.kg.hypothesis import HYPOTHESES

EntailFn = Callable[[Sequence[str], Sequence[str]], Sequence["bool | float"]]
"""`entail(premises, hypotheses)` -> one verdict per pair: a bool, or an entailment probability."""

HypothesisFormat = Literal["prop_value", "verbalised"]
HYPOTHESIS_FORMATS: tuple[HypothesisFormat, ...] = ("prop_value", "verbalised")


def hypothesis(
    triple: TripleLike,
    hypothesis_format: HypothesisFormat = "prop_value",
    subject_names: Mapping[str, str] | None = None,
) -> str:
    """The NLI hypothesis for a triple: `prop: value` as in the paper (Appendix B.3), or the
    verbalised `subject's prop is value` (falls back to the id when the name is unknown).

    >>> hypothesis(("Q1", "employer", "University of Jena"))
    'employer: University of Jena'
    >>> hypothesis(("Q1", "employer", "University of Jena"), "verbalised", {"Q1": "Oscar Hertwig"})
    "Oscar Hertwig's employer is University of Jena"
    """
    if hypothesis_format not in HYPOTHESIS_FORMATS:
        raise ValueError(f"unknown hypothesis format {hypothesis_format!r}; expected one of {HYPOTHESIS_FORMATS}")
    subject, prop, value = triple_parts(triple)
    return HYPOTHESES[hypothesis_format]((subject_names or {}).get(subject) or subject, prop, value)


def unnamed_subjects(
    triples: Sequence[TripleLike], hypothesis_format: HypothesisFormat, subject_names: Mapping[str, str] | None
) -> list[str]:
    """Subjects a verbalised hypothesis had to show as a bare id (reported, not hidden)."""
    if hypothesis_format != "verbalised":
        return []
    names = subject_names or {}
    return sorted({triple_parts(t)[0] for t in triples if not names.get(triple_parts(t)[0])})


def entailment_scores(entail: EntailFn, premises: Sequence[str], hypotheses: Sequence[str]) -> list[float]:
    """One entailment score in [0, 1] per (premise, hypothesis): probabilities as given, bools as 1.0 / 0.0.

    Fails loudly on a wrong number of verdicts or a verdict that is not a bool or a probability,
    so that a broken judge never turns into a silent score.

    >>> entailment_scores(lambda p, h: [0.9, True], ["a", "b"], ["x", "y"])
    [0.9, 1.0]
    """
    if len(premises) != len(hypotheses):
        raise ValueError("premises and hypotheses differ in length")
    if not premises:
        return []
    verdicts = list(entail(list(premises), list(hypotheses)))
    if len(verdicts) != len(premises):
        raise ValueError(f"entail returned {len(verdicts)} verdicts for {len(premises)} pairs")
    out = []
    for verdict in verdicts:
        if isinstance(verdict, (str, bytes)):
            raise TypeError(f"entail verdict must be a bool or a probability, got {verdict!r}")
        score = float(verdict)
        if math.isnan(score) or not 0.0 <= score <= 1.0:
            raise ValueError(f"entail verdict out of [0, 1]: {verdict!r}")
        out.append(score)
    return out


def check_threshold(threshold: float) -> None:
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")


def pair_scores(entail: EntailFn, pairs: Sequence[tuple[str, TripleLike]], hypothesis_format: HypothesisFormat,
                subject_names: Mapping[str, str] | None, threshold: float) -> Iterator[float]:
    """The entailment score of each (sentence, triple) pair, in order, as one batch: does the sentence state
    the triple, written in `hypothesis_format`? (Alignment and [NA] quality both ask it.)

    >>> list(pair_scores(lambda p, h: [0.9], [("Crane was born in Newark.", ("Q1", "place of birth", "Newark"))],
    ...                  "prop_value", None, 0.5))
    [0.9]
    """
    hypotheses = [hypothesis(t, hypothesis_format, subject_names) for _, t in pairs]
    check_threshold(threshold)
    return iter(entailment_scores(entail, [sentence for sentence, _ in pairs], hypotheses))


def entailed(
    entail: EntailFn, premises: Sequence[str], hypotheses: Sequence[str], threshold: float = 0.5
) -> list[bool]:
    """One verdict per (premise, hypothesis): bools as given, probabilities `>= threshold`
    (the checks of `entailment_scores`).

    >>> entailed(lambda p, h: [0.9, 0.2], ["a", "b"], ["x", "y"])
    [True, False]
    """
    check_threshold(threshold)
    return [score >= threshold for score in entailment_scores(entail, premises, hypotheses)]
