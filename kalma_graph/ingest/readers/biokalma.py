"""BioKaLMA entity records: the released `*_question_graph.json` files (a list of
`[question, [record, …]]`) and JSON lines of `{"qid", "name", "facts": {label: value}}`.

A record maps Wikidata property *labels* to value *labels*. Property labels become PIDs through the
bundled property list; item-valued properties are emitted as unresolved labels that the ingest
pipeline links to an entity when exactly one entity has that name, else stores as a Value.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from ...store.base import EntityRecord, StatementRecord, name_key
from ..properties import wikidata_pid_by_label, wikidata_properties
from ..sources import Undecodable, checked_lines, open_text
from .base import UNRESOLVED_LABEL, LineError, ParsedLine

# Record keys that are not "property label: value label" facts.
_DATES = {"date_of_birth": "P569", "date_of_death": "P570"}
_NOT_FACTS = {"qid", "name", *_DATES}
_CURATED = "\x00curated"  # key under which the JSON-lines form carries its pids/linked maps


class BioKaLMAReader:
    format = "biokalma"
    kb = "wikidata"

    def read(self, path: Path) -> Iterator[ParsedLine | LineError]:
        for position, record in _records(path):
            if isinstance(record, LineError):
                yield record
                continue
            try:
                yield parse_record(record, position)
            except (KeyError, TypeError, ValueError) as exc:
                yield LineError(position, f"not a BioKaLMA record: {type(exc).__name__}: {exc}")

    def prescan(self, path: Path) -> dict[str, set[str]]:
        """name key → ids of the records in this file: labels are linked to them even when the
        record that defines the entity comes later in the file."""
        names: dict[str, set[str]] = {}
        for _, record in _records(path):
            if isinstance(record, dict) and record.get("qid") and record.get("name"):
                names.setdefault(name_key(str(record["name"])), set()).add(str(record["qid"]))
        return names


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any] | LineError]]:
    """(position, record). Position is the line for JSON lines and the 1-based question number for
    the released question files (one JSON document)."""
    with open_text(path) as handle:
        head = handle.read(1)
        while head and head.isspace():
            head = handle.read(1)
        if head == "[":
            try:
                data = json.loads(head + handle.read())
            except json.JSONDecodeError as exc:
                yield exc.lineno, LineError(exc.lineno, f"invalid JSON: {exc.msg}")
                return
            for number, item in enumerate(data, start=1):
                records = item[1] if isinstance(item, list) and len(item) == 2 else None
                if not isinstance(records, list):
                    yield number, LineError(number, "expected [question, [records…]]")
                    continue
                for record in records:
                    yield number, record
            return
    for number, line in checked_lines(path):
        if isinstance(line, Undecodable):
            yield number, LineError(number, line.reason)
            continue
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            yield number, LineError(number, f"invalid JSON: {exc.msg} at column {exc.colno}")
            continue
        if isinstance(obj, dict) and isinstance(obj.get("facts"), dict):
            # dumps/biokalma_records.jsonl: facts apart, with optional curated `pids`
            # (label → PID) and `linked` (label → QID) maps from scripts/build_dumps.py.
            flat = {**obj["facts"], **{k: obj.get(k) for k in _NOT_FACTS}}
            flat[_CURATED] = (obj.get("pids") or {}, obj.get("linked") or {})
            obj = flat
        yield number, obj


def parse_record(record: dict[str, Any], position: int) -> ParsedLine:
    qid = str(record["qid"])
    if not qid.startswith("Q"):
        raise ValueError(f"qid {qid!r} is not a Wikidata item id")
    name = record.get("name")
    statements = []
    types: list[str] = []
    curated_pids, linked = record.get(_CURATED, ({}, {}))
    by_label = {**wikidata_pid_by_label(), **curated_pids}
    props = wikidata_properties()
    for key, date_pid in _DATES.items():
        if record.get(key):
            statements.append(StatementRecord(qid, date_pid, props[date_pid][0], value=str(record[key]),
                                              datatype="time"))
    for label, value in sorted((k, v) for k, v in record.items() if k != _CURATED):
        if label in _NOT_FACTS or value in (None, ""):
            continue
        if label in linked and label in by_label:
            statements.append(StatementRecord(qid, by_label[label], label, object_id=str(linked[label])))
            if by_label[label] == "P31":
                types.append(str(linked[label]))
            continue
        pid = by_label.get(label)
        if pid is None:
            # A label the property list lacks: keep the fact, keyed by its label.
            statements.append(StatementRecord(qid, f"label:{label}", label, value=str(value), datatype="string"))
            continue
        is_item = props.get(pid, ("", "WikibaseItem"))[1] == "WikibaseItem"
        statements.append(
            StatementRecord(qid, pid, label, value=str(value), datatype=UNRESOLVED_LABEL if is_item else "string")
        )
    entity = EntityRecord(qid, "wikidata", name=str(name) if name else None, types=tuple(types))
    return ParsedLine(position, [entity], statements)
