from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Protocol

from ...store.base import EntityRecord, StatementRecord

UNRESOLVED_LABEL = "label"


@dataclass
class ParsedLine:
    """What one input line contributed. A statement whose datatype is `UNRESOLVED_LABEL` holds an
    entity *label* (BioKaLMA records) that the pipeline links to an entity when the label is unique."""

    line: int
    entities: list[EntityRecord] = field(default_factory=list)
    statements: list[StatementRecord] = field(default_factory=list)


@dataclass
class LineError:
    line: int
    reason: str


class Reader(Protocol):
    """A format: `kb` of its entities and a generator of parsed lines (or errors), in file order."""

    format: str
    kb: str

    def read(self, path: Path) -> Iterator[ParsedLine | LineError]: ...
