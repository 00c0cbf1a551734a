"""The interpretable SCK answer score (seed 004: Alonso et al., "An Interpretable Answer Scoring
Framework", Gen-IR@SIGIR 2024): every sub-score with the evidence it rests on.

- K (knowledge, §2.1): VE (`ve.py`, eq. 1), ER (`er.py`, eq. 2), KG-AttrScore (`kg_attr.py` +
  `judges.py`, Figure 2, Table 1), combined by eq. 3 (`combine.k_score`);
- S (structure, §2.2): intent (`intent.py`) and the Table 2 features (`structure.py`);
- C (content, §2.3, eq. 4): entity recall (`content.py`);
- SCK (§2.4, eq. 5): per-intent weights of Table 3 (`combine.sck_score`,
  `kalma_graph/data/sck_intent_weights.json`).

`SCKScorer` (`scorer.py`) scores one pair; `run.score_file` a file, with reports (`kalma-graph score`).
The sub-score functions are pure: they take the linked mentions, triplets or observations and
return a `SubScore(name, value, evidence)`; models are loaded once by the caller and passed in.
Our choices where the paper leaves one open are written in each module's docstring, in
`docs/sck.md`, and in every run header.
"""

from kalma_graph.sck.base import INTENTS, EntityMention, SubScore
from kalma_graph.sck.combine import DEFAULT_K_WEIGHTS, k_score, load_intent_weights, sck_score
from kalma_graph.sck.content import c_score
from kalma_graph.sck.er import er_score
from kalma_graph.sck.kg_attr import (
    ATTRIBUTABLE,
    CONTRADICTORY,
    EXTRAPOLATORY,
    Judgement,
    SentenceEvidence,
    aggregate_attribution,
    fetch_evidence,
)
from kalma_graph.sck.scorer import QARecord, SCKScorer, ScoreOptions, ScoreResult
from kalma_graph.sck.structure import s_score_from
from kalma_graph.sck.ve import ve_score

__all__ = [
    "ATTRIBUTABLE",
    "CONTRADICTORY",
    "DEFAULT_K_WEIGHTS",
    "EXTRAPOLATORY",
    "INTENTS",
    "EntityMention",
    "Judgement",
    "QARecord",
    "SCKScorer",
    "ScoreOptions",
    "ScoreResult",
    "SentenceEvidence",
    "SubScore",
    "aggregate_attribution",
    "c_score",
    "er_score",
    "fetch_evidence",
    "k_score",
    "load_intent_weights",
    "s_score_from",
    "sck_score",
    "ve_score",
]
