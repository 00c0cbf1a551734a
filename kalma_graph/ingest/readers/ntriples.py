"""N-Triples through rdflib's line parser: Wikidata truthy dumps and Freebase dumps.

Wikidata: `wdt:P…` statements, `rdfs:label` / `schema:description` / `skos:altLabel` in English;
labels of property entities name the properties. Freebase: `ns:type.object.name` names, MIDs
(`m.0abc`) as ids, `common.topic.description` / `common.topic.alias`, `type.object.type` as types;
blank nodes are CVT (mediator) nodes: entities flagged `cvt`, one hop like any other entity.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Iterator

from rdflib import BNode, Literal, URIRef
from rdflib.exceptions import ParserError
from rdflib.plugins.parsers.ntriples import W3CNTriplesParser
from rdflib.term import Identifier

from ...store.base import EntityRecord, StatementRecord, digest
from ..properties import freebase_label, wikidata_label
from ..sources import Undecodable, base_name, checked_lines
from .base import LineError, ParsedLine

RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
SCHEMA_DESCRIPTION = "http://schema.org/description"
SKOS_ALT_LABEL = "http://www.w3.org/2004/02/skos/core#altLabel"
WD_ENTITY = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
FB_NS = "http://rdf.freebase.com/ns/"
XSD = "http://www.w3.org/2001/XMLSchema#"
_DATE = re.compile(r"^(-?\d{1,}-\d{2}-\d{2})")

# rdflib converts every typed literal to a Python value and logs a traceback when it cannot (BC
# dates such as "-0764-01-01T00:00:00Z" are valid xsd:dateTime but not Python datetimes). We only
# use the lexical form, so those conversion warnings are noise.
logging.getLogger("rdflib.term").setLevel(logging.ERROR)


# Fast path for the plain lines that make up real dumps (IRIs, blank nodes, literals with a
# language tag or datatype). Anything it does not fully match goes through rdflib's parser, which
# also produces the error message for a malformed line.
_TERM = r'(?:<([^<>"{}|^`\\\s]*)>|_:([A-Za-z0-9_][A-Za-z0-9_.\-]*))'
_FAST = re.compile(
    r'^\s*' + _TERM + r'\s+<([^<>"{}|^`\\\s]*)>\s+(?:' + _TERM.replace("(", "(?:", 0)
    + r'|"((?:[^"\\]|\\.)*)"(?:@([A-Za-z]+(?:-[A-Za-z0-9]+)*)|\^\^<([^<>"{}|^`\\\s]*)>)?)\s*\.\s*$'
)
_ESCAPE = re.compile(r'\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))')
_SIMPLE = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text

    def repl(m: re.Match) -> str:
        if m.group(1) or m.group(2):
            return chr(int(m.group(1) or m.group(2), 16))
        if m.group(3) in _SIMPLE:
            return _SIMPLE[m.group(3)]
        raise ValueError(f"invalid escape \\{m.group(3)}")

    return _ESCAPE.sub(repl, text)


def fast_parse(line: str) -> tuple | None:
    """(subject, predicate, object) as rdflib terms for a plain line, or None to use rdflib."""
    m = _FAST.match(line)
    if m is None:
        return None
    s_iri, s_blank, pred, o_iri, o_blank, lit, lang, dtype = m.groups()
    subject = URIRef(s_iri) if s_iri is not None else BNode(s_blank)
    obj: Identifier
    if o_iri is not None:
        obj = URIRef(o_iri)
    elif o_blank is not None:
        obj = BNode(o_blank)
    else:
        obj = Literal(_unescape(lit), lang=lang, datatype=URIRef(dtype) if dtype else None)
    return subject, pred, obj


class _KeepLabels(dict):
    """Blank-node labels kept as written (rdflib would mint random ids), so re-ingest is stable."""

    def get(self, key, default=None):  # noqa: D401 - dict protocol
        return key


class _Collect:
    def __init__(self) -> None:
        self.triples: list[tuple] = []

    def triple(self, s, p, o) -> None:
        self.triples.append((s, p, o))


class _NTriplesReader:
    format = ""
    kb = ""

    def __init__(self, language: str = "en") -> None:
        self.language = language

    def read(self, path: Path) -> Iterator[ParsedLine | LineError]:
        sink = _Collect()
        # rdflib types the sink as one of its own classes; any object with a `triple` method will do
        parser = W3CNTriplesParser(sink, bnode_context=_KeepLabels())  # type: ignore[arg-type]
        # Blank-node labels are file-scoped: qualify them by the file so two files never collide.
        self._scope = digest(base_name(path))[:8]
        for number, line in checked_lines(path):
            if isinstance(line, Undecodable):
                yield LineError(number, line.reason)
                continue
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                fast = fast_parse(line)
            except ValueError:
                fast = None
            if fast is not None:
                triples = [fast]
            else:
                sink.triples.clear()
                try:
                    parser.parsestring(line + "\n")
                except (ParserError, ValueError) as exc:
                    yield LineError(number, f"invalid N-Triples: {exc}")
                    continue
                triples = [(s, str(p), o) for s, p, o in sink.triples]
            parsed = ParsedLine(number)
            for s, p, o in triples:
                self.convert(s, p, o, parsed)
            yield parsed

    def convert(self, s, p: str, o, out: ParsedLine) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _english(self, o) -> str | None:
        if (isinstance(o, Literal)
            and (o.language in (None, self.language) or (o.language or "").startswith(self.language + "-"))):
            return str(o)
        return None


def literal_value(o: Literal) -> tuple[str, str]:
    """(value as citations show it, datatype)."""
    text = str(o)
    dt = str(o.datatype) if o.datatype else ""
    if dt in (XSD + "dateTime", XSD + "date"):
        match = _DATE.match(text)
        return (match.group(1) if match else text), "time"
    if dt in (XSD + "decimal", XSD + "integer", XSD + "double", XSD + "float"):
        return text, "quantity"
    if o.language:
        return text, "monolingualtext"
    return text, "string"


class WikidataNTriplesReader(_NTriplesReader):
    format = "wikidata-nt"
    kb = "wikidata"

    def __init__(self, language: str = "en") -> None:
        super().__init__(language)
        self.learned_labels: dict[str, str] = {}

    def convert(self, s, p: str, o, out: ParsedLine) -> None:
        if not isinstance(s, URIRef) or not str(s).startswith(WD_ENTITY):
            return
        subject = str(s)[len(WD_ENTITY) :]
        is_property = subject.startswith("P")
        if p == RDFS_LABEL:
            text = self._english(o)
            if text is None:
                return
            if is_property:
                self.learned_labels[subject] = text
            else:
                out.entities.append(EntityRecord(subject, self.kb, name=text))
        elif is_property:
            return
        elif p == SCHEMA_DESCRIPTION:
            text = self._english(o)
            if text is not None:
                out.entities.append(EntityRecord(subject, self.kb, description=text))
        elif p == SKOS_ALT_LABEL:
            text = self._english(o)
            if text is not None:
                out.entities.append(EntityRecord(subject, self.kb, aliases=(text,)))
        elif p.startswith(WDT):
            pid = p[len(WDT) :]
            label = wikidata_label(pid, self.learned_labels)
            if isinstance(o, URIRef) and str(o).startswith(WD_ENTITY):
                object_id = str(o)[len(WD_ENTITY) :]
                out.statements.append(StatementRecord(subject, pid, label, object_id=object_id))
                if pid == "P31":
                    out.entities.append(EntityRecord(subject, self.kb, types=(object_id,)))
            elif isinstance(o, Literal):
                value, datatype = literal_value(o)
                out.statements.append(StatementRecord(subject, pid, label, value=value, datatype=datatype))


class FreebaseNTriplesReader(_NTriplesReader):
    format = "freebase-nt"
    kb = "freebase"

    NAME = FB_NS + "type.object.name"
    ALIAS = FB_NS + "common.topic.alias"
    DESCRIPTION = FB_NS + "common.topic.description"
    TYPE = FB_NS + "type.object.type"

    def _node_id(self, node) -> tuple[str, bool] | None:
        """(entity id, is CVT) for a subject/object node, or None for anything else."""
        if isinstance(node, BNode):
            return f"cvt.{self._scope}.{node}", True
        if isinstance(node, URIRef) and str(node).startswith(FB_NS):
            return str(node)[len(FB_NS) :], False
        return None

    def convert(self, s, p: str, o, out: ParsedLine) -> None:
        subject = self._node_id(s)
        if subject is None:
            return
        sid, s_cvt = subject
        if s_cvt:
            out.entities.append(EntityRecord(sid, self.kb, cvt=True))
        if p == self.NAME:
            text = self._english(o)
            if text is not None:
                out.entities.append(EntityRecord(sid, self.kb, name=text))
        elif p == self.ALIAS:
            text = self._english(o)
            if text is not None:
                out.entities.append(EntityRecord(sid, self.kb, aliases=(text,)))
        elif p == self.DESCRIPTION:
            text = self._english(o)
            if text is not None:
                out.entities.append(EntityRecord(sid, self.kb, description=text))
        elif p in (self.TYPE, RDF_TYPE):
            target = self._node_id(o)
            if target is not None:
                out.entities.append(EntityRecord(sid, self.kb, types=(target[0],)))
        elif p.startswith(FB_NS):
            predicate = p[len(FB_NS) :]
            label = freebase_label(predicate)
            target = self._node_id(o)
            if target is not None:
                oid, o_cvt = target
                if o_cvt:
                    out.entities.append(EntityRecord(oid, self.kb, cvt=True))
                out.statements.append(StatementRecord(sid, predicate, label, object_id=oid))
            elif isinstance(o, Literal):
                if o.language and not self._english(o):
                    return
                value, datatype = literal_value(o)
                out.statements.append(StatementRecord(sid, predicate, label, value=value, datatype=datatype))
