"""The verifier: does an answer say what the graph holds? (issue 31; rules: alignment-labels.md)

    from kalma_graph.verification import Verifier
    from kalma_graph.evaluation.verify import verifier_input, text_input
    check = Verifier().verify(verifier_input(record))    # an AnswerRecord of `kalma-graph answer`
    check.sentences[0].citations[0].verdict             # supported / partial / unsupported
    check.sentences[0].claims                           # claims: supported / supported_uncited / absent / contradicted

Stage one (`structure`) needs no model. Stage two (`calibration`) combines its evidence with an NLI model's
entailment probability, when one is given, by a small logistic model trained on pairs the graph makes.
"""

from .records import (
    CLAIM_STATUSES,
    VERDICTS,
    AnswerCheck,
    AnswerInput,
    CitationCheck,
    CitedTriple,
    Claim,
    GraphEntity,
    GraphTriple,
    SentenceCheck,
)
from .verifier import Verifier

__all__ = [
    "CLAIM_STATUSES",
    "VERDICTS",
    "AnswerCheck",
    "AnswerInput",
    "CitationCheck",
    "CitedTriple",
    "Claim",
    "GraphEntity",
    "GraphTriple",
    "SentenceCheck",
    "Verifier",
]
