"""Knowledge filters: what the experiments change in the graph shown to the answering model.

A filter is called by the answer pipeline once per question, after retrieval, as
`knowledge_filter(question, triples) -> (shown, removed)`: `shown` goes into the prompt, `removed` is
recorded in the answer record (the absent set of [NA] evaluation). The base graph is never changed.
Each filter has a `name` naming its setting, which the pipeline records with every answer (and
compares on resume).

- `RemovalFilter(gold, n)` — conscious incompetence (KaLMA §4.4, §5.2): withhold the first `n`
  minimum-set triples that the question's graph holds. Round n+1 withholds what round n withheld and
  one more, so the rounds are nested.
- `IrrelevantGraphFilter(store, replaced, pool)` — retrieval ablation (§5.3): for the chosen questions,
  show the one-hop graphs of other, randomly drawn entities instead of the retrieved graph.
  `choose_replaced(ids, share, seed)` picks the questions; for one seed the sets are nested
  (the 40% set holds the 20% set), as in the paper's "replace additional 20%".

Triples may be store `Triple`s or answer-file dicts (`subject`, `label`, `value`, …); a filter
returns the kind it was given.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Callable, Collection, Mapping, Sequence

from kalma_graph.errors import BadInputError
from kalma_graph.evaluation.matching import MatchMode, key_function
from kalma_graph.kg.triples import Triple

if TYPE_CHECKING:
    from kalma_graph.store.base import GraphStore

KnowledgeFilter = Callable[[Any, Sequence[Any]], tuple[list[Any], list[Any]]]


class FilterError(BadInputError, LookupError):
    """A filter cannot tell which question it was given."""


def question_key(question: Any, by_text: Mapping[str, str] | None = None) -> str:
    """The id of the question the pipeline passes: a dict with `id`, an object with `.id`, or the
    question text (looked up in `by_text`, text -> id)."""
    if isinstance(question, Mapping) and question.get("id") is not None:
        return str(question["id"])
    if getattr(question, "id", None) is not None:
        return str(question.id)
    text = question.get("question") if isinstance(question, Mapping) else question
    if isinstance(text, str) and by_text and text in by_text:
        return by_text[text]
    raise FilterError(f"cannot tell which question this is (no id, text not known): {str(question)[:120]!r}")


def _parts(triple: Any) -> tuple[str, str, str]:
    if isinstance(triple, Mapping):
        return (str(triple["subject"]), str(triple["label"]), str(triple["value"]))
    return (triple.subject, triple.label, triple.value)


class RemovalFilter:
    """Withhold the first `n_remove` gold triples present in the question's graph (see module doc).

    The order is the gold set's (the minimum set as built), or a per-question shuffle when `seed` is
    given. A question with fewer gold triples in its graph than `n_remove` loses all it has;
    `log[question id]` records what was asked for and done. Questions without a gold set are shown
    their whole graph (and logged)."""

    def __init__(self, gold: Mapping[str, Sequence[Any]], n_remove: int, *, matching: MatchMode = "strict",
                 seed: int | None = None, by_text: Mapping[str, str] | None = None) -> None:
        if n_remove < 0:
            raise ValueError("n_remove must be >= 0")
        self.gold = gold
        self.n_remove = n_remove
        self.matching = matching
        self.seed = seed
        self.by_text = by_text
        self.key = key_function(matching)
        self.log: dict[str, dict] = {}
        self.name = f"remove_gold_{n_remove}" + ("" if seed is None else f"_shuffled_seed{seed}")

    @property
    def withholds_nothing(self) -> bool:
        """Round 0: every question sees its whole graph (the unfiltered setting)."""
        return self.n_remove == 0

    def order(self, qid: str) -> list[tuple[str, str, str]]:
        triples = [_parts(t) if not isinstance(t, tuple) else t for t in self.gold.get(qid, [])]
        if self.seed is not None:
            triples = sorted(triples)
            random.Random(f"{self.seed}|{qid}").shuffle(triples)
        return triples

    def __call__(self, question: Any, triples: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        qid = question_key(question, self.by_text)
        triples = list(triples)
        if qid not in self.gold:
            self.log[qid] = {"gold": None, "requested": self.n_remove, "removed_gold": 0}
            return triples, []
        present = {self.key(_parts(t)) for t in triples}
        candidates = []
        for g in self.order(qid):
            k = self.key(g)
            if k in present and k not in candidates:
                candidates.append(k)
        chosen = set(candidates[: self.n_remove])
        shown = [t for t in triples if self.key(_parts(t)) not in chosen]
        removed = [t for t in triples if self.key(_parts(t)) in chosen]
        self.log[qid] = {"gold": len(self.gold[qid]), "gold_in_graph": len(candidates), "requested": self.n_remove,
                         "removed_gold": len(chosen), "removed_triples": len(removed)}
        return shown, removed

    def summary(self, records: Sequence[Mapping[str, Any]] | None = None) -> dict:
        """What was withheld: from this run's calls, or, given the answers file's records, from what each record
        says it withheld — whole even when the run answered none of them itself (resumed, or merged shards)."""
        rows = list(self.log.values()) if records is None else [self._logged(r) for r in records]
        return {
            "n_remove": self.n_remove,
            "questions": len(rows),
            "questions_without_gold": sum(1 for r in rows if r["gold"] is None),
            "questions_short": sum(1 for r in rows if r["gold"] is not None and r["removed_gold"] < self.n_remove),
            "gold_removed": sum(r["removed_gold"] for r in rows),
            "order": "gold set order" if self.seed is None else f"shuffled per question (seed {self.seed})",
        }

    def _logged(self, record: Mapping[str, Any]) -> dict:
        qid = str(record["id"])
        if qid not in self.gold:
            return {"gold": None, "removed_gold": 0}
        gold_keys = {self.key(g) for g in self.order(qid)}
        withheld = {self.key(_parts(t)) for t in record.get("removed") or []}
        return {"gold": len(self.gold[qid]), "removed_gold": len(withheld & gold_keys)}


def choose_replaced(question_ids: Sequence[str], share: float, seed: int = 0) -> set[str]:
    """round(share * N) question ids, drawn by a seeded permutation of the sorted ids; for one seed a
    larger share holds every id of a smaller one."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must be in [0, 1], got {share!r}")
    order = sorted(set(question_ids))
    random.Random(seed).shuffle(order)
    return set(order[: round(share * len(order))])


IRRELEVANT_POOL_SIZE = 10_000


def irrelevant_pool(store: GraphStore, type_id: str | None = "Q5", size: int = IRRELEVANT_POOL_SIZE,
                    seed: int = 0) -> list[str]:
    """Entities whose one-hop graphs can stand in for a wrong retrieval: those of `type_id` (humans,
    like BioKaLMA's), sorted; a seeded draw of `size` of them when there are more (a full Wikidata
    has ~10M humans: the pool is drawn in the database, not read whole)."""
    if type_id is None:
        raise ValueError("irrelevant_pool needs a type id (the store has no 'all entities' query)")
    return store.random_entities_of_type(type_id, size, seed)


class IrrelevantGraphFilter:
    """For questions in `replaced`, show the one-hop graphs of as many other entities as the question's
    graph had subjects (at least one), drawn from `pool` with a per-question seeded generator; the
    retrieved graph becomes `removed`. Other questions pass through unchanged."""

    def __init__(self, store: GraphStore, replaced: Collection[str], pool: Sequence[str], *, seed: int = 0,
                 by_text: Mapping[str, str] | None = None, max_draws: int = 50) -> None:
        if not pool:
            raise ValueError("the pool of irrelevant entities is empty")
        self.store = store
        self.replaced = set(replaced)
        self.pool = sorted(set(pool))
        self.seed = seed
        self.by_text = by_text
        self.max_draws = max_draws
        self.log: dict[str, dict] = {}
        digest = hashlib.sha256("\n".join(sorted(self.replaced)).encode()).hexdigest()[:8]
        self.name = f"irrelevant_graphs_{len(self.replaced)}q_{digest}_seed{seed}"

    @property
    def withholds_nothing(self) -> bool:
        """Accuracy 100: no question is shown another entity's graph (the unfiltered setting)."""
        return not self.replaced

    def __call__(self, question: Any, triples: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        qid = question_key(question, self.by_text)
        triples = list(triples)
        if qid not in self.replaced:
            self.log[qid] = {"replaced": False}
            return triples, []
        own = {_parts(t)[0] for t in triples}
        own |= {str(e) for e in getattr(question, "reference_qids", ()) or ()}  # the dataset's own entities
        if isinstance(question, Mapping):
            own |= {str(e) for e in question.get("entities") or question.get("reference_qids") or []
                    if isinstance(e, str)}
        wanted = max(1, len(own))
        rng = random.Random(f"{self.seed}|{qid}")
        candidates = [e for e in self.pool if e not in own]
        rng.shuffle(candidates)
        chosen: list[str] = []
        shown: list[Triple] = []
        for entity_id in candidates[: self.max_draws]:
            hop = self.store.one_hop(entity_id)
            if hop:
                chosen.append(entity_id)
                shown += hop
            if len(chosen) == wanted:
                break
        self.log[qid] = {"replaced": True, "with": chosen, "subjects_before": sorted(own)}
        as_dicts = bool(triples) and isinstance(triples[0], Mapping)
        return ([asdict(t) for t in shown] if as_dicts else shown), triples

    def summary(self) -> dict:
        rows = list(self.log.values())
        return {"questions": len(rows), "replaced": sum(1 for r in rows if r["replaced"]), "seed": self.seed,
                "pool": len(self.pool)}
