"""An entity and a one-hop statement as every stage after ingest sees them: what the stores return,
what retrieval shows, what answers cite and what the evaluation and the verifier compare."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Entity:
    id: str
    kb: str | None = None
    name: str | None = None
    aliases: tuple[str, ...] = ()
    description: str | None = None
    types: tuple[str, ...] = ()
    cvt: bool = False


@dataclass(frozen=True, order=True)
class Triple:
    """A one-hop statement as retrieval and evaluation see it.

    `value` is what a citation shows: the object's name when it is an entity (its id when it has no
    name), the literal otherwise.
    """

    subject: str
    pid: str
    label: str
    value: str
    object_id: str | None = None  # set when the object is an entity
    datatype: str | None = None  # set when the object is a literal
