"""The weighted combinations: K (eq. 3) and SCK (eq. 5, per-intent weights of Table 3).

    K   = α·VE + β·ER + γ·KG-AttrScore       (default α = β = γ = 1/3, as the paper's "≈ 0.3")
    SCK = α·S  + β·C  + γ·K                   (α, β, γ from Table 3 for the question's intent)

Undefined parts (None) are left out and the remaining weights rescaled to sum to 1; the result
records which parts were used (`used`) and which were missing. With every part missing, or no
intent for SCK, the combination is undefined too. Table 3 is data:
`kalma_graph/data/sck_intent_weights.json` (`load_intent_weights`; a user file with the same layout
may replace it).

>>> weighted_sum({"ve": 1.0, "er": 0.5, "kg_attr": None}, {"ve": 1, "er": 1, "kg_attr": 1})
(0.75, ['ve', 'er'])
>>> round(sck_score(1.0, 1.0, 0.42, "comparison", load_intent_weights()).value, 3)   # Table 4, row 1
0.884
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Mapping

from kalma_graph.sck.base import INTENTS, SubScore

DEFAULT_K_WEIGHTS = {"ve": 1 / 3, "er": 1 / 3, "kg_attr": 1 / 3}
WEIGHTS_RESOURCE = "sck_intent_weights.json"


def weighted_sum(parts: Mapping[str, float | None], weights: Mapping[str, float]) -> tuple[float | None, list[str]]:
    """Σ w·x over the defined parts, weights rescaled to sum to 1; (None, []) when nothing is defined
    or the defined parts weigh nothing."""
    defined = {k: v for k, v in parts.items() if v is not None and weights.get(k, 0) > 0}
    used = list(defined)
    total = sum(weights[k] for k in used)
    if not used or total <= 0:
        return None, []
    return sum(weights[k] * float(defined[k]) for k in used) / total, used


def check_weights(weights: Mapping[str, float], names: tuple[str, ...]) -> dict[str, float]:
    if set(weights) != set(names):
        raise ValueError(f"weights must name exactly {names}, got {sorted(weights)}")
    if any(w < 0 for w in weights.values()) or sum(weights.values()) <= 0:
        raise ValueError(f"weights must be non-negative and not all zero: {dict(weights)}")
    return {k: float(weights[k]) for k in names}


def k_score(ve: float | None, er: float | None, kg_attr: float | None,
            weights: Mapping[str, float] = DEFAULT_K_WEIGHTS) -> SubScore:
    weights = check_weights(weights, ("ve", "er", "kg_attr"))
    parts = {"ve": ve, "er": er, "kg_attr": kg_attr}
    value, used = weighted_sum(parts, weights)
    return SubScore("k", value, {"parts": parts, "weights": weights, "used": used,
                                 "missing": [k for k in parts if parts[k] is None]})


def load_intent_weights(path: str | os.PathLike[str] | None = None) -> dict[str, dict[str, float]]:
    """Table 3: intent -> {"alpha", "beta", "gamma"}. Validated: all seven intents, each row ≥ 0 and
    summing to 1 (± 1e-6)."""
    if path is None:
        raw = resources.files("kalma_graph").joinpath("data", WEIGHTS_RESOURCE).read_text("utf-8")
    else:
        raw = Path(path).read_text("utf-8")
    table = json.loads(raw)["weights"]
    if set(table) != set(INTENTS):
        raise ValueError(f"intent weights must cover exactly {INTENTS}; got {sorted(table)}")
    out: dict[str, dict[str, float]] = {}
    for intent, row in table.items():
        w = {k: float(row[k]) for k in ("alpha", "beta", "gamma")}
        if any(v < 0 for v in w.values()) or abs(sum(w.values()) - 1.0) > 1e-6:
            raise ValueError(f"weights of intent {intent!r} must be >= 0 and sum to 1: {w}")
        out[intent] = w
    return out


def intent_weights_sha256(path: str | os.PathLike[str] | None = None) -> str:
    import hashlib

    if path is None:
        raw = resources.files("kalma_graph").joinpath("data", WEIGHTS_RESOURCE).read_bytes()
    else:
        raw = Path(path).read_bytes()
    return hashlib.sha256(raw).hexdigest()


def sck_score(s: float | None, c: float | None, k: float | None, intent: str | None,
              table: Mapping[str, Mapping[str, float]]) -> SubScore:
    parts = {"s": s, "c": c, "k": k}
    if intent is None:
        return SubScore("sck", None, {"parts": parts, "intent": None, "weights": None, "used": [],
                                      "missing": ["intent"] + [n for n in parts if parts[n] is None]})
    row = table[intent]
    weights = {"s": row["alpha"], "c": row["beta"], "k": row["gamma"]}
    value, used = weighted_sum(parts, weights)
    return SubScore("sck", value, {"parts": parts, "intent": intent, "weights": weights, "used": used,
                                   "missing": [n for n in parts if parts[n] is None]})
