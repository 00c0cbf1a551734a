"""Attribution pairs generated from the knowledge graph (the CAQA recipe, for NLI training).

For each entity, facts (one-hop triples) are verbalised. The hypothesis is one fact, in the citation
form the product checks (`employer: University of Jena`), with the subject (`Ernst Hanfstaengl —
employer: ...`) or as a plain sentence. The premise is a sentence or a short paragraph about the
entity that

- states the fact                                        -> entailment    (kind `states`)
- states the same property with a value of the same type
  taken from another entity (CAQA's contradictory
  substitution)                                          -> contradiction (kind `substituted`)
- states only other facts of the entity                  -> neutral       (kind `other_facts`)
- states the value under a sibling property (born in X
  vs `place of death: X`), a typical citation slip       -> neutral       (kind `swapped_property`)

"Same type" for substituted values is the property's range: values are drawn from the values the
same property has on other entities. Neutral premises never mention the hypothesis' value or
property, so they cannot state it implicitly.

Input is an iterable of `(Entity, list[Triple])`; `records_from_store` adapts a `GraphStore` and
`records_from_biokalma` the BioKaLMA `*_question_graph.json` files. Everything is deterministic for a
seed: each entity gets its own RNG seeded by (seed, entity id), so the output does not depend on the
order entities arrive in. `entity_split` assigns an entity to train/dev/test by a hash of its id, so
test entities are never seen in training.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from kalma_graph.kg.hypothesis import HYPOTHESES, is_relational
from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.store.base import GraphStore

ENTAILMENT, NEUTRAL, CONTRADICTION = "entailment", "neutral", "contradiction"
KG_SOURCE = "kg"

#: properties that make no useful claim (identifiers, wiki housekeeping)
SKIP_LABELS = frozenset({"name", "qid", "topic's main category", "commons category", "image",
                         "described at url", "official website", "discography"})
MAX_VALUE_CHARS = 80
_HEXLIKE = re.compile(r"^[0-9a-f]{32}$")  # Wikidata "unknown value" blank-node ids in BioKaLMA
_ISO_DATE = re.compile(r"^(-?)(\d{1,4})-(\d{2})-(\d{2})")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")

# Templates start with the subject ({s}: name or pronoun; {sp}: its possessive) so that paragraph
# sentences after the first can use a pronoun. {o} is the value, {a_o} the value with a/an.
TEMPLATES: dict[str, tuple[str, ...]] = {
    "place of birth": ("{s} was born in {o}.", "{sp} birthplace was {o}.", "{s} was a native of {o}."),
    "date of birth": ("{s} was born on {o}.", "{sp} date of birth is {o}.", "{s} was born {o}."),
    "place of death": ("{s} died in {o}.", "{sp} life ended in {o}.", "{s} passed away in {o}."),
    "date of death": ("{s} died on {o}.", "{s} passed away on {o}.", "{sp} date of death is {o}."),
    "country of citizenship": ("{s} was a citizen of {o}.", "{s} held citizenship of {o}."),
    "occupation": ("{s} worked as {a_o}.", "{s} was {a_o} by profession.", "{sp} occupation was {o}."),
    "sex or gender": ("{sp} gender was {o}.", "{s} was recorded as {o}."),
    "given name": ("{sp} given name was {o}.", "{s} had the first name {o}."),
    "surname": ("{sp} family name was {o}.", "{s} bore the surname {o}."),
    "father": ("{sp} father was {o}.", "{s} was a child of {o}, {sp_l} father."),
    "mother": ("{sp} mother was {o}.", "{s} was born to {o}, {sp_l} mother."),
    "spouse": ("{s} was married to {o}.", "{sp} spouse was {o}.", "{s} married {o}."),
    "child": ("{s} was the parent of {o}.", "{s} had a child named {o}."),
    "relative": ("{s} was related to {o}.", "{s} was a relative of {o}."),
    "languages spoken": ("{s} spoke {o}.", "{s} could speak {o}."),
    "native language": ("{sp} native language was {o}.", "{s} was a native speaker of {o}."),
    "alma mater": ("{s} studied at {o}.", "{s} was educated at {o}.", "{s} graduated from {o}."),
    "position held": ("{s} held the position of {o}.", "{s} served as {o}."),
    "award received": ("{s} received the {o}.", "{s} was awarded the {o}.", "{s} won the {o}."),
    "nominated for": ("{s} was nominated for the {o}.", "{s} received a nomination for the {o}."),
    "place of burial": ("{s} was buried at {o}.", "{sp} grave is at {o}.", "{s} was laid to rest at {o}."),
    "religion": ("{sp} religion was {o}.", "{s} was an adherent of {o}."),
    "cause of death": ("{s} died of {o}.", "{sp} cause of death was {o}."),
    "manner of death": ("{sp} manner of death was {o}.", "{s} died of {o}."),
    "medical condition": ("{s} suffered from {o}.", "{s} had {o}."),
    "noble family": ("{s} was a member of the noble family {o}.", "{s} belonged to the {o}."),
    "noble title": ("{s} held the title of {o}.", "{s} bore the noble title {o}."),
    "member of": ("{s} was a member of {o}.", "{s} belonged to {o}."),
    "member of political party": ("{s} was a member of the {o}.", "{s} belonged to the {o}."),
    "member of sports team": ("{s} played for {o}.", "{s} was a member of the team {o}."),
    "field of work": ("{s} worked in the field of {o}.", "{sp} work focused on {o}."),
    "employer": ("{s} worked for {o}.", "{s} was employed by {o}.", "{sp} employer was {o}."),
    "work location": ("{s} worked in {o}.", "{sp} place of work was {o}."),
    "residence": ("{s} lived in {o}.", "{s} resided in {o}."),
    "genre": ("{s} worked in the {o} genre.", "{sp} work belongs to the {o} genre."),
    "notable works": ("{s} is known for {o}.", "{sp} notable works include {o}."),
    "movement": ("{s} was associated with the {o} movement.", "{s} was part of {o}."),
    "sport": ("{s} played {o}.", "{sp} sport was {o}."),
    "instrument": ("{s} played the {o}.", "{sp} instrument was the {o}."),
    "participated in": ("{s} took part in the {o}.", "{s} participated in the {o}."),
    "conflict": ("{s} fought in the {o}.", "{s} served in the {o} as a combatant."),
    "military rank": ("{s} held the military rank of {o}.", "{sp} rank was {o}."),
    "military branch": ("{s} served in the {o}.", "{sp} military branch was the {o}."),
    "ethnic group": ("{sp} ethnic group was {o}.", "{s} belonged to the ethnic group {o}."),
    "record label": ("{s} was signed to {o}.", "{s} recorded for {o}."),
    "student of": ("{s} studied under {o}.", "{s} was a student of {o}."),
    "academic degree": ("{s} earned {a_o}.", "{s} held the academic degree {o}."),
    "position played on team": ("{s} played as {a_o}.", "{sp} playing position was {o}."),
    "cohabitant": ("{s} lived with {o}.", "{s} shared a home with {o}."),
    "archives at": ("{sp} archives are held at {o}.", "{sp} papers are kept at {o}."),
    "instance of": ("{s} was {a_o}.",),
    "described by source": ("{s} is described in {o}.", "{s} has an entry in {o}."),
    "depicted by": ("{s} is depicted in {o}.", "{s} appears in {o}."),
    "significant event": ("{s} experienced {o}.", "{sp} life included {o}."),
    "sibling": ("{sp} sibling was {o}.", "{s} was a sibling of {o}."),
}
GENERIC_TEMPLATES = ("{sp} {p} was {o}.", "The {p} of {name} was {o}.")
#: for labels that end in a preposition or participle ("part of", "located in", "depicted by")
RELATIONAL_TEMPLATES = ("{s} is {p} {o}.",)
_NOT_NOUN_LIKE = frozenset({"described by source", "notable works", "languages spoken", "award received"})

#: Properties whose values are easily confused with each other's in citations. Swapping within a
#: group yields a claim the text does not state (neutral). Groups only hold properties where one
#: does not imply the other (native language -> languages spoken would, so it is not grouped).
SIBLING_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"place of birth", "place of death", "place of burial", "residence", "work location"}),
    frozenset({"date of birth", "date of death"}),
    frozenset({"father", "mother", "spouse", "child", "student of"}),
    frozenset({"employer", "alma mater", "member of sports team"}),
    frozenset({"given name", "surname"}),
)


# --- adapters -----------------------------------------------------------------------------------


def records_from_store(store: GraphStore, entity_ids: Iterable[str]) -> Iterator[tuple[Entity, list[Triple]]]:
    """(entity, one-hop triples) for each id the store knows."""
    for entity_id in entity_ids:
        entity = store.get_entity(entity_id)
        if entity is not None:
            yield entity, store.one_hop(entity_id)


def records_from_biokalma(path: str | Path) -> list[tuple[Entity, list[Triple]]]:
    """Entities of a BioKaLMA `*_question_graph.json` file ([question, [record, ...]] rows; each
    record maps property label -> value label plus `qid` and `name`), first record per QID kept,
    sorted by QID. The records carry no PIDs, so `Triple.pid` holds the property label."""
    rows = json.loads(Path(path).read_text(encoding="utf-8"))
    seen: dict[str, tuple[Entity, list[Triple]]] = {}
    for _question, records in rows:
        for record in records:
            qid = record.get("qid")
            if not qid or qid in seen:
                continue
            types = ("Q5",) if record.get("instance of") == "human" else ()
            entity = Entity(id=qid, kb="wikidata", name=record.get("name"), types=types)
            triples = []
            for key, value in record.items():
                if key in ("qid", "name") or not isinstance(value, str):
                    continue
                label = key.replace("_", " ")
                datatype = "time" if label.startswith("date of") else None
                triples.append(Triple(subject=qid, pid=label, label=label, value=value, datatype=datatype))
            seen[qid] = (entity, sorted(triples))
    return [seen[k] for k in sorted(seen)]


# --- split and verbalisation --------------------------------------------------------------------


def entity_split(entity_id: str, seed: int = 0, dev: float = 0.1, test: float = 0.1) -> str:
    """'train' | 'dev' | 'test' from a hash of (seed, id): stable, independent of the other entities."""
    digest = hashlib.sha256(f"kg-split:{seed}:{entity_id}".encode()).digest()
    u = int.from_bytes(digest[:8], "big") / 2**64
    return "test" if u < test else "dev" if u < test + dev else "train"


def format_date(value: str, style: int) -> str | None:
    """An ISO date as prose: 0 -> 'November 1, 1871', 1 -> '1 November 1871', 2 -> as given."""
    m = _ISO_DATE.match(value)
    if not m:
        return None
    neg, year, month, day = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    era = " BC" if neg else ""
    if style == 0:
        return f"{_MONTHS[month - 1]} {day}, {year}{era}"
    if style == 1:
        return f"{day} {_MONTHS[month - 1]} {year}{era}"
    return value


def _article(text: str) -> str:
    return ("an " if text[:1].lower() in "aeiou" else "a ") + text


def _usable(label: str, value: str, name: str | None) -> bool:
    if label in SKIP_LABELS or not value or len(value) > MAX_VALUE_CHARS:
        return False
    if _HEXLIKE.match(value) or value.startswith(("http://", "https://", "Category:")):
        return False
    if name and label in ("given name", "surname") and value.casefold() in name.casefold():
        return False  # stated by the name itself: every premise would entail it
    return not (name and value.casefold() == name.casefold())


class _Subject:
    def __init__(self, entity: Entity, gender: str | None):
        self.name = entity.name or entity.id
        self.pronoun = {"male": ("He", "His"), "female": ("She", "Her")}.get((gender or "").lower())

    def forms(self, use_pronoun: bool) -> dict[str, str]:
        if use_pronoun and self.pronoun:
            s, sp = self.pronoun
            return {"s": s, "sp": sp, "sp_l": sp.lower(), "name": self.name}
        sp = f"{self.name}'" if self.name.endswith("s") else f"{self.name}'s"
        sp_l = self.pronoun[1].lower() if self.pronoun else "their"
        return {"s": self.name, "sp": sp, "sp_l": sp_l, "name": self.name}


def fact_sentence(subject: dict[str, str], label: str, value: str, rng: random.Random,
                  datatype: str | None = None) -> str:
    """One sentence stating (subject, label, value)."""
    shown = value
    if datatype == "time" or label.startswith("date of"):
        shown = format_date(value, rng.choice((0, 0, 1, 1, 2))) or value
    if label in TEMPLATES:
        noun_like = not is_relational(label) and label not in _NOT_NOUN_LIKE
        templates = TEMPLATES[label] + (GENERIC_TEMPLATES[:1] if noun_like else ())
    else:
        templates = RELATIONAL_TEMPLATES if is_relational(label) else GENERIC_TEMPLATES
    template = rng.choice(templates)
    text = template.format(o=shown, a_o=_article(shown), p=label, **subject)
    return text[0].upper() + text[1:]


#: a pair's hypothesis style -> its format in `kalma_graph.kg.hypothesis`
STYLE_FORMATS = {"citation": "prop_value", "subject_citation": "subject_citation", "sentence": "relational"}


def hypothesis_text(name: str, label: str, value: str, style: str) -> str:
    """`citation` -> `employer: X`; `subject_citation` -> `Name — employer: X`; `sentence`."""
    return HYPOTHESES[STYLE_FORMATS[style]](name, label, value)


def _paragraph(subject: _Subject, facts: Sequence[tuple[str, str, str | None]], rng: random.Random) -> str:
    sentences = []
    for i, (label, value, datatype) in enumerate(facts):
        sentences.append(fact_sentence(subject.forms(use_pronoun=i > 0), label, value, rng, datatype))
    return " ".join(sentences)


# --- generation ---------------------------------------------------------------------------------


def value_pools(records: Iterable[tuple[Entity, Sequence[Triple]]]) -> dict[str, list[str]]:
    """label -> sorted distinct values seen for it (the candidates for same-type substitution)."""
    pools: dict[str, set[str]] = defaultdict(set)
    for entity, triples in records:
        for t in triples:
            if _usable(t.label, t.value, entity.name):
                pools[t.label].add(t.value)
    return {k: sorted(v) for k, v in sorted(pools.items())}


def pairs_for_entity(
    entity: Entity,
    triples: Sequence[Triple],
    pools: dict[str, list[str]],
    *,
    per_entity: int = 12,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Up to `per_entity` labelled pairs for one entity, balanced over the three labels."""
    rng = random.Random(f"kg-pairs:{seed}:{entity.id}")
    facts = sorted({(t.label, t.value, t.datatype) for t in triples if _usable(t.label, t.value, entity.name)})
    if len(facts) < 2:
        return []
    gender = next((t.value for t in triples if t.label == "sex or gender"), None)
    subject = _Subject(entity, gender)
    by_label: dict[str, set[str]] = defaultdict(set)
    for label, value, _ in facts:
        by_label[label].add(value.casefold())

    def others(exclude_labels: set[str], exclude_values: set[str], k: int) -> list[tuple[str, str, str | None]]:
        pool = [f for f in facts if f[0] not in exclude_labels and f[1].casefold() not in exclude_values]
        return rng.sample(pool, min(k, len(pool)))

    def premise_with(fact: tuple[str, str, str | None], exclude_labels: set[str], exclude_values: set[str]) -> str:
        extra = others(exclude_labels | {fact[0]}, exclude_values | {fact[1].casefold()}, rng.choice((0, 0, 1, 2, 3)))
        chosen = extra + [fact]
        rng.shuffle(chosen)
        return _paragraph(subject, chosen, rng)

    def style() -> str:
        return rng.choices(("citation", "subject_citation", "sentence"), weights=(2, 1, 1))[0]

    out: list[dict[str, Any]] = []

    def emit(premise: str, label: str, value: str, nli_label: str, kind: str, hyp_style: str) -> None:
        out.append({
            "premise": premise,
            "hypothesis": hypothesis_text(subject.name, label, value, hyp_style),
            "label": nli_label,
            "source": KG_SOURCE,
            "kind": kind,
            "entity": entity.id,
            "property": label,
            "hypothesis_style": hyp_style,
        })

    per_label = max(1, per_entity // 3)
    targets = rng.sample(facts, min(len(facts), per_label))
    # entailment: the premise states the target fact
    for fact in targets:
        emit(premise_with(fact, set(), set()), fact[0], fact[1], ENTAILMENT, "states", style())
    # contradiction: the premise states the same property with a substituted value
    for fact in rng.sample(facts, min(len(facts), per_label)):
        label, value, datatype = fact
        candidates = [v for v in pools.get(label, ()) if v.casefold() not in by_label[label]]
        if not candidates:
            continue
        substitute = rng.choice(candidates)
        premise = premise_with((label, substitute, datatype), set(), {value.casefold()})
        emit(premise, label, value, CONTRADICTION, "substituted", style())
    # neutral: other facts only, or the value under a sibling property
    for fact in rng.sample(facts, min(len(facts), per_label)):
        label, value, datatype = fact
        group = next((g for g in SIBLING_GROUPS if label in g), None)
        swaps = sorted(p for p in (group or ()) if p != label and value.casefold() not in by_label.get(p, set()))
        if swaps and rng.random() < 0.5:
            other = rng.choice(swaps)
            premise = premise_with(fact, {other}, set())
            emit(premise, other, value, NEUTRAL, "swapped_property", style())
            continue
        rest = others({label}, {value.casefold()}, rng.choice((1, 1, 2, 3)))
        if not rest:
            continue
        emit(_paragraph(subject, rest, rng), label, value, NEUTRAL, "other_facts", style())
    return out


def generate_kg_pairs(
    records: Iterable[tuple[Entity, Sequence[Triple]]],
    *,
    per_entity: int = 12,
    seed: int = 0,
    pools: dict[str, list[str]] | None = None,
) -> list[dict[str, Any]]:
    """Labelled pairs for every entity (ordered by entity id). `pools` defaults to the values of
    these records, so a split's substitutes come from that split's own entities."""
    records = sorted(((e, list(t)) for e, t in records), key=lambda r: r[0].id)
    pools = pools if pools is not None else value_pools(records)
    out: list[dict[str, Any]] = []
    for entity, triples in records:
        out.extend(pairs_for_entity(entity, triples, pools, per_entity=per_entity, seed=seed))
    return out


def kg_pairs_by_split(
    records: Iterable[tuple[Entity, Sequence[Triple]]],
    *,
    per_entity: int = 12,
    seed: int = 0,
    dev: float = 0.1,
    test: float = 0.1,
) -> dict[str, list[dict[str, Any]]]:
    """{'train': [...], 'dev': [...], 'test': [...]} with entities split by `entity_split`."""
    groups: dict[str, list[tuple[Entity, Sequence[Triple]]]] = {"train": [], "dev": [], "test": []}
    for entity, triples in records:
        groups[entity_split(entity.id, seed, dev, test)].append((entity, triples))
    return {name: generate_kg_pairs(rows, per_entity=per_entity, seed=seed) for name, rows in groups.items()}
