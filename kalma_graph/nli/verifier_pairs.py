"""Pairs the graph generates to fit the verifier's stage two (`kalma_graph.verification.calibration`).

For an entity S and one of its triples (S, r, v), a one-sentence answer citing (S, r, v) that

- states it, in one of several wordings (`kg_pairs.fact_sentence`'s templates)   -> supported   (`states`)
- states it of another entity E (subject swap)                                  -> unsupported (`subject_swap`)
- states it of a bystander: "S knew E, who was born in v"                       -> unsupported (`bystander`)
- inverts the relation: "S was the father of v" for (S, father, v)              -> unsupported (`inverted`)
- states v under a near relation (born in v for place of death: v)              -> unsupported (`near`)
- states another value of r (CAQA's contradictory substitution)                 -> unsupported (`other_value`)

The graph shown with each pair is S's triples (and E's, when E is named), as an answer's would be.
Deterministic for a seed; entities are split by `kg_pairs.entity_split`, so `split="test"` pairs never share
an entity with training pairs.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.nli.kg_pairs import SIBLING_GROUPS, _Subject, _usable, entity_split, fact_sentence, value_pools
from kalma_graph.verification import AnswerInput, CitedTriple, GraphEntity, GraphTriple

if TYPE_CHECKING:
    from kalma_graph.models.protocols import Entailer

KINDS = ("states", "subject_swap", "bystander", "inverted", "near", "other_value")
_INVERTED = {"father": "{s} was the father of {o}.", "mother": "{s} was the mother of {o}.",
             "child": "{s} was a child of {o}.", "influenced by": "{s} influenced {o}.",
             "student of": "{s} taught {o}.", "student": "{s} studied under {o}."}
_NEAR: dict[str, str] = {}
for group in SIBLING_GROUPS:
    for label in group:
        _NEAR[label] = sorted(group - {label})[0] if len(group) > 1 else label
_NEAR |= {"educated at": "employer", "employer": "educated at", "award received": "nominated for",
          "native language": "country of citizenship"}


@dataclass(frozen=True)
class VerifierPair:
    sentence: str
    cited: tuple[str, str, str]
    label: int  # 1: the sentence states the cited triple
    kind: str
    answer: AnswerInput


def read_biokalma_graph(path: str | Path) -> list[tuple[Entity, list[Triple]]]:
    """Entities of a BioKaLMA `*_question_graph.json[.gz]` file (first record per QID, sorted)."""
    path = Path(path)
    text = (gzip.decompress(path.read_bytes()).decode("utf-8") if path.suffix == ".gz"
            else path.read_text(encoding="utf-8"))
    seen: dict[str, tuple[Entity, list[Triple]]] = {}
    for _question, records in json.loads(text):
        for record in records:
            qid = record.get("qid")
            if not qid or qid in seen:
                continue
            entity = Entity(id=qid, kb="wikidata", name=record.get("name"))
            triples = [Triple(subject=qid, pid=k.replace("_", " "), label=k.replace("_", " "), value=v,
                              datatype="time" if k.startswith("date of") else None)
                       for k, v in record.items() if k not in ("qid", "name") and isinstance(v, str)]
            seen[qid] = (entity, sorted(triples))
    return [seen[k] for k in sorted(seen)]


def _graph(triples: Iterable[Triple]) -> list[GraphTriple]:
    return [GraphTriple(subject=t.subject, label=t.label, value=t.value, datatype=t.datatype) for t in triples]


def _pair(sentence: str, label: int, kind: str, graph: list[GraphTriple], *, cited: tuple[str, str, str],
          entity_id: str, entities: list[GraphEntity]) -> VerifierPair:
    return VerifierPair(sentence, cited, label, kind, AnswerInput(
        id=f"{entity_id}-{kind}", sentences=[(sentence, [CitedTriple(subject=cited[0], relation=cited[1],
                                                                      value=cited[2])])],
        shown=graph, entities=entities))


def verifier_pairs(records: Sequence[tuple[Entity, Sequence[Triple]]], *, seed: int = 0, split: str | None = "train",
                   triples_per_entity: int = 2) -> list[VerifierPair]:
    pools = value_pools(records)
    people = [(e, ts) for e, ts in records if e.name and len(ts) >= 2]
    out: list[VerifierPair] = []
    for entity, triples in people:
        if split is not None and entity_split(entity.id, seed) != split:
            continue
        rng = random.Random(f"verifier-pairs:{seed}:{entity.id}")
        gender = next((t.value for t in triples if t.label == "sex or gender"), None)
        usable = [t for t in triples if _usable(t.label, t.value, entity.name) and t.label != "sex or gender"]
        if not usable:
            continue
        other, other_triples = people[rng.randrange(len(people))]
        if other.id == entity.id or not other.name:
            continue
        for t in rng.sample(usable, min(triples_per_entity, len(usable))):
            s_forms = _Subject(entity, gender).forms(use_pronoun=False)
            o_forms = _Subject(other, None).forms(use_pronoun=False)
            cited = (entity.id, t.label, t.value)
            entities = [GraphEntity(id=entity.id, name=entity.name), GraphEntity(id=other.id, name=other.name)]
            shown = _graph(triples)
            both = shown + _graph(other_triples)

            pair = partial(_pair, cited=cited, entity_id=entity.id, entities=entities)

            for _ in range(2):
                out.append(pair(fact_sentence(s_forms, t.label, t.value, rng, t.datatype), 1, "states", shown))
            kinds = ["subject_swap", "bystander", "other_value"] + (["inverted"] if t.label in _INVERTED else []) \
                + (["near"] if t.label in _NEAR else [])
            for kind in rng.sample(kinds, min(2, len(kinds))):
                if kind == "subject_swap":
                    sentence = fact_sentence(o_forms, t.label, t.value, rng, t.datatype)
                elif kind == "bystander":
                    clause = fact_sentence({"s": "who", "sp": "whose", "sp_l": "whose", "name": other.name},
                                           t.label, t.value, rng, t.datatype)
                    sentence = f"{entity.name} knew {other.name}, {clause[0].lower()}{clause[1:]}"
                elif kind == "inverted":
                    sentence = _INVERTED[t.label].format(s=entity.name, o=t.value)
                elif kind == "near":
                    sentence = fact_sentence(s_forms, _NEAR[t.label], t.value, rng, t.datatype)
                else:
                    choices = [v for v in pools.get(t.label, ()) if v != t.value]
                    if not choices:
                        continue
                    sentence = fact_sentence(s_forms, t.label, rng.choice(choices), rng, t.datatype)
                out.append(pair(sentence, 0, kind, both if kind in ("subject_swap", "bystander") else shown))
    return out


def pairs_sha256(pairs: Sequence[VerifierPair]) -> str:
    digest = hashlib.sha256()
    for p in pairs:
        digest.update(json.dumps([p.sentence, p.cited, p.label, p.kind]).encode())
    return digest.hexdigest()


def fit_calibration(pairs: Sequence[VerifierPair], nli: Entailer, *, l2: float = 1.0) -> dict[str, Any]:
    """Structural outcomes and NLI probabilities of the pairs, and the fitted stage-two weights (a dict
    ready for `kalma_graph/data/verifier_calibration.json`)."""
    from kalma_graph.kg.hypothesis import the_of_sentence
    from kalma_graph.verification import Verifier
    from kalma_graph.verification.calibration import FEATURES, features, fit_logistic

    verifier = Verifier()
    outcomes = [verifier.verify(p.answer).sentences[0].citations[0].outcome for p in pairs]
    names = {e.id: e.name for p in pairs for e in p.answer.entities if e.name is not None}
    probs = [float(x) for x in nli.entailment_prob([p.sentence for p in pairs],
                                                   [the_of_sentence(names.get(p.cited[0], p.cited[0]),
                                                                    p.cited[1], p.cited[2])
                                                    for p in pairs])]
    rows = [features(o, x) for o, x in zip(outcomes, probs)]
    labels = [p.label for p in pairs]
    weights = fit_logistic(rows, labels, l2=l2)
    structural = sum((o.startswith("supported")) == bool(y) for o, y in zip(outcomes, labels)) / len(labels)
    return {"kind": "kalma-graph.verifier-calibration", "version": 1, "features": list(FEATURES), "weights": weights,
            "l2": l2, "nli_sha256": getattr(nli, "model_hash", None), "pairs": len(pairs),
            "pairs_sha256": pairs_sha256(pairs), "kinds": {k: sum(p.kind == k for p in pairs) for k in KINDS},
            "structure_accuracy_on_pairs": round(structural, 4)}
