"""Attribution: does a statement rest on the triples it cites? One interface for every evaluator that
answers it, and one registry of the evaluators every paper's stage can use.

    from kalma_graph.attribution import REGISTRY, StatementCase
    evaluator = REGISTRY["verifier"].build()
    (verdict,) = evaluator.attribute([StatementCase(question, statement, triples, entities)])
    verdict.label                     # supported / partial / contradicted / unsupported

Each stage reads a verdict in its paper's labels through one small adapter: CAQA's four categories
(`caqa/evaluators/shared.py`), KG-AttrScore's attributable / extrapolatory / contradictory
(`sck/judges.py`). An evaluator added to `REGISTRY` is therefore a CAQA evaluator
(`caqa bench --evaluator NAME`) and an SCK judge (`score --attribution-judge NAME`) with no other edit.
Evaluators that only make sense in one stage (CAQA's prompted LLM judges, SCK's NLI judge with its
contradiction search) stay in that stage's registry, which starts from this one.
"""

from typing import Any

# Exported lazily: the CLI reads the registry's names at start-up, without loading the verifier.
_EXPORTS = {"LABELS": "base", "AttributionEvaluator": "base", "StatementCase": "base", "Verdict": "base",
            "REGISTRY": "registry", "AttributionEntry": "registry", "make": "registry",
            "VerifierAttribution": "verifier"}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)


__all__ = sorted(_EXPORTS)
