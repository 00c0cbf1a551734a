"""Wikidata JSON: the official `latest-all.json[.gz|.bz2]` (a JSON array, one entity per line, lines
ending in commas) and plain JSON lines of the same entity objects.

Per entity: the label, aliases and description in one language (English by default); claims whose
datavalue is an item, string, time, quantity, monolingual text or coordinate; truthy statements only
(preferred rank where a property has one, else normal; deprecated never). `P31` (instance of) values
also become the entity's types.

Lines are decoded by msgspec into typed structs (`_entity_type`) that declare only what a statement
needs: the decoder skips sitelinks, qualifiers, references and the other languages' terms without building
a Python object for them, which on the official dump are most of each line (bench/parse_json.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import msgspec

from ...store.base import EntityRecord, StatementRecord
from ..properties import wikidata_label
from ..sources import Undecodable, checked_lines
from .base import LineError, ParsedLine

INSTANCE_OF = "P31"


class _DataValue(msgspec.Struct):
    type: str
    value: Any  # an object for items, times, quantities…; a string for strings


class _Snak(msgspec.Struct):
    snaktype: str = "value"
    datavalue: _DataValue | None = None


class _Claim(msgspec.Struct):
    mainsnak: _Snak
    rank: str = "normal"


class _Text(msgspec.Struct):
    value: str | None = None


def _entity_type(language: str) -> type:
    """The struct an entity line decodes into, with one language's terms as its only fields (the
    dump has hundreds; a field per language skips the others inside the decoder). The official dump
    writes an empty map as `[]`, hence the list alternatives."""
    terms = msgspec.defstruct("Terms", [("text", _Text | None, None)], rename={"text": language})
    aliases = msgspec.defstruct("Aliases", [("texts", list[_Text], [])], rename={"texts": language})
    return msgspec.defstruct(
        "Entity",
        [
            ("id", str),
            ("type", str, "item"),
            ("labels", terms | list[Any] | None, None),
            ("descriptions", terms | list[Any] | None, None),
            ("aliases", aliases | list[Any] | None, None),
            ("claims", dict[str, list[_Claim]] | list[Any] | None, None),
        ],
    )


def _term(terms: Any) -> str | None:
    text = getattr(terms, "text", None)
    return text.value if text is not None else None


class WikidataJsonReader:
    format = "wikidata-json"
    kb = "wikidata"

    def __init__(self, language: str = "en") -> None:
        self.language = language
        self.learned_labels: dict[str, str] = {}  # property labels met in the dump itself
        self._decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(_entity_type(language))  # a struct made here

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
            yield self.parse_line(text, number)

    def parse_line(self, text: str, number: int) -> ParsedLine | LineError:
        """One entity line (without the array's trailing comma) → its records, or the line's error."""
        try:
            entity = self._decoder.decode(text)
        except msgspec.ValidationError as exc:  # JSON, but not an entity object
            return LineError(number, f"not a Wikidata entity object: {exc}")
        except msgspec.DecodeError as exc:
            return LineError(number, f"invalid JSON: {exc}")
        try:
            return self.parse_entity(entity, number)
        except (AttributeError, KeyError, TypeError, ValueError) as exc:  # a datavalue of the wrong shape
            return LineError(number, f"not a Wikidata entity object: {type(exc).__name__}: {exc}")

    def parse_entity(self, obj: Any, number: int) -> ParsedLine:
        entity_id = obj.id
        label = _term(obj.labels)
        if obj.type == "property":
            if label:
                self.learned_labels[entity_id] = label
            return ParsedLine(number)
        aliases = tuple(a.value for a in getattr(obj.aliases, "texts", ()) if a.value)
        statements: list[StatementRecord] = []
        types: list[str] = []
        for pid, claims in sorted(obj.claims.items()) if isinstance(obj.claims, dict) else ():
            prop_label = wikidata_label(pid, self.learned_labels)
            for claim in truthy(claims):
                st = _statement(entity_id, pid, prop_label, claim.mainsnak)
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
            description=_term(obj.descriptions),
            types=tuple(types),
        )
        return ParsedLine(number, [entity], statements)


def truthy(claims: list[_Claim]) -> list[_Claim]:
    """Wikidata's truthy statements: the preferred ones if any, else the normal ones."""
    if len(claims) == 1:  # most properties of most entities: one claim, kept unless deprecated
        return claims if claims[0].rank != "deprecated" else []
    preferred = [c for c in claims if c.rank == "preferred"]
    return preferred or [c for c in claims if c.rank == "normal"]


def _statement(subject: str, pid: str, label: str, snak: _Snak) -> StatementRecord | None:
    if snak.snaktype != "value":
        return None  # "somevalue" / "novalue" carry no citable value
    if snak.datavalue is None:
        raise ValueError(f"{pid}: a value snak without a datavalue")
    kind, value = snak.datavalue.type, snak.datavalue.value
    if kind == "wikibase-entityid":
        object_id = value.get("id") or _entity_id(value)
        return StatementRecord(subject, pid, label, object_id=object_id)
    if kind == "string":
        return StatementRecord(subject, pid, label, value=str(value), datatype="string")
    if kind == "time":
        return StatementRecord(subject, pid, label,
                               value=format_time(value["time"], value.get("precision", 11)), datatype="time")
    if kind == "quantity":
        return StatementRecord(subject, pid, label, value=format_amount(value["amount"]), datatype="quantity")
    if kind == "monolingualtext":
        return StatementRecord(subject, pid, label, value=value["text"], datatype="monolingualtext")
    if kind == "globecoordinate":
        return StatementRecord(subject, pid, label, value=f"{value['latitude']},{value['longitude']}",
                               datatype="globe-coordinate")
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
