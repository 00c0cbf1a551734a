"""Eq. 1 of BioKaLMA (seed 000, Appendix A.3): which pool triple a round adds.

    Score_r = α · log(2·N / Count_r) + (1 − α) · softmax(1 / perp_r)

- **specificity** `log(2N / Count_r)`, "derived from IDF": `N` is the number of dataset entries;
  each entry holds two persons, so `2N` is the number of persons and `Count_r` the number of them
  (person slots, over the entries being built) whose one-hop subgraph holds relation `r` (a
  document frequency: a person with five occupations counts once). Hence `0 ≤ specificity ≤ log 2N`.
- **coherence** `softmax(1 / perp_r)`: the softmax over the round's candidates of the inverse
  perplexity of the paragraph extended by the candidate's template sentence ("normalized inverse
  perplexity"). The values sum to 1 over the candidates.

Scale: `1/perp ∈ (0, 1]`, so the softmax is close to `1/K` for `K` candidates and differences in
coherence are small next to differences in specificity unless `α` is small; `alpha` is an option
(default `DEFAULT_ALPHA`, see docs/biokalma.md for the measurements behind it).

>>> [round(s, 4) for s in eq1_scores(counts=[4, 1], perplexities=[10.0, 20.0], n=2, alpha=0.5)]
[0.2562, 0.9369]
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

#: Weight of specificity against coherence (paper: "α", no value given).
DEFAULT_ALPHA = 0.5


def specificity(count: int, n: int) -> float:
    """`log(2N / Count_r)`; `count` persons out of `2n` hold the relation."""
    if n <= 0:
        raise ValueError("the dataset size N must be positive")
    if not 0 < count <= 2 * n:
        raise ValueError(f"Count_r={count} outside 1..2N={2 * n}: counts and N must describe the same dataset")
    return math.log(2 * n / count)


def coherence(perplexities: Sequence[float]) -> list[float]:
    """`softmax(1 / perp)` over the candidates (numerically stable)."""
    if not perplexities:
        return []
    if any(not (p > 0) or math.isinf(p) for p in perplexities):
        raise ValueError(f"perplexities must be finite and positive: {list(perplexities)}")
    inv = [1.0 / p for p in perplexities]
    top = max(inv)
    exps = [math.exp(x - top) for x in inv]
    z = sum(exps)
    return [e / z for e in exps]


def eq1_scores(counts: Sequence[int], perplexities: Sequence[float], n: int,
               alpha: float = DEFAULT_ALPHA) -> list[float]:
    """Eq. 1 for each candidate: `counts[i]` is `Count_r` of candidate i's relation, `perplexities[i]`
    its extended paragraph's perplexity."""
    if len(counts) != len(perplexities):
        raise ValueError(f"{len(counts)} counts but {len(perplexities)} perplexities")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError("alpha must be in [0, 1]")
    coh = coherence(perplexities)
    return [alpha * specificity(c, n) + (1.0 - alpha) * h for c, h in zip(counts, coh)]


@dataclass(frozen=True)
class ScoredCandidate:
    index: int
    specificity: float
    coherence: float
    perplexity: float
    score: float


def rank(counts: Sequence[int], perplexities: Sequence[float], n: int,
         alpha: float = DEFAULT_ALPHA) -> list[ScoredCandidate]:
    """Candidates best first; ties keep the given order (callers pass candidates sorted, so the
    choice is deterministic)."""
    coh = coherence(perplexities)
    scored = [
        ScoredCandidate(i, specificity(c, n), h, p, alpha * specificity(c, n) + (1.0 - alpha) * h)
        for i, (c, h, p) in enumerate(zip(counts, coh, perplexities))
    ]
    return sorted(scored, key=lambda s: (-s.score, s.index))


def relation_counts(person_relations: Iterable[Iterable[str]]) -> Counter:
    """`Count_r` per relation: how many persons (one iterable of relation ids per person slot) hold
    `r` at least once."""
    counts: Counter = Counter()
    for relations in person_relations:
        counts.update(set(relations))
    return counts


def perplexity_from_logprobs(logprobs: Sequence[float]) -> float:
    """`exp(−mean log p)` over the tokens scored."""
    if not logprobs:
        raise ValueError("perplexity of no tokens")
    return math.exp(-sum(logprobs) / len(logprobs))
