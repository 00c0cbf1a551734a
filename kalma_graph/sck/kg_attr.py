"""KG-AttrScore (seed 004, §2.1.3): is each answer sentence attributable to the knowledge graph?

For a sentence s of an answer to question q and a set of triplets SoT, a judge f decides

    f(q, s, SoT) =  1  Attributable   + rationale
                    0  Extrapolatory  + rationale     (the triplets cannot decide)
                   -1  Contradictory  + rationale

The judges live in `judges.py` (NLI by default, the LLM prompt of Figure 2 as an option). This module
holds what they are given and how their verdicts are aggregated.

**Evidence** (`fetch_evidence`). The sentence's entities are linked; the question's linked entities
are added, because f receives the question too and a sentence often names its subject only by a
pronoun ("He was born in Newark"). SoT are the statements *between* those entities, in either
direction — the paper's SPARQL query of Figure 2, one Cypher operation (`cypher/statements_between`).
With `mode="context"` (default) the judge also sees the one-hop statements of those entities
(`cypher/one_hop`): the paper's query cannot see that "born in Boston" conflicts with
`(Stephen Crane, place of birth, Newark)`, because no statement links Crane and Boston, nor that
"a poet" is stated by `(Stephen Crane, occupation, poet)` when "poet" is not an NER entity.
`mode="between"` is the paper's evidence alone. A sentence with no triplet at all is Extrapolatory
without asking the judge, as in Table 1 (sentence 4: "Neutral", no triplets).

**Aggregation** (`aggregate_attribution`), our choice since the paper only says that "adjustable
hyper-parameters are used to penalize contradictory statements and award correct statements":

    KG-AttrScore = max(0, (reward · n_attributable − penalty · n_contradictory) / (reward · n_judged))

with reward = penalty = 1 by default: the share of attributable sentences, minus the share of
contradicted ones, floored at 0; extrapolatory sentences count in the denominator (they are not
grounded). Sentences whose judge output could not be read are *missing*: counted, reported, and left
out of n_judged — never guessed. No judged sentence → undefined (None).

>>> aggregate_attribution([1, 1, 0, -1]).value
0.25
>>> aggregate_attribution([1, None, 0]).evidence["n_missing"]
1
>>> aggregate_attribution([None]).value is None
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, MutableMapping, Protocol, Sequence

from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.sck.base import SubScore
from kalma_graph.store.base import GraphStore

ATTRIBUTABLE, EXTRAPOLATORY, CONTRADICTORY = 1, 0, -1
LABEL_NAMES = {ATTRIBUTABLE: "Attributable", EXTRAPOLATORY: "Extrapolatory", CONTRADICTORY: "Contradictory"}
LABEL_VALUES = {name.casefold(): value for value, name in LABEL_NAMES.items()}
EVIDENCE_MODES = ("context", "between")


@dataclass(frozen=True)
class SentenceEvidence:
    """What a judge sees for one sentence.

    `sentence_ids`: entities linked in the sentence; `ids`: those plus the question's entities;
    `between`: statements between any two of `ids` (the paper's SoT); `context`: the other one-hop
    statements of `ids` (to entities and to literal values); `names`: id → name of every
    subject and object, for verbalising; `types`: id → class ids (P31) of the same entities.
    """

    sentence_ids: tuple[str, ...]
    ids: tuple[str, ...]
    between: tuple[Triple, ...] = ()
    context: tuple[Triple, ...] = ()
    names: Mapping[str, str] = field(default_factory=dict)
    types: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def n_triplets(self) -> int:
        return len(self.between) + len(self.context)

    def name(self, entity_id: str) -> str:
        return self.names.get(entity_id) or entity_id


@dataclass(frozen=True)
class Judgement:
    """A judge's verdict on one sentence. `label` is None when the judge's output was unusable
    (`missing_reason` says why; `raw` keeps the output)."""

    label: int | None
    rationale: str
    relevant: tuple[Triple, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)
    raw: str | None = None
    missing_reason: str | None = None


class AttributionJudge(Protocol):
    """What `SCKScorer` needs of a judge (`judges.JUDGES`): one `Judgement` per (sentence, evidence), and what
    its run header records."""

    def judge(self, question: str, items: Sequence[tuple[str, SentenceEvidence]]) -> list[Judgement]: ...

    def header(self) -> dict[str, Any]: ...


def fetch_evidence(
    store: GraphStore,
    sentence_ids: Sequence[str],
    question_ids: Sequence[str] = (),
    *,
    mode: str = "context",
    one_hop: Callable[[str], Sequence[Triple]] | None = None,
    entities: MutableMapping[str, Entity | None] | None = None,
) -> SentenceEvidence:
    """Triplets for one sentence (see the module docstring). `one_hop` may be a memoised
    `store.one_hop`; `entities` a cache id → Entity shared across calls (filled from the store)."""
    if mode not in EVIDENCE_MODES:
        raise ValueError(f"evidence mode must be one of {EVIDENCE_MODES}, not {mode!r}")
    ids = tuple(dict.fromkeys([*sentence_ids, *question_ids]))
    between = tuple(dict.fromkeys(store.statements_between(list(ids)))) if len(ids) >= 2 else ()
    context: list[Triple] = []
    if mode == "context":
        fetch = one_hop or store.one_hop
        seen = set(between)
        for entity_id in ids:
            for triple in fetch(entity_id):
                if triple.object_id != entity_id and triple not in seen:
                    seen.add(triple)
                    context.append(triple)
    cache = entities if entities is not None else {}
    wanted = list(dict.fromkeys([*ids, *(t.object_id for t in (*between, *context) if t.object_id)]))
    unknown = [i for i in wanted if i not in cache]
    if unknown:
        found = {e.id: e for e in store.get_entities(unknown)}
        for i in unknown:
            cache[i] = found.get(i)
    names: dict[str, str] = {}
    types: dict[str, tuple[str, ...]] = {}
    for t in (*between, *context):
        if t.object_id:
            names[t.object_id] = t.value
    for i in wanted:
        entity = cache.get(i)
        if entity is not None:
            names[i] = entity.name or names.get(i) or i
            types[i] = tuple(entity.types)
    return SentenceEvidence(tuple(sentence_ids), ids, between, tuple(context), names, types)


def triple_tuple(triple: Triple, evidence: SentenceEvidence) -> tuple[str, str, str]:
    """A triplet as Table 1 shows it: ('Barack Obama', 'position held', 'President of the United States')."""
    return (evidence.name(triple.subject), triple.label, triple.value)


def aggregate_attribution(labels: Iterable[int | None], *, reward: float = 1.0, penalty: float = 1.0) -> SubScore:
    if reward <= 0 or penalty < 0:
        raise ValueError("reward must be > 0 and penalty >= 0")
    labels = list(labels)
    judged = [x for x in labels if x is not None]
    n_a = sum(1 for x in judged if x == ATTRIBUTABLE)
    n_c = sum(1 for x in judged if x == CONTRADICTORY)
    n_e = sum(1 for x in judged if x == EXTRAPOLATORY)
    value = max(0.0, (reward * n_a - penalty * n_c) / (reward * len(judged))) if judged else None
    return SubScore("kg_attr", value, {
        "n_sentences": len(labels),
        "n_attributable": n_a,
        "n_extrapolatory": n_e,
        "n_contradictory": n_c,
        "n_missing": len(labels) - len(judged),
        "reward": reward,
        "penalty": penalty,
    })
