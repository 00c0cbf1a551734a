"""The paper's knowledge block (`{qid: Q212657, name: …, place of birth: Rome}`, seed 000, Table 13): how an
entity and its one-hop statements are shown to a model, and which statements cannot be shown."""

from __future__ import annotations

import re
from typing import Protocol, Sequence

from .triples import Entity, Triple

# A literal whose whole text is an entity id: a source that named the object by its id only (54 BioKaLMA
# record facts, `conflict: Q12182610`), so the graph holds the id as a value, not as an entity.
_ENTITY_ID = re.compile(r"Q[1-9][0-9]*|[mg]\.[0-9a-z_]+")


class _Valued(Protocol):
    """What `is_unlabelled` reads of a statement: a `Triple`, or the verifier's `GraphTriple`."""

    @property
    def value(self) -> str: ...

    @property
    def object_id(self) -> str | None: ...


def is_unlabelled(t: _Valued) -> bool:
    """A statement whose object the graph knows only by its id: an entity without a label in any loaded
    source, or a literal that is an entity id. It tells a model or a reader nothing, and a model copies it
    into its prose (`member of: Q329464, Q414188, …`), so no block shows it and no citation may cite it.

    >>> is_unlabelled(Triple("Q1", "P106", "occupation", "Q6625963", object_id="Q6625963"))
    True
    >>> is_unlabelled(Triple("Q1", "P607", "conflict", "Q12182610"))
    True
    >>> is_unlabelled(Triple("Q1", "P106", "occupation", "poet", object_id="Q49757"))
    False
    """
    if t.object_id:
        return t.value == t.object_id
    return _ENTITY_ID.fullmatch(t.value.strip()) is not None


def unlabelled(triples: Sequence[Triple]) -> int:
    """How many statements a knowledge block leaves out for want of their object's label."""
    return sum(is_unlabelled(t) for t in triples)


def knowledge_block(entity: Entity, triples: Sequence[Triple]) -> str:
    """One entity as a `{…}` block: `qid` and `name` first and every statement as `property: value`;
    several values of a property are joined with `, ` in the order retrieval sorted them. A statement
    `is_unlabelled` is left out (`unlabelled` counts them).

    >>> knowledge_block(Entity("Q1", name="Ann"), [Triple("Q1", "P106", "occupation", "poet", object_id="Q49757"),
    ...                                            Triple("Q1", "P106", "occupation", "Q6625963",
    ...                                                   object_id="Q6625963")])
    '{qid: Q1, name: Ann, occupation: poet}'
    """
    parts = [f"qid: {entity.id}", f"name: {entity.name or entity.id}"]
    by_label: dict[str, list[str]] = {}
    for t in triples:
        if is_unlabelled(t):
            continue
        by_label.setdefault(t.label, []).append(t.value)
    parts += [f"{label}: {', '.join(values)}" for label, values in by_label.items()]
    return "{" + ", ".join(parts) + "}"


def knowledge_blocks(entities: Sequence[Entity], triples: Sequence[Triple]) -> list[str]:
    """One block per entity, in entity order. An entity whose statements were all withheld keeps a block
    with its qid and name."""
    by_subject: dict[str, list[Triple]] = {}
    for t in triples:
        by_subject.setdefault(t.subject, []).append(t)
    return [knowledge_block(e, by_subject.get(e.id, [])) for e in entities]
