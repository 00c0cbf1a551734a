"""Wikidata JSON: the official `latest-all.json[.gz|.bz2]` (a JSON array, one entity per line, lines
ending in commas) and plain JSON lines of the same entity objects.

Per entity: English label, aliases and description; claims whose datavalue is an item, string, time,
quantity, monolingual text or coordinate; truthy statements only (preferred rank where a property
has one, else normal; deprecated never). `P31` (instance of) values also become the entity's types.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from ...store.base import EntityRecord, StatementRecord
from ..properties import wikidata_label
from ..sources import Undecodable, checked_lines
from .base import LineError, ParsedLine

INSTANCE_OF = "P31"


class WikidataJsonReader:
    format = "wikidata-json"
    kb = "wikidata"

    def __init__(self, language: str = "en") -> None:
        self.language = language
        self.learned_labels: dict[str, str] = {}  # property labels met in the dump itself

    def read(self, path: Path) -> Iterator[ParsedLine | LineError]:
        for number, line in checked_lines(path):
            if isinstance(line, Undecodable):
                yield LineError(number, line.reason)
                continue
            text = line.strip()
            if text in ("", "[", "]"):
                continue
            if text.endswith(","):
                text = text[:-1]
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                yield LineError(number, f"invalid JSON: {exc.msg} at column {exc.colno}")
                continue
            try:
                yield self.parse_entity(obj, number)
            except (KeyError, TypeError, ValueError) as exc:
                yield LineError(number, f"not a Wikidata entity object: {type(exc).__name__}: {exc}")

    def parse_entity(self, obj: dict[str, Any], number: int) -> ParsedLine:
        if not isinstance(obj, dict) or "id" not in obj:
            raise ValueError("expected an object with an 'id'")
        entity_id = str(obj["id"])
        lang = self.language
        label = (obj.get("labels") or {}).get(lang, {}).get("value")
        if obj.get("type") == "property":
            if label:
                self.learned_labels[entity_id] = label
            return ParsedLine(number)
        aliases = tuple(a["value"] for a in (obj.get("aliases") or {}).get(lang, []) if a.get("value"))
        description = (obj.get("descriptions") or {}).get(lang, {}).get("value")
        statements: list[StatementRecord] = []
        types: list[str] = []
        for pid, claims in sorted((obj.get("claims") or {}).items()):
            prop_label = wikidata_label(pid, self.learned_labels)
            for claim in truthy(claims):
                st = _statement(entity_id, pid, prop_label, claim["mainsnak"])
                if st is None:
                    continue
                statements.append(st)
                if pid == INSTANCE_OF and st.object_id:
                    types.append(st.object_id)
        entity = EntityRecord(
            id=entity_id,
            kb=self.kb,
            name=label,
            aliases=aliases,
            description=description,
            types=tuple(types),
        )
        return ParsedLine(number, [entity], statements)


def truthy(claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Wikidata's truthy statements: the preferred ones if any, else the normal ones."""
    preferred = [c for c in claims if c.get("rank") == "preferred"]
    return preferred or [c for c in claims if c.get("rank", "normal") == "normal"]


def _statement(subject: str, pid: str, label: str, snak: dict[str, Any]) -> StatementRecord | None:
    if snak.get("snaktype", "value") != "value":
        return None  # "somevalue" / "novalue" carry no citable value
    datavalue = snak["datavalue"]
    kind, value = datavalue["type"], datavalue["value"]
    if kind == "wikibase-entityid":
        object_id = value.get("id") or _entity_id(value)
        return StatementRecord(subject, pid, label, object_id=object_id)
    if kind == "string":
        return StatementRecord(subject, pid, label, value=str(value), datatype="string")
    if kind == "time":
        return StatementRecord(subject, pid, label, value=format_time(value["time"], value.get("precision", 11)), datatype="time")
    if kind == "quantity":
        return StatementRecord(subject, pid, label, value=format_amount(value["amount"]), datatype="quantity")
    if kind == "monolingualtext":
        return StatementRecord(subject, pid, label, value=value["text"], datatype="monolingualtext")
    if kind == "globecoordinate":
        return StatementRecord(subject, pid, label, value=f"{value['latitude']},{value['longitude']}", datatype="globe-coordinate")
    return None


def _entity_id(value: dict[str, Any]) -> str:
    prefix = {"item": "Q", "property": "P", "lexeme": "L"}[value["entity-type"]]
    return f"{prefix}{int(value['numeric-id'])}"


def format_time(raw: str, precision: int = 11) -> str:
    """`+1871-11-01T00:00:00Z` → `1871-11-01` (day), `1871-11` (month), `1871` (year or coarser);
    BC years keep their minus sign. This is how the KaLMA records show dates."""
    sign = "-" if raw.startswith("-") else ""
    date = raw.lstrip("+-").split("T", 1)[0]
    year, month, day = (date.split("-") + ["00", "00"])[:3]
    year = year.lstrip("0") or "0"
    if precision >= 11 and day != "00":
        return f"{sign}{year.zfill(4)}-{month}-{day}"
    if precision == 10 and month != "00":
        return f"{sign}{year.zfill(4)}-{month}"
    return f"{sign}{year.zfill(4)}"


def format_amount(raw: str) -> str:
    return raw[1:] if raw.startswith("+") else raw
