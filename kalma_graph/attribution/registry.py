"""Every attribution evaluator by name: what it needs and how it is built. One line here adds one, and it is
then a CAQA evaluator and an SCK judge too (docs/CONTRIBUTING.md, "Adding an evaluator")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # the registry is read at CLI start-up: it loads nothing until an evaluator is built
    from .base import AttributionEvaluator


@dataclass(frozen=True)
class AttributionEntry:
    needs: str | None  # "nli", "llm" or None: the loaded model `make` refuses to build it without
    build: Callable[..., "AttributionEvaluator"]  # keyword arguments: the loaded models (nli=, llm=, verifier=)


def _verifier(verifier: Any = None, **_: Any) -> "AttributionEvaluator":
    from .verifier import VerifierAttribution

    return VerifierAttribution(verifier)


REGISTRY: dict[str, AttributionEntry] = {
    "verifier": AttributionEntry(None, _verifier),
}


def make(name: str, **models: Any) -> "AttributionEvaluator":
    """The evaluator `name`, built from the already-loaded `models` (nli=, llm=, verifier=)."""
    entry = REGISTRY.get(name)
    if entry is None:
        raise ValueError(f"unknown attribution evaluator {name!r}; expected one of {sorted(REGISTRY)}")
    if entry.needs and models.get(entry.needs) is None:
        raise ValueError(f"the {name} evaluator needs a loaded {entry.needs} model")
    return entry.build(**models)
