"""Tab-separated files of ../shared/data/kg and their like:

- triples `head<TAB>relation<TAB>tail[<TAB>question…]`: CoDEx (`Q7604 P1412 Q188`), FB15k-237
  (`/m/07pd_j /film/film/genre /m/02l7c8`), SimpleQuestions for Wikidata (`R19` = the reverse of
  P19) and for Freebase (`www.freebase.com/m/…`); extra columns (the question) are ignored;
- labels `id<TAB>name` (FB15k-237 `FB15k_mid2name.txt`, `entity2text.txt`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from ...store.base import EntityRecord, StatementRecord
from ..properties import freebase_label, wikidata_label
from ..sources import Undecodable, checked_lines
from .base import LineError, ParsedLine

_QID = re.compile(r"^Q\d+$")
_WD_REL = re.compile(r"^([PR])(\d+)$")
_FB_PREFIX = re.compile(r"^(?:https?://)?(?:www\.)?freebase\.com/")


def freebase_id(raw: str) -> str | None:
    """`/m/0abc`, `www.freebase.com/m/0abc`, `m.0abc` → `m.0abc`."""
    text = _FB_PREFIX.sub("/", raw.strip())
    if text.startswith("/m/") or text.startswith("/g/"):
        return text[1:].replace("/", ".", 1)
    if re.match(r"^[mg]\.[0-9a-z_]+$", text):
        return text
    return None


def freebase_predicate(raw: str) -> str:
    """`/people/person/place_of_birth` (or with the freebase.com prefix) → `people.person.place_of_birth`."""
    return _FB_PREFIX.sub("/", raw.strip()).strip("/").replace("/", ".")


class TsvReader:
    format = "tsv"

    def __init__(self, kb: str) -> None:
        self.kb = kb

    def read(self, path: Path) -> Iterator[ParsedLine | LineError]:
        for number, line in checked_lines(path):
            if isinstance(line, Undecodable):
                yield LineError(number, line.reason)
                continue
            if not line.strip():
                continue
            cols = line.split("\t")
            try:
                yield self.parse(cols, number)
            except ValueError as exc:
                yield LineError(number, str(exc))

    def parse(self, cols: list[str], number: int) -> ParsedLine:
        if len(cols) == 2:
            ent = self._id(cols[0])
            if ent is None or not cols[1].strip():
                raise ValueError(f"expected 'id<TAB>name', got {cols!r}"[:200])
            return ParsedLine(number, [EntityRecord(ent, self.kb, name=cols[1].strip())])
        if len(cols) < 3:
            raise ValueError(f"expected at least 3 tab-separated columns, got {len(cols)}")
        head, rel, tail = (c.strip() for c in cols[:3])
        if self.kb == "wikidata":
            match = _WD_REL.match(rel)
            if not (_QID.match(head) and match and _QID.match(tail)):
                raise ValueError(f"expected 'Q… P… Q…', got {head!r} {rel!r} {tail!r}"[:200])
            pid = "P" + match.group(2)
            if match.group(1) == "R":  # SimpleQuestions-Wikidata writes reversed facts as R<n>
                head, tail = tail, head
            st = StatementRecord(head, pid, wikidata_label(pid), object_id=tail)
        else:
            h, t = freebase_id(head), freebase_id(tail)
            if h is None or t is None or not rel:
                raise ValueError(f"expected '/m/… /relation/path /m/…', got {head!r} {rel!r} {tail!r}"[:200])
            predicate = freebase_predicate(rel)
            st = StatementRecord(h, predicate, freebase_label(predicate), object_id=t)
        return ParsedLine(number, [], [st])

    def _id(self, raw: str) -> str | None:
        raw = raw.strip()
        if self.kb == "wikidata":
            return raw if _QID.match(raw) else None
        return freebase_id(raw)


def sniff_kb(first_line: str) -> str | None:
    """Which knowledge base a TSV line belongs to, or None when it is not one of ours."""
    cols = first_line.split("\t")
    if len(cols) < 2:
        return None
    if _QID.match(cols[0].strip()):
        return "wikidata"
    if freebase_id(cols[0]) is not None:
        return "freebase"
    return None
