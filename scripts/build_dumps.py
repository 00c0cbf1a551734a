#!/usr/bin/env python3
"""Build the small, real sample dumps committed under ``dumps/``.

Every fact written here is copied or re-shaped from the shared data folder
(``<shared>/data``); no fact is invented.  The only text not copied from a source is
the English description of Wikidata-sample items that no source describes: it is
composed from the item's own claims in the sample (``compose_descriptions``) and
listed, as composed, in ``wikidata_sample.composed_descriptions.tsv``.  The output
is deterministic: the same
inputs give byte-identical files (sorted output, gzip with a zero timestamp and
no file name in the header).

Usage::

    python scripts/build_dumps.py --shared /work/shared      # default: ../shared
    python scripts/build_dumps.py --out /tmp/dumps-check    # build elsewhere

What is built (see the generated ``dumps/SOURCES.md`` for origins, licences,
derivation rules and counts):

* ``wikidata_sample.jsonl.gz``  Wikidata entity JSON, one entity per line
* ``wikidata_sample.nt.gz``     the same content as Wikidata truthy N-Triples
* ``wikidata_sample.composed_descriptions.tsv``  which descriptions are composed, and from what
* ``freebase_sample.nt.gz``     Freebase N-Triples from FB15k-237 valid+test
* ``biokalma_records.jsonl.gz`` one line per distinct BioKaLMA person record
* ``biokalma/``                 the BioKaLMA question files and prompts
* ``kgqa/``                     SimpleQuestions (Wikidata, Freebase) and Mintaka samples
* ``licenses/``                 copies of the upstream licence files
"""

from __future__ import annotations

import argparse
import collections
import gzip
import hashlib
import json
import re
import shutil
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from urllib.parse import unquote

REPO_ROOT = Path(__file__).resolve().parent.parent

# --------------------------------------------------------------------------- constants

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
SKOS_ALT = "http://www.w3.org/2004/02/skos/core#altLabel"
SCHEMA_DESC = "http://schema.org/description"
XSD_DATETIME = "http://www.w3.org/2001/XMLSchema#dateTime"
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
GREGORIAN = "http://www.wikidata.org/entity/Q1985727"
FB = "http://rdf.freebase.com/ns/"

# properties.json "dataType" -> Wikidata JSON mainsnak "datatype"
DATATYPES = {
    "WikibaseItem": "wikibase-item",
    "Time": "time",
    "String": "string",
    "ExternalId": "external-id",
    "Monolingualtext": "monolingualtext",
    "Quantity": "quantity",
    "Url": "url",
    "CommonsMedia": "commonsMedia",
}

# BioKaLMA record keys that are not property labels.
RECORD_META = ("qid", "name", "date_of_birth", "date_of_death")

# BioKaLMA property labels that are not current labels (or are ambiguous aliases)
# in the 2022 property list: older Wikidata labels of these PIDs.  Each entry is
# checked against the property list's current label when the script runs.
LABEL_RENAMES = {
    "(OBSOLETE) playing hand": ("P741", "playing hand"),
    "doctoral thesis": ("P1026", "academic thesis"),
    "notable works": ("P800", "notable work"),
    "position played on team": ("P413", "position played on team / speciality"),
    "professional or sports partner": ("P1327", "partner in business or sport"),
    "team manager or head coach": ("P286", "head coach"),
    # alias shared by P155 "follows" and P1365 "replaces"; for people it is P1365
    "succeeds": ("P1365", "replaces"),
    # alias shared by P734 (item) and P9688 "author last names" (string)
    "surname": ("P734", "family name"),
}

# Value-label linking policy (BioKaLMA values are labels, not QIDs).
# Properties whose values are names, titles or works: a label match there is a
# homonym far more often than not (given name "Hugo" -> the 2011 film), so these
# are never linked and stay in biokalma_records only.
NO_LINK_PIDS = {
    "P735",  # given name
    "P734",  # family name
    "P800",  # notable work
    "P1343",  # described by source
    "P97",  # noble title
    "P511",  # honorific prefix
    "P1035",  # honorific suffix
    "P910",  # topic's main category
    "P1424",  # topic's main template
    "P1026",  # academic thesis
}
# (PID, value label) pairs whose unique label match was found wrong on review of the
# linked sample (the only QID with that label in the sources is a homonym).
REVIEWED_REJECTS = {
    ("P39", "cardinal"),  # position held: the clergy rank, not Q1426821 the colour
}
# Properties whose value is a person: the candidate must be known to be human.
PERSON_PIDS = {
    "P22", "P25", "P26", "P40", "P1038", "P451", "P802", "P1066", "P184", "P185",
    "P737", "P1327", "P286", "P157", "P1290", "P3373", "P1365", "P1366", "P35",
    "P460",
}
# Properties whose value is a language: the candidate must be known to be a language.
LANGUAGE_PIDS = {"P103", "P1412", "P37", "P6886"}

# Composed descriptions (items that no source describes; see compose_descriptions).
# Country of citizenship (P27) -> the English words for it in a description, keyed by the English
# label the country item has in this sample.  An adjective goes before the occupation ("American
# writer"); an entry starting with "from " goes after it ("writer from Hong Kong").  The table holds
# exactly the labelled countries of citizenship of the BioKaLMA persons (checked when the script
# runs); a country not in it is left out of the description rather than guessed.
NATIONALITY = {
    "Afghanistan": "Afghan",
    "Albania": "Albanian",
    "Ancient Rome": "Ancient Roman",
    "Australia": "Australian",
    "Austria": "Austrian",
    "Austria-Hungary": "Austro-Hungarian",
    "Austrian Empire": "Austrian",
    "Bangladesh": "Bangladeshi",
    "Belgium": "Belgian",
    "Bhutan": "Bhutanese",
    "Botswana": "from Botswana",
    "Brazil": "Brazilian",
    "British Raj": "from British India",
    "Byzantine Empire": "Byzantine",
    "Cambodia": "Cambodian",
    "Cameroon": "Cameroonian",
    "Canada": "Canadian",
    "Chile": "Chilean",
    "Croatia": "Croatian",
    "Cuba": "Cuban",
    "Czech Republic": "Czech",
    "Czechoslovakia": "Czechoslovak",
    "Denmark": "Danish",
    "Dutch Republic": "Dutch",
    "Egypt": "Egyptian",
    "Electorate of Saxony": "Saxon",
    "England": "English",
    "Ethiopia": "Ethiopian",
    "Finland": "Finnish",
    "France": "French",
    "French Third Republic": "French",
    "German Empire": "German",
    "Germany": "German",
    "Great Britain": "British",
    "Greece": "Greek",
    "Guatemala": "Guatemalan",
    "Han dynasty": "from the Han dynasty",
    "Hong Kong": "from Hong Kong",
    "Hungary": "Hungarian",
    "Iceland": "Icelandic",
    "India": "Indian",
    "Indonesia": "Indonesian",
    "Iran": "Iranian",
    "Iraq": "Iraqi",
    "Ireland": "Irish",
    "Israel": "Israeli",
    "Italy": "Italian",
    "Jamaica": "Jamaican",
    "Japan": "Japanese",
    "Kingdom of England": "English",
    "Kingdom of Great Britain": "British",
    "Kingdom of Hungary": "Hungarian",
    "Kingdom of Italy": "Italian",
    "Kingdom of Naples": "Neapolitan",
    "Kingdom of Portugal": "Portuguese",
    "Kingdom of Prussia": "Prussian",
    "Kingdom of the Netherlands": "Dutch",
    "Latvia": "Latvian",
    "Lebanon": "Lebanese",
    "Malawi": "Malawian",
    "Malaysia": "Malaysian",
    "Mexico": "Mexican",
    "Moldavia": "Moldavian",
    "Moldova": "Moldovan",
    "Mongol Empire": "from the Mongol Empire",
    "Mughal Empire": "from the Mughal Empire",
    "Myanmar": "Burmese",
    "Nazi Germany": "German",
    "Nepal": "Nepali",
    "Netherlands": "Dutch",
    "North Korea": "North Korean",
    "Norway": "Norwegian",
    "Ottoman Empire": "Ottoman",
    "Pakistan": "Pakistani",
    "Panama": "Panamanian",
    "People's Republic of China": "Chinese",
    "Philippines": "Filipino",
    "Poland": "Polish",
    "Portugal": "Portuguese",
    "Prussia": "Prussian",
    "Qing dynasty": "from the Qing dynasty",
    "Republic of Venice": "Venetian",
    "Romania": "Romanian",
    "Russia": "Russian",
    "Russian Empire": "Russian",
    "Saudi Arabia": "Saudi",
    "Second Polish Republic": "Polish",
    "Serbia": "Serbian",
    "Singapore": "Singaporean",
    "Socialist Federal Republic of Yugoslavia": "Yugoslav",
    "South Africa": "South African",
    "South Korea": "South Korean",
    "Soviet Union": "Soviet",
    "Spain": "Spanish",
    "Sweden": "Swedish",
    "Switzerland": "Swiss",
    "Syria": "Syrian",
    "Thailand": "Thai",
    "Turkey": "Turkish",
    "United Kingdom": "British",
    "United States of America": "American",
    "Venezuela": "Venezuelan",
    "Vietnam": "Vietnamese",
    "Wales": "Welsh",
    "Weimar Republic": "German",
}
MAX_OCCUPATIONS = 2

# Sample sizes for the KGQA files.
SQ_WD_ROWS = 500
SQ_FB_ROWS = 1000
MINTAKA_ROWS = 300

SIZE_BUDGET = 25 * 1024 * 1024

# What this script writes into the output folder (and all it removes before writing; other files
# there, such as dumps/biokalma_built/ made by `kalma-graph build biokalma`, are left alone and
# not listed in SOURCES.md).
OUTPUT_FILES = ("wikidata_sample.jsonl.gz", "wikidata_sample.nt.gz", "wikidata_sample.composed_descriptions.tsv",
                "freebase_sample.nt.gz", "biokalma_records.jsonl.gz", "SOURCES.md")
OUTPUT_DIRS = ("biokalma", "kgqa", "licenses")


# --------------------------------------------------------------------------- helpers


def log(msg: str) -> None:
    print(msg, flush=True)


def read_json(path: Path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def read_tsv(path: Path) -> Iterator[list[str]]:
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line:
                yield line.split("\t")


def codex_ml_triples(codex: Path) -> Iterator[tuple[str, str, str]]:
    """The (head, relation, tail) rows of CoDEx-M (all splits) and CoDEx-L (valid, test), in that order."""
    for size, splits in (("m", ("train", "valid", "test")), ("l", ("valid", "test"))):
        for split in splits:
            path = codex / "data" / "triples" / f"codex-{size}" / f"{split}.txt"
            if path.exists():
                yield from read_tsv(path)


def qnum(qid: str) -> int:
    return int(qid[1:])


class GzWriter:
    """Deterministic gzip text writer (mtime 0, no file name in the header)."""

    def __init__(self, path: Path):
        self._raw = open(path, "wb")
        self._gz = gzip.GzipFile(filename="", mode="wb", fileobj=self._raw, compresslevel=9, mtime=0)

    def write(self, text: str) -> None:
        self._gz.write(text.encode("utf-8"))

    def close(self) -> None:
        self._gz.close()
        self._raw.close()

    def __enter__(self) -> GzWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def gzip_copy(src: Path, dst: Path) -> None:
    with open(src, "rb") as fh, open(dst, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as gz:
            shutil.copyfileobj(fh, gz)


def nt_literal(text: str) -> str:
    """N-Triples string literal body (quotes included)."""
    out = (
        text.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", "\\n")
        .replace("\r", "\\r")
        .replace("\t", "\\t")
    )
    return f'"{out}"'


def dumps_json(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=False)


DATE_RE = re.compile(r"^(-?)(\d{1,4})-(\d\d)-(\d\d)$")


def parse_date(text: str):
    """BioKaLMA date string -> (json time, precision, xsd lexical) or None.

    BioKaLMA stores dates as ``YYYY-MM-DD`` without a precision.  Wikidata's
    SPARQL/RDF output writes year-precision dates as ``YYYY-01-01``, so a
    ``-01-01`` date is kept at year precision (9): that claims no more than the
    source supports.  Other dates are day precision (11).
    """
    m = DATE_RE.match(text or "")
    if not m:
        return None
    sign, year, month, day = m.groups()
    if int(year) == 0 or not (1 <= int(month) <= 12 and 1 <= int(day) <= 31):
        return None
    year = year.zfill(4)
    if month == "01" and day == "01":
        precision = 9
        wd_time = f"{sign or '+'}{year}-00-00T00:00:00Z"
    else:
        precision = 11
        wd_time = f"{sign or '+'}{year}-{month}-{day}T00:00:00Z"
    xsd = f"{sign}{year}-{month}-{day}T00:00:00Z"
    return wd_time, precision, xsd


# --------------------------------------------------------------------------- inputs


class Inputs:
    def __init__(self, shared: Path):
        self.data = shared / "data"
        kg = self.data / "kg"
        self.kg = kg
        self.codex = kg / "tsafavi+codex"
        self.fb237 = kg / "villmow+datasets_knowledge_embedding" / "FB15k-237"
        self.openke = kg / "thunlp+OpenKE" / "benchmarks" / "FB15K237"
        self.kgbert = kg / "yao8839836+kg-bert" / "data" / "FB15k-237"
        self.props = kg / "wvanderp+wikidata-properties" / "data" / "properties.json"
        self.sq = kg / "askplatypus+wikidata-simplequestions"
        self.mintaka = kg / "amazon-science+mintaka"
        self.biokalma = self.data / "biokalma"
        missing = [p
                   for p in (self.codex, self.fb237, self.props, self.sq, self.mintaka, self.biokalma)
                   if not p.exists()]
        if missing:
            raise SystemExit(f"missing input folders: {', '.join(map(str, missing))}")

    def provenance(self) -> dict[str, str]:
        """owner/name -> 'owner/name @ commit' from kg/SOURCES.txt."""
        out = {}
        for line in (self.kg / "SOURCES.txt").read_text(encoding="utf-8").splitlines():
            m = re.match(r"^(\S+/\S+) @ ([0-9a-f]{40})", line)
            if m:
                out[m.group(1)] = m.group(2)
        return out


# --------------------------------------------------------------------------- Wikidata


_DOUBLED_TOKEN = re.compile(r"([A-Z][a-z]{2,})\1\b")


def label_defect(label: str) -> str | None:
    """What is wrong with a label a source gives, or None: a token doubled without a space
    ("Miley CyrusCyrus", the FB15k-237 map's label of Q4235).

    >>> label_defect("Miley CyrusCyrus"), label_defect("Miley Cyrus"), label_defect("Lil' Kim")
    ('doubled token', None, None)
    """
    return "doubled token" if _DOUBLED_TOKEN.search(label) else None


class WikidataSample:
    def __init__(self, inp: Inputs):
        self.inp = inp
        self.stats: dict = collections.OrderedDict()
        # QID -> English label / aliases / description / enwiki title, and where the label came from
        self.label: dict[str, str] = {}
        self.label_src: dict[str, str] = {}
        self.aliases: dict[str, list[str]] = collections.defaultdict(list)
        self.desc: dict[str, str] = {}
        # where each description came from: a source ("fb15k237-map", "codex-types") or "composed"
        self.desc_src: dict[str, str] = {}
        # composed descriptions: QID -> (rule, the claims it was composed from)
        self.desc_facts: dict[str, tuple[str, list[str]]] = {}
        self.enwiki: dict[str, str] = {}
        self.label_index: dict[str, set[str]] = collections.defaultdict(set)
        # statements: (subject, pid, kind, value); kind "item" (value QID) or "time" (value tuple)
        self.statements: set[tuple] = set()
        self.stmt_src: collections.Counter = collections.Counter()
        self.entities: set[str] = set()
        # QID -> (defective label, the label taken instead, source of each)
        self.corrected_labels: dict[str, tuple[str, str, str, str]] = {}

    # ---- label sources -------------------------------------------------------
    def _add_name(self, qid: str, label: str, src: str, aliases: Iterable[str] = (), desc: str = "") -> None:
        label = (label or "").strip()
        if label:
            self.label_index[label].add(qid)
            if qid not in self.label:
                self.label[qid] = label
                self.label_src[qid] = src
            elif label_defect(self.label[qid]) and not label_defect(label):
                # Sources disagree and the first one's label is a defect ("Miley CyrusCyrus" in the
                # FB15k-237 map, "Miley Cyrus" in Mintaka): the clean one wins, the defect is dropped
                # (not kept as an alias, which would make it a name the linker matches).
                self.corrected_labels[qid] = (self.label[qid], label, self.label_src[qid], src)
                self.label_index[self.label[qid]].discard(qid)
                self.label[qid] = label
                self.label_src[qid] = src
                if label in self.aliases[qid]:
                    self.aliases[qid].remove(label)
            elif label != self.label[qid] and label not in self.aliases[qid] and not label_defect(label):
                self.aliases[qid].append(label)
        for a in aliases:
            a = (a or "").strip()
            if a and a != self.label.get(qid) and a not in self.aliases[qid]:
                self.aliases[qid].append(a)
        desc = (desc or "").strip()
        if desc and qid not in self.desc:
            self.desc[qid] = desc
            self.desc_src[qid] = src

    def load_properties(self) -> None:
        self.props = {p["id"]: p for p in read_json(self.inp.props)}
        by_label = collections.defaultdict(set)
        by_alias = collections.defaultdict(set)
        for p in self.props.values():
            by_label[p["label"]].add(p["id"])
            for a in p.get("aliases") or []:
                by_alias[a].add(p["id"])
        self._prop_by_label = by_label
        self._prop_by_alias = by_alias
        for old, (pid, current) in LABEL_RENAMES.items():
            got = self.props.get(pid, {}).get("label")
            if got != current:
                raise SystemExit(f"property list changed: {pid} is {got!r}, expected {current!r} (for {old!r})")

    def pid_for_label(self, label: str) -> str | None:
        ids = self._prop_by_label.get(label, set())
        if len(ids) == 1:
            return next(iter(ids))
        if label in LABEL_RENAMES:
            return LABEL_RENAMES[label][0]
        ids = self._prop_by_alias.get(label, set())
        if len(ids) == 1:
            return next(iter(ids))
        return None

    def load_label_sources(self) -> None:
        inp = self.inp
        # 1. BioKaLMA person records (qid, name)
        self.bk_records: dict[str, dict] = {}
        self.bk_question_counts = {}
        for kind in ("simple", "complex"):
            data = read_json(inp.biokalma / "dataset" / f"{kind}_question_graph.json")
            self.bk_question_counts[kind] = len(data)
            for _question, records in data:
                for rec in records:
                    self.bk_records.setdefault(rec["qid"], rec)
        for qid in sorted(self.bk_records, key=qnum):
            self._add_name(qid, self.bk_records[qid].get("name", ""), "biokalma")
        # 2. FB15k-237 -> Wikidata map (label, aliases, description, enwiki)
        self.fb_map = read_json(inp.fb237 / "entity2wikidata.json")
        for mid in sorted(self.fb_map):
            v = self.fb_map[mid]
            qid = v.get("wikidata_id")
            if not qid or not re.fullmatch(r"Q\d+", qid):
                continue
            self._add_name(qid, v.get("label", ""), "fb15k237-map", v.get("alternatives") or [],
                           v.get("description") or "")
            url = v.get("wikipedia") or ""
            if url.startswith("https://en.wikipedia.org/wiki/") and qid not in self.enwiki:
                self.enwiki[qid] = unquote(url.rsplit("/wiki/", 1)[1]).replace("_", " ")
        # 3. CoDEx type labels
        self.codex_types_en = read_json(inp.codex / "data" / "types" / "en" / "types.json")
        for qid in sorted(self.codex_types_en, key=qnum):
            v = self.codex_types_en[qid]
            self._add_name(qid, v.get("label", ""), "codex-types", (), v.get("description") or "")
        # 4. Mintaka dev entity labels (question entities and answers)
        self.mintaka = read_json(inp.mintaka / "data" / "mintaka_dev.json")
        for q in self.mintaka:
            for e in q.get("questionEntity") or []:
                if e.get("entityType") == "entity" and re.fullmatch(r"Q\d+", str(e.get("name"))):
                    self._add_name(e["name"], e.get("label") or "", "mintaka")
            for a in (q.get("answer") or {}).get("answer") or []:
                if isinstance(a, dict) and re.fullmatch(r"Q\d+", str(a.get("name"))):
                    self._add_name(a["name"], a.get("label") or "", "mintaka")

    # ---- class evidence for the linking guard -------------------------------------
    def load_class_evidence(self) -> None:
        inp = self.inp
        e2t = read_json(inp.codex / "data" / "types" / "entity2types.json")
        self.codex_e2t = e2t
        mid2q = {mid: v["wikidata_id"] for mid, v in self.fb_map.items() if v.get("wikidata_id")}
        human, film, language = set(), set(), set()
        lang_types = {q for q, v in self.codex_types_en.items() if "language" in (v.get("label") or "")}
        for q, types in e2t.items():
            if "Q5" in types:
                human.add(q)
            if lang_types.intersection(types):
                language.add(q)
        for q, rec in self.bk_records.items():
            if rec.get("instance of") == "human":
                human.add(q)
        # full FB15k-237: OpenKE train2id (ids) + villmow valid/test (MIDs)
        triples: list[tuple[str, str, str]] = []
        if (inp.openke / "train2id.txt").exists():
            ent = {}
            for row in read_tsv(inp.openke / "entity2id.txt"):
                if len(row) == 2:
                    ent[row[1]] = row[0]
            rel = {}
            for row in read_tsv(inp.openke / "relation2id.txt"):
                if len(row) == 2:
                    rel[row[1]] = row[0]
            with open(inp.openke / "train2id.txt", encoding="utf-8") as fh:
                next(fh)
                for line in fh:
                    h, t, r = line.split()
                    triples.append((ent[h], rel[r], ent[t]))
        for split in ("valid", "test"):
            triples.extend(tuple(r) for r in read_tsv(inp.fb237 / f"{split}.txt"))
        for h, r, t in triples:
            if r.startswith("/people/person/"):
                if h in mid2q:
                    human.add(mid2q[h])
            if r.startswith("/film/film/") and h in mid2q:
                film.add(mid2q[h])
            if r.startswith("/language/") and h in mid2q:
                language.add(mid2q[h])
            if (r.endswith("/language") or r.endswith("/languages") or "languages_spoken" in r) and t in mid2q:
                language.add(mid2q[t])
        self.human, self.film, self.language = human, film, language

    def link_value(self, pid: str, label: str) -> tuple[str | None, str]:
        """Return (QID or None, reason)."""
        if pid in NO_LINK_PIDS:
            return None, "name/title/work property (not linked)"
        if (pid, label) in REVIEWED_REJECTS:
            return None, "homonym found on review"
        cands = set(self.label_index.get(label, ()))
        if not cands:
            return None, "no entity with this label"
        if pid in PERSON_PIDS:
            cands = {c for c in cands if c in self.human}
        else:
            cands = {c for c in cands if c not in self.human and c not in self.film}
        if pid in LANGUAGE_PIDS:
            cands = {c for c in cands if c in self.language}
        if len(cands) == 1:
            return next(iter(cands)), "linked"
        if not cands:
            return None, "label match failed the class check"
        return None, "ambiguous label"

    # ---- statements ----------------------------------------------------------------
    def add_item(self, s: str, pid: str, o: str, src: str) -> bool:
        key = (s, pid, "item", o)
        if key in self.statements:
            return False
        self.statements.add(key)
        self.stmt_src[src] += 1
        self.entities.update((s, o))
        return True

    def build(self) -> None:
        inp = self.inp
        self.load_properties()
        self.load_label_sources()
        self.load_class_evidence()
        st = self.stats

        # -- A. BioKaLMA persons
        dropped = collections.Counter()
        dropped_by_reason = collections.Counter()
        unmapped_props = collections.Counter()
        bad_dates = 0
        non_item_values = 0
        self.bk_links: dict[str, dict[str, str]] = {}
        self.bk_pids: dict[str, str] = {}
        for qid in sorted(self.bk_records, key=qnum):
            rec = self.bk_records[qid]
            self.entities.add(qid)
            links = {}
            for key, value in rec.items():
                if key in RECORD_META or value in ("", None):
                    continue
                pid = self.pid_for_label(key)
                if pid is None:
                    unmapped_props[key] += 1
                    continue
                self.bk_pids[key] = pid
                dtype = self.props[pid]["dataType"]
                if dtype != "WikibaseItem":
                    # none occur in the released records; kept for completeness
                    non_item_values += 1
                    continue
                target, reason = self.link_value(pid, value)
                if target is None:
                    dropped[key] += 1
                    dropped_by_reason[reason] += 1
                    continue
                links[key] = target
                self.add_item(qid, pid, target, "biokalma")
            self.bk_links[qid] = links
            for key, pid in (("date_of_birth", "P569"), ("date_of_death", "P570")):
                value = rec.get(key) or ""
                if not value:
                    continue
                parsed = parse_date(value)
                if parsed is None:
                    bad_dates += 1
                    continue
                stmt = (qid, pid, "time", parsed)
                if stmt not in self.statements:
                    self.statements.add(stmt)
                    self.stmt_src["biokalma-dates"] += 1
        st["biokalma_question_files"] = dict(self.bk_question_counts)
        st["biokalma_persons"] = len(self.bk_records)
        st["biokalma_item_claims_linked"] = self.stmt_src["biokalma"]
        st["biokalma_date_claims"] = self.stmt_src["biokalma-dates"]
        st["biokalma_item_claims_dropped"] = sum(dropped.values())
        st["biokalma_dropped_by_reason"] = dict(sorted(dropped_by_reason.items()))
        st["biokalma_dropped_by_property"] = dict(dropped.most_common(12))
        st["biokalma_unparseable_dates"] = bad_dates
        st["biokalma_unmapped_property_labels"] = dict(unmapped_props)
        st["biokalma_non_item_values"] = non_item_values

        # -- B. CoDEx-S (all splits)
        codex_rel = read_json(inp.codex / "data" / "relations" / "en" / "relations.json")
        missing_rel = [p for p in codex_rel if p not in self.props]
        if missing_rel:
            raise SystemExit(f"CoDEx relations missing from the property list: {missing_rel}")
        self.codex_s_entities = set()
        n = 0
        for split in ("train", "valid", "test"):
            for h, r, t in read_tsv(inp.codex / "data" / "triples" / "codex-s" / f"{split}.txt"):
                n += 1
                self.codex_s_entities.update((h, t))
                self.add_item(h, r, t, "codex-s")
        st["codex_s_triples_read"] = n
        st["codex_s_entities"] = len(self.codex_s_entities)
        st["codex_s_statements"] = self.stmt_src["codex-s"]

        # -- C. SimpleQuestions-Wikidata (test, answerable): triples of the sampled questions
        self.sq_wd_rows = []
        sq_read = 0
        both_labelled = 0
        for row in read_tsv(inp.sq / "annotated_wd_data_test_answerable.txt"):
            if len(row) < 4:
                continue
            sq_read += 1
            s, p, o, _q = row[:4]
            if not (re.fullmatch(r"Q\d+", s) and re.fullmatch(r"[PR]\d+", p) and re.fullmatch(r"Q\d+", o)):
                continue
            pid = "P" + p[1:]
            if self.props.get(pid, {}).get("dataType") != "WikibaseItem":
                continue
            if s in self.label and o in self.label:
                both_labelled += 1
                if len(self.sq_wd_rows) < SQ_WD_ROWS:
                    self.sq_wd_rows.append(row)
                    subj, obj = (s, o) if p[0] == "P" else (o, s)
                    self.add_item(subj, pid, obj, "simplequestions-wd")
        st["sq_wd_rows_read"] = sq_read
        st["sq_wd_rows_both_labelled"] = both_labelled
        st["sq_wd_rows_kept"] = len(self.sq_wd_rows)
        st["sq_wd_statements_added"] = self.stmt_src["simplequestions-wd"]

        # -- D. CoDEx-M / CoDEx-L triples touching a BioKaLMA person, where the other end
        #       is already in the sample or has a known label
        bk = set(self.bk_records)
        for h, r, t in codex_ml_triples(inp.codex):
            if h in bk or t in bk:
                other = t if h in bk else h
                if other in self.entities or other in self.label:
                    self.add_item(h, r, t, "codex-ml-biokalma")
        st["codex_ml_biokalma_statements"] = self.stmt_src["codex-ml-biokalma"]

        # -- E. CoDEx-M / CoDEx-L triples induced on the entity set (no new entities)
        frozen = set(self.entities)
        for h, r, t in codex_ml_triples(inp.codex):
            if h in frozen and t in frozen:
                self.add_item(h, r, t, "codex-ml-induced")
        st["codex_ml_induced_statements"] = self.stmt_src["codex-ml-induced"]

        # -- F. CoDEx entity types as P31 for every entity in the sample that has them
        for q in sorted(frozen, key=qnum):
            for t in self.codex_e2t.get(q, []):
                self.add_item(q, "P31", t, "codex-types")
        st["codex_type_statements"] = self.stmt_src["codex-types"]

        self.finish()

    def finish(self) -> None:
        st = self.stats
        items = sorted((e for e in self.entities if e.startswith("Q")), key=qnum)
        self.items = items
        self.used_pids = sorted({s[1] for s in self.statements}, key=qnum)
        self.claims: dict[str, dict[str, list]] = collections.defaultdict(lambda: collections.defaultdict(list))
        for s, pid, kind, value in self.statements:
            self.claims[s][pid].append((kind, value))
        self.compose_descriptions()
        unlabelled = [q for q in items if q not in self.label]
        st["entities"] = len(items)
        st["properties"] = len(self.used_pids)
        st["statements"] = len(self.statements)
        st["statements_by_source"] = dict(sorted(self.stmt_src.items()))
        st["entities_labelled"] = len(items) - len(unlabelled)
        st["entities_unlabelled"] = len(unlabelled)
        st["codex_s_entities_unlabelled"] = sum(1 for q in self.codex_s_entities if q not in self.label)
        st["labels_by_source"] = dict(
            sorted(collections.Counter(self.label_src[q] for q in items if q in self.label).items()))
        # where the sources disagreed and the first label was a defect: what was taken instead
        st["labels_corrected"] = {q: f"{bad!r} ({bad_src}) -> {good!r} ({good_src})"
                                  for q, (bad, good, bad_src, good_src) in sorted(self.corrected_labels.items(),
                                                                                  key=lambda kv: qnum(kv[0]))}
        st["labels_still_defective"] = {q: self.label[q] for q in items if q in self.label
                                        and label_defect(self.label[q])}
        st["entities_with_description"] = sum(1 for q in items if q in self.desc)
        by_source = collections.Counter(self.desc_src[q] for q in items if q in self.desc)
        st["descriptions_by_source"] = dict(sorted(by_source.items()))
        st["entities_without_description"] = len(items) - st["entities_with_description"]
        st["biokalma_persons_with_description"] = sum(1 for q in self.bk_records if q in self.desc)
        st["biokalma_persons_description_by_source"] = dict(sorted(collections.Counter(
            self.desc_src[q] for q in self.bk_records if q in self.desc).items()))
        st["entities_with_aliases"] = sum(1 for q in items if self.aliases.get(q))
        # same-name entities
        by_label = collections.defaultdict(set)
        by_name = collections.defaultdict(set)
        for q in items:
            if q in self.label:
                by_label[self.label[q]].add(q)
                by_name[self.label[q]].add(q)
            for a in self.aliases.get(q, []):
                by_name[a].add(q)
        shared_labels = {k: v for k, v in by_label.items() if len(v) > 1}
        shared_names = {k: v for k, v in by_name.items() if len(v) > 1}
        st["shared_labels"] = len(shared_labels)
        st["entities_sharing_a_label"] = len(set().union(*shared_labels.values())) if shared_labels else 0
        st["shared_names_label_or_alias"] = len(shared_names)
        st["entities_sharing_a_name"] = len(set().union(*shared_names.values())) if shared_names else 0
        st["shared_label_examples"] = {
            k: sorted(v, key=qnum) for k, v in sorted(shared_labels.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:8]
        }

    # ---- composed descriptions ------------------------------------------------------
    def _item_values(self, qid: str, pid: str) -> list[str]:
        return [v for kind, v in self.claims.get(qid, {}).get(pid, []) if kind == "item"]

    def _years(self, qid: str, pid: str) -> int | None:
        """The one year of the item's P569/P570 values; None if there is none, if the values disagree,
        or if it is a year-precision value on a round hundred: BioKaLMA drops Wikidata's precision,
        so "-1300-01-01" may stand for the 13th century BCE rather than the year 1300 BCE."""
        years = set()
        for kind, value in self.claims.get(qid, {}).get(pid, []):
            if kind == "time":
                m = re.match(r"^([+-])(\d+)-", value[0])
                year = int(m.group(2)) * (-1 if m.group(1) == "-" else 1)
                years.add(None if value[1] == 9 and year % 100 == 0 else year)
        return years.pop() if len(years) == 1 else None

    @staticmethod
    def _year_span(born: int | None, died: int | None) -> str:
        """Wikidata's style: "(1871–1900)", "(born 1950)", "(died 1900)", "(551–479 BCE)", "(63 BCE–14 CE)"."""
        def y(n: int, era: bool) -> str:
            return f"{-n} BCE" if n < 0 else (f"{n} CE" if era else str(n))

        if born is not None and died is not None:
            if born < 0 and died < 0:
                return f"({-born}–{-died} BCE)"
            return f"({y(born, False)}–{y(died, born < 0)})"
        if born is not None:
            return f"(born {y(born, False)})"
        if died is not None:
            return f"(died {y(died, False)})"
        return ""

    @staticmethod
    def _redundant(a: str, b: str) -> bool:
        """True when one occupation label begins or ends with the other ("film actor" / "actor",
        "screenwriter" / "writer", "singer-songwriter" / "singer"): listing both says one thing twice."""
        a, b = a.casefold(), b.casefold()
        short, long_ = (a, b) if len(a) <= len(b) else (b, a)
        return long_.startswith(short) or long_.endswith(short)

    def compose_descriptions(self) -> None:
        """Give every item that no source describes a description composed from its own claims in this
        sample, in the style of Wikidata's English descriptions.

        Humans (P31 Q5): "[nationality] <occupation>[ and <occupation>][ from …] (<born>–<died>)".
        Nationality: the NATIONALITY wording of the countries of citizenship (P27), only when every one
        of them is labelled, in the table and worded the same; otherwise left out.  Occupations (P106):
        at most MAX_OCCUPATIONS labelled ones — the one the BioKaLMA record names first, then those held
        by more humans in the sample, then the lower QID — skipping one whose label begins or ends with
        a chosen one's ("screenwriter" after "writer"); "person" when none.  Years (P569/P570): see
        `_years`; both left out when the death year is before the birth year.
        Other items: the English label of one P31 type (the type most used in the sample, then the
        lower QID), never the item's own label.  Nothing else is inferred; an item with no usable
        claim keeps no description."""
        st = self.stats
        humans = {q for q in self.items if "Q5" in self._item_values(q, "P31")}
        occ_freq = collections.Counter(v for q in humans for v in self._item_values(q, "P106"))
        type_freq = collections.Counter(v for q in self.items for v in self._item_values(q, "P31"))

        # the table covers exactly the labelled countries of citizenship of the BioKaLMA persons
        bk_countries = {self.label[v] for q in self.bk_records for v in self._item_values(q, "P27") if v in self.label}
        if bk_countries != set(NATIONALITY):
            raise SystemExit("NATIONALITY table out of step with the BioKaLMA persons' countries: "
                             f"missing {sorted(bk_countries - set(NATIONALITY))}, "
                             f"unused {sorted(set(NATIONALITY) - bk_countries)}")

        def order(values: Iterable[str], preferred: str | None, freq: collections.Counter) -> list[str]:
            return sorted(set(values), key=lambda v: (v != preferred, -freq[v], qnum(v)))

        rules = collections.Counter()
        parts_used = collections.Counter()
        unlisted_countries = collections.Counter()
        n_unlisted = n_disagree = 0
        left = collections.Counter()
        for q in self.items:
            if q in self.desc:
                continue
            links = self.bk_links.get(q, {})
            if q in humans:
                facts = ["P31=Q5"]
                # nationality only when every country of citizenship is labelled, in the table and
                # worded the same ("United Kingdom" and "Kingdom of Great Britain": British);
                # otherwise it is left out rather than one country picked
                countries = sorted(set(self._item_values(q, "P27")), key=qnum)
                words = {NATIONALITY.get(self.label.get(v, ""), "") for v in countries}
                nat = ""
                if countries and len(words) == 1 and "" not in words:
                    nat = words.pop()
                    facts += [f"P27={v}" for v in countries]
                elif countries and "" not in words:
                    n_disagree += 1  # all in the table, worded differently
                unlisted = [self.label.get(v, v) for v in countries if self.label.get(v) not in NATIONALITY]
                if unlisted:
                    n_unlisted += 1
                    unlisted_countries.update(unlisted)
                occs: list[str] = []
                for v in order(self._item_values(q, "P106"), links.get("occupation"), occ_freq):
                    if len(occs) == MAX_OCCUPATIONS:
                        break
                    if v in self.label and not any(self._redundant(self.label[v], self.label[o]) for o in occs):
                        occs.append(v)
                facts += [f"P106={v}" for v in occs]
                born, died = self._years(q, "P569"), self._years(q, "P570")
                if born is not None and died is not None and died < born:
                    born = died = None  # the dates contradict each other
                facts += [f"{pid}={y}" for pid, y in (("P569", born), ("P570", died)) if y is not None]
                noun = " and ".join(self.label[v] for v in occs) or "person"
                text = f"{noun} {nat}" if nat.startswith("from ") else f"{nat} {noun}".strip()
                span = self._year_span(born, died)
                text = f"{text} {span}" if span else text
                rule = "human"
                parts_used.update(k for k, ok in (("nationality", bool(nat)), ("occupation", bool(occs)),
                                                  ("years", bool(span))) if ok)
            else:
                own = (self.label.get(q) or "").casefold()
                types = [v for v in self._item_values(q, "P31") if v in self.label and self.label[v].casefold() != own]
                if not types:
                    reason = ("no claims" if not self.claims.get(q) else "no P31 type"
                              if not self._item_values(q, "P31") else "P31 type unlabelled or its own label")
                    left[reason] += 1
                    continue
                t = order(types, None, type_freq)[0]
                text, facts, rule = self.label[t], [f"P31={t}"], "type"
            self.desc[q] = text
            self.desc_src[q] = "composed"
            self.desc_facts[q] = (rule, facts)
            rules[rule] += 1
        st["descriptions_composed_by_rule"] = dict(sorted(rules.items()))
        st["descriptions_composed_human_parts"] = dict(sorted(parts_used.items()))
        st["descriptions_composed_country_not_in_table"] = dict(unlisted_countries.most_common(8))
        st["descriptions_composed_humans_country_not_in_table"] = n_unlisted
        st["descriptions_composed_humans_countries_worded_differently"] = n_disagree
        st["entities_without_description_by_reason"] = dict(sorted(left.items()))

    # ---- writers -------------------------------------------------------------------
    def entity_json(self, qid: str) -> dict:
        obj: dict = {"type": "item", "id": qid}
        obj["labels"] = {"en": {"language": "en", "value": self.label[qid]}} if qid in self.label else {}
        obj["descriptions"] = {"en": {"language": "en", "value": self.desc[qid]}} if qid in self.desc else {}
        al = self.aliases.get(qid) or []
        obj["aliases"] = {"en": [{"language": "en", "value": a} for a in al]} if al else {}
        claims = {}
        for pid in sorted(self.claims.get(qid, {}), key=qnum):
            stmts = []
            for kind, value in sorted(self.claims[qid][pid], key=lambda kv: (kv[0], str(kv[1]))):
                if kind == "item":
                    dv = {"value": {"entity-type": "item", "numeric-id": qnum(value), "id": value},
                          "type": "wikibase-entityid"}
                    dt = "wikibase-item"
                else:
                    wd_time, precision, _ = value
                    dv = {
                        "value": {
                            "time": wd_time,
                            "timezone": 0,
                            "before": 0,
                            "after": 0,
                            "precision": precision,
                            "calendarmodel": GREGORIAN,
                        },
                        "type": "time",
                    }
                    dt = "time"
                stmts.append(
                    {
                        "mainsnak": {"snaktype": "value", "property": pid, "datavalue": dv, "datatype": dt},
                        "type": "statement",
                        "rank": "normal",
                    }
                )
            claims[pid] = stmts
        obj["claims"] = claims
        obj["sitelinks"] = (
            {"enwiki": {"site": "enwiki", "title": self.enwiki[qid], "badges": []}} if qid in self.enwiki else {}
        )
        return obj

    def property_json(self, pid: str) -> dict:
        p = self.props[pid]
        aliases = [a for a in dict.fromkeys(p.get("aliases") or []) if a and a != p["label"]]
        return {
            "type": "property",
            "datatype": DATATYPES.get(p["dataType"], p["dataType"]),
            "id": pid,
            "labels": {"en": {"language": "en", "value": p["label"]}},
            "descriptions": {"en": {"language": "en", "value": p["description"]}} if p.get("description") else {},
            "aliases": {"en": [{"language": "en", "value": a} for a in aliases]} if aliases else {},
            "claims": {},
        }

    def write_jsonl(self, path: Path) -> int:
        n = 0
        with GzWriter(path) as out:
            for pid in self.used_pids:
                out.write(dumps_json(self.property_json(pid)) + "\n")
                n += 1
            for qid in self.items:
                out.write(dumps_json(self.entity_json(qid)) + "\n")
                n += 1
        return n

    def write_nt(self, path: Path) -> int:
        n = 0
        with GzWriter(path) as out:
            for pid in self.used_pids:
                out.write(f"<{WD}{pid}> <{RDFS_LABEL}> {nt_literal(self.props[pid]['label'])}@en .\n")
                n += 1
            for qid in self.items:
                subj = f"<{WD}{qid}>"
                lines = []
                if qid in self.label:
                    lines.append(f"{subj} <{RDFS_LABEL}> {nt_literal(self.label[qid])}@en .")
                if qid in self.desc:
                    lines.append(f"{subj} <{SCHEMA_DESC}> {nt_literal(self.desc[qid])}@en .")
                for a in self.aliases.get(qid) or []:
                    lines.append(f"{subj} <{SKOS_ALT}> {nt_literal(a)}@en .")
                for pid in sorted(self.claims.get(qid, {}), key=qnum):
                    for kind, value in sorted(self.claims[qid][pid], key=lambda kv: (kv[0], str(kv[1]))):
                        if kind == "item":
                            lines.append(f"{subj} <{WDT}{pid}> <{WD}{value}> .")
                        else:
                            lines.append(f"{subj} <{WDT}{pid}> {nt_literal(value[2])}^^<{XSD_DATETIME}> .")
                for line in lines:
                    out.write(line + "\n")
                n += len(lines)
        return n

    def write_composed_descriptions(self, path: Path) -> int:
        """One line per composed description: QID, description, rule, the claims it was composed from."""
        n = 0
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write("qid\tdescription\trule\tfrom_claims\n")
            for qid in self.items:
                if self.desc_src.get(qid) != "composed":
                    continue
                rule, facts = self.desc_facts[qid]
                text = self.desc[qid]
                if re.search(r"[\t\r\n]", text):
                    raise SystemExit(f"composed description of {qid} holds a tab or newline: {text!r}")
                fh.write(f"{qid}\t{text}\t{rule}\t{' '.join(facts)}\n")
                n += 1
        return n

    def description_examples(self) -> list[str]:
        """Five composed descriptions for SOURCES.md: Stephen Crane, then the first labelled item (by QID)
        of each other shape: a "from …" nationality, BCE years, no occupation, a type label."""
        composed = [q for q in self.items if self.desc_src.get(q) == "composed" and q in self.label]
        shapes = [
            lambda q: q == "Q206534",
            lambda q: " from " in self.desc[q],
            lambda q: "BCE" in self.desc[q],
            lambda q: self.desc[q].split(" (")[0].endswith("person") and "(" in self.desc[q],
            lambda q: self.desc_facts[q][0] == "type",
        ]
        out: list[str] = []
        for shape in shapes:
            q = next((q for q in composed if shape(q) and q not in out), None)
            if q:
                out.append(q)
        return out

    def write_records(self, path: Path) -> int:
        n = 0
        with GzWriter(path) as out:
            for qid in sorted(self.bk_records, key=qnum):
                rec = self.bk_records[qid]
                facts = {k: v for k, v in rec.items() if k not in RECORD_META}
                obj = {
                    "qid": qid,
                    "name": rec.get("name", ""),
                    "date_of_birth": rec.get("date_of_birth", ""),
                    "date_of_death": rec.get("date_of_death", ""),
                    "facts": facts,
                    "pids": {k: self.bk_pids[k] for k in facts if k in self.bk_pids},
                    "linked": self.bk_links.get(qid, {}),
                }
                out.write(dumps_json(obj) + "\n")
                n += 1
        return n


# --------------------------------------------------------------------------- Freebase


def fb_pred(path: str) -> str:
    return path.strip("/").replace("/", ".")


class FreebaseSample:
    def __init__(self, inp: Inputs):
        self.inp = inp
        self.stats: dict = collections.OrderedDict()

    def build(self) -> None:
        inp, st = self.inp, self.stats
        triples: set[tuple[str, str, str]] = set()
        read = 0
        for split in ("valid", "test"):
            for h, r, t in read_tsv(inp.fb237 / f"{split}.txt"):
                read += 1
                triples.add((h, r, t))
        st["fb15k237_triples_read"] = read
        st["fb15k237_triples_distinct"] = len(triples)
        ents = {x for h, _r, t in triples for x in (h, t)}
        self.entities = ents
        # names: entity2text (spaces); fall back to FB15k_mid2name (underscores)
        names = {}
        for row in read_tsv(inp.kgbert / "entity2text.txt"):
            if len(row) >= 2 and row[1].strip():
                names.setdefault(row[0], row[1].strip())
        for row in read_tsv(inp.kgbert / "FB15k_mid2name.txt"):
            if len(row) >= 2 and row[1].strip():
                names.setdefault(row[0], row[1].strip().replace("_", " "))
        self.names = names
        fb_map = read_json(inp.fb237 / "entity2wikidata.json")
        self.descs = {m: v["description"].strip() for m, v in fb_map.items() if (v.get("description") or "").strip()}
        self.mid2qid = {m: v["wikidata_id"] for m, v in fb_map.items() if v.get("wikidata_id")}

        # SimpleQuestions (Freebase) valid rows with subject and object in the sample
        self.sq_rows = []
        sq_read = sq_match = 0
        sq_added = 0
        sq_triples = set()
        for row in read_tsv(inp.sq / "SimpleQuestions_v2" / "annotated_fb_data_valid.txt"):
            if len(row) < 4:
                continue
            sq_read += 1
            s = "/" + row[0].removeprefix("www.freebase.com/")
            r = "/" + row[1].removeprefix("www.freebase.com/")
            o = "/" + row[2].removeprefix("www.freebase.com/")
            if s in ents and o in ents:
                sq_match += 1
                if len(self.sq_rows) < SQ_FB_ROWS:
                    self.sq_rows.append(row)
                    if (s, r, o) not in triples and (s, r, o) not in sq_triples:
                        sq_triples.add((s, r, o))
                        sq_added += 1
        st["sq_fb_rows_read"] = sq_read
        st["sq_fb_rows_subject_and_object_in_sample"] = sq_match
        st["sq_fb_rows_kept"] = len(self.sq_rows)
        st["sq_fb_triples_added"] = sq_added
        self.triples = sorted(triples | sq_triples)
        st["entities"] = len(ents)
        st["entities_named"] = sum(1 for m in ents if m in names)
        st["entities_unnamed"] = len(ents) - st["entities_named"]
        st["entities_with_description"] = sum(1 for m in ents if m in self.descs)
        st["entities_without_description"] = len(ents) - st["entities_with_description"]
        st["undescribed_in_the_fb15k237_map"] = sum(1 for m in ents if m not in self.descs and m in self.mid2qid)
        st["relations"] = len({r for _h, r, _t in self.triples})
        st["cvt_relations"] = len({r for _h, r, _t in self.triples if "./" in r})
        # same-name MIDs
        by_name = collections.defaultdict(set)
        for m in ents:
            if m in names:
                by_name[names[m]].add(m)
        shared = {k: v for k, v in by_name.items() if len(v) > 1}
        st["shared_names"] = len(shared)
        st["entities_sharing_a_name"] = len(set().union(*shared.values())) if shared else 0

    def write_nt(self, path: Path) -> int:
        n = 0
        cvt = 0
        mid = lambda m: f"<{FB}{m.strip('/').replace('/', '.')}>"  # noqa: E731  /m/0abc -> m.0abc
        with GzWriter(path) as out:
            for m in sorted(self.entities):
                if m in self.names:
                    out.write(f"{mid(m)} <{FB}type.object.name> {nt_literal(self.names[m])}@en .\n")
                    n += 1
                if m in self.descs:
                    out.write(f"{mid(m)} <{FB}common.topic.description> {nt_literal(self.descs[m])}@en .\n")
                    n += 1
            for h, r, t in self.triples:
                if "./" in r:
                    first, second = r.split("./", 1)
                    cvt += 1
                    node = f"_:cvt{cvt}"
                    out.write(f"{mid(h)} <{FB}{fb_pred(first)}> {node} .\n")
                    out.write(f"{node} <{FB}{fb_pred(second)}> {mid(t)} .\n")
                    n += 2
                else:
                    out.write(f"{mid(h)} <{FB}{fb_pred(r)}> {mid(t)} .\n")
                    n += 1
        self.stats["cvt_nodes"] = cvt
        self.stats["statements"] = len(self.triples)
        self.stats["lines"] = n
        return n


# --------------------------------------------------------------------------- KGQA samples


def write_kgqa(inp: Inputs, wd: WikidataSample, fb: FreebaseSample, out: Path) -> dict:
    stats: dict = collections.OrderedDict()
    kg = out / "kgqa"
    kg.mkdir(parents=True, exist_ok=True)
    with open(kg / "simplequestions_wikidata_test_answerable.sample.txt", "w", encoding="utf-8", newline="\n") as fh:
        for row in wd.sq_wd_rows:
            fh.write("\t".join(row) + "\n")
    stats["simplequestions_wikidata"] = len(wd.sq_wd_rows)
    with open(kg / "simplequestions_freebase_valid.sample.txt", "w", encoding="utf-8", newline="\n") as fh:
        for row in fb.sq_rows:
            fh.write("\t".join(row) + "\n")
    stats["simplequestions_freebase"] = len(fb.sq_rows)

    items = set(wd.items)

    def q_entities(q):
        return [e["name"] for e in q.get("questionEntity") or [] if e.get("entityType") == "entity"]

    def a_entities(q):
        return [a["name"] for a in (q.get("answer") or {}).get("answer") or [] if isinstance(a, dict) and "name" in a]

    full, partial = [], []
    for q in wd.mintaka:
        qe, ae = q_entities(q), a_entities(q)
        ids = qe + [a for a in ae if re.fullmatch(r"Q\d+", str(a))]
        if qe and all(x in items for x in ids):
            full.append(q)
        elif any(x in items for x in qe):
            partial.append(q)
    chosen = full[:MINTAKA_ROWS]
    chosen += partial[: MINTAKA_ROWS - len(chosen)]
    order = {id(q): i for i, q in enumerate(wd.mintaka)}
    chosen.sort(key=lambda q: order[id(q)])
    with open(kg / "mintaka_dev.sample.json", "w", encoding="utf-8", newline="\n") as fh:
        json.dump(chosen, fh, ensure_ascii=False, indent=1)
        fh.write("\n")
    stats["mintaka_dev_all_entities_in_sample"] = len(full)
    stats["mintaka_dev_some_question_entity_in_sample"] = len(partial)
    stats["mintaka_dev_kept"] = len(chosen)
    stats["mintaka_kept_complexity_types"] = dict(
        sorted(collections.Counter(q.get("complexityType") for q in chosen).items()))
    for name, src in (
        ("SimpleQuestions-LICENSE.txt", inp.sq / "LICENSE.txt"),
        ("SimpleQuestions-README.txt", inp.sq / "SimpleQuestions_v2" / "README.txt"),
        ("SimpleQuestionsWikidata-README.md", inp.sq / "README.md"),
        ("Mintaka-LICENSE.md", inp.mintaka / "LICENSE.md"),
    ):
        shutil.copyfile(src, kg / name)
    return stats


# --------------------------------------------------------------------------- BioKaLMA copies


BIOKALMA_NOTICE = """BioKaLMA dataset and prompts
============================

Origin: https://github.com/lixinze777/Knowledge-aware-Language-Model-Attribution
(files dataset/*.json and prompt/*.json), released with: Xinze Li, Yixin Cao,
Liangming Pan, Yubo Ma, Aixin Sun. "Towards Verifiable Generation: A Benchmark for
Knowledge-aware Language Model Attribution". Findings of ACL 2024, pages 493-516,
https://doi.org/10.18653/v1/2024.findings-acl.28

Licence: S-Lab License 1.0 (S-Lab, Nanyang Technological University), as recorded in
this project's data notes (docs/DESIGN.md, "Data at hand"). The S-Lab License 1.0
permits redistribution and use for NON-COMMERCIAL purposes only, provided the
copyright notice, the licence conditions and the disclaimer are kept; commercial
use needs the copyright holders' permission.

The licence text file itself was not part of the data we received, so it is not
copied here; obtain it from the upstream repository. Keep this notice with any
copy of the files in this folder or of data derived from them
(dumps/biokalma_records.jsonl.gz and the BioKaLMA part of dumps/wikidata_sample.*).
"""


def write_biokalma(inp: Inputs, out: Path) -> None:
    d = out / "biokalma"
    (d / "prompt").mkdir(parents=True, exist_ok=True)
    for kind in ("simple", "complex"):
        gzip_copy(inp.biokalma / "dataset" / f"{kind}_question_graph.json", d / f"{kind}_question_graph.json.gz")
    for p in sorted((inp.biokalma / "prompt").glob("*")):
        if p.is_file():
            shutil.copyfile(p, d / "prompt" / p.name)
    (d / "NOTICE.md").write_text(BIOKALMA_NOTICE, encoding="utf-8")


def write_licenses(inp: Inputs, out: Path) -> list[str]:
    d = out / "licenses"
    d.mkdir(parents=True, exist_ok=True)
    copies = [
        ("CoDEx-LICENSE-MIT.txt", inp.codex / "LICENSE"),
        ("datasets_knowledge_embedding-LICENSE-MIT.txt", inp.fb237.parent / "LICENSE"),
        ("kg-bert-LICENSE-Apache-2.0.txt", inp.kgbert.parent.parent / "LICENSE"),
        ("wikidata-properties-LICENSE-MIT.txt", inp.props.parent.parent / "LICENSE"),
        ("SimpleQuestions-LICENSE-CC-BY-3.0.txt", inp.sq / "LICENSE.txt"),
        ("Mintaka-LICENSE-CC-BY-4.0.md", inp.mintaka / "LICENSE.md"),
    ]
    names = []
    for name, src in copies:
        shutil.copyfile(src, d / name)
        names.append(name)
    (d / "BioKaLMA-S-Lab-License-1.0-NOTICE.md").write_text(BIOKALMA_NOTICE, encoding="utf-8")
    names.append("BioKaLMA-S-Lab-License-1.0-NOTICE.md")
    return names


# --------------------------------------------------------------------------- SOURCES.md


def fmt(n) -> str:
    return f"{n:,}" if isinstance(n, int) else str(n)


def file_table(out: Path) -> tuple[str, int]:
    rows = []
    total = 0
    for p in sorted(out.rglob("*")):
        top = p.relative_to(out).parts[0]
        if not p.is_file() or p.name == "SOURCES.md" or (top not in OUTPUT_FILES and top not in OUTPUT_DIRS):
            continue
        size = p.stat().st_size
        total += size
        digest = hashlib.sha256(p.read_bytes()).hexdigest()[:16]
        rows.append(f"| `{p.relative_to(out).as_posix()}` | {size:,} | `{digest}` |")
    return "\n".join(rows), total


def write_sources(out: Path, inp: Inputs, wd: WikidataSample, fb: FreebaseSample, kq: dict, lic: list[str],
                  counts: dict) -> int:
    prov = inp.provenance()

    def origin(repo: str) -> str:
        return f"`{repo}` @ `{prov.get(repo, 'unknown commit')}`"

    w, f = wd.stats, fb.stats
    table, total = file_table(out)
    shared_examples = "; ".join(f"{k!r}: {', '.join(v)}" for k, v in w["shared_label_examples"].items())
    ds_map, ds_codex, ds_composed = (w["descriptions_by_source"].get(k, 0)
                                     for k in ("fb15k237-map", "codex-types", "composed"))
    examples = "\n".join(
        f"- {q} {wd.label[q]}: \"{wd.desc[q]}\" — from `{' '.join(wd.desc_facts[q][1])}`"
        for q in wd.description_examples())
    text = f"""# dumps/ — small real sample dumps

Generated by `scripts/build_dumps.py`; do not edit by hand. Rebuild (deterministic,
byte-identical for the same inputs, well under a minute):

```
python scripts/build_dumps.py --shared /work/shared     # default --shared: ../shared
```

Every fact below is copied or re-shaped from the shared data folder (`<shared>/data`);
no fact is invented: no QIDs, MIDs, statements, ranks, statement ids, qualifiers or references are made up.
One kind of text is written rather than copied: the English **description** of a Wikidata-sample item
that no source describes is *composed* from facts already in the sample (the item's own claims and the
English labels of their values), by the fixed rules under "Descriptions" below, and every composed
description is marked as such (listed with the claims it was made from in
`wikidata_sample.composed_descriptions.tsv`). Composing a description from the sample's facts is not
inventing facts: it states nothing that the item's claims do not state.
Input provenance is `data/kg/SOURCES.txt` (repository @ commit, copied verbatim from git snapshots).

## Files

| file | bytes | sha256 (first 16) |
|---|---:|---|
{table}

Total: {total:,} bytes (budget {SIZE_BUDGET:,}).

## `wikidata_sample.jsonl.gz`

Wikidata entity JSON in the shape of the official JSON dumps, one entity object per line (no
surrounding array): first one `"type":"property"` line per property used (English label,
description, aliases and datatype from the property list), then one `"type":"item"` line per item,
sorted by numeric id. Items carry `labels`/`descriptions`/`aliases` (English only, where known),
`claims` and `sitelinks` (enwiki only, where known). Claims have `snaktype` "value", `type`
"statement" and rank "normal" (the sources give no ranks, so every statement is truthy); no
statement `id`, qualifiers or references. Time values: `{{"time":"+1871-11-01T00:00:00Z",
"timezone":0,"before":0,"after":0,"precision":11,"calendarmodel":"{GREGORIAN}"}}`.

Counts: **{fmt(w['entities'])} items**, {fmt(w['properties'])} properties, **{fmt(w['statements'])} statements**
({', '.join(f'{k}: {fmt(v)}' for k, v in w['statements_by_source'].items())}).
Labelled items: {fmt(w['entities_labelled'])}; **unlabelled: {fmt(w['entities_unlabelled'])}**
(of which {fmt(w['codex_s_entities_unlabelled'])} are CoDEx-S entities; CoDEx's own `entities.json`
with labels was not available). Labels by source: \
{', '.join(f'{k}: {fmt(v)}' for k, v in w['labels_by_source'].items())}.
Where the sources disagree and the first one's label is a defect (a token doubled without a space), the
clean one is taken: {'; '.join(f'`{q}` {v}' for q, v in w['labels_corrected'].items()) or 'none'}; labels still \
defective:
{fmt(len(w['labels_still_defective']))}. Items that no bundled source labels stay unlabelled (the graph knows them by \
id only,
and a knowledge block leaves them out): {fmt(w['entities_unlabelled'])}.
With an English description: {fmt(w['entities_with_description'])} — source text {fmt(ds_map + ds_codex)}
(FB15k-237→Wikidata map: {fmt(ds_map)}, CoDEx types: {fmt(ds_codex)}), **composed: {fmt(ds_composed)}**
(see "Descriptions" below); without a description: {fmt(w['entities_without_description'])}. All \
{fmt(w['biokalma_persons_with_description'])} BioKaLMA persons have one
({', '.join(f'{k}: {fmt(v)}' for k, v in w['biokalma_persons_description_by_source'].items())}). With aliases: \
{fmt(w['entities_with_aliases'])}.
**Same-name entities**: {fmt(w['shared_labels'])} English labels are shared by two or more items
({fmt(w['entities_sharing_a_label'])} items); counting aliases too, {fmt(w['shared_names_label_or_alias'])} names are
shared ({fmt(w['entities_sharing_a_name'])} items). Examples: {shared_examples}.

How it is derived:

1. **BioKaLMA persons** ({fmt(w['biokalma_persons'])} distinct QIDs from the records of
   `data/biokalma/dataset/{{simple,complex}}_question_graph.json`; records with the same QID are identical).
   Property labels → PIDs with `data/kg/wvanderp+wikidata-properties/data/properties.json`
   ({origin('wvanderp/wikidata-properties')}): exact label, else a fixed table of older labels of the
   same PIDs (`LABEL_RENAMES` in the script, each checked against the list's current label, e.g.
   "notable works" → P800 "notable work", "succeeds" → P1365 "replaces", "surname" → P734 "family name"),
   else a unique alias (e.g. "alma mater" → P69 "educated at"). Unmapped labels: \
{w['biokalma_unmapped_property_labels'] or 'none'}.
   Every mapped property is item-valued (`WikibaseItem`) in the list, so no BioKaLMA value is written as a
   string datavalue ({fmt(w['biokalma_non_item_values'])} non-item values).
   Values are labels. A value becomes an item claim only when its label is the English label of exactly one
   QID known from the sources (BioKaLMA names, FB15k-237→Wikidata map labels, CoDEx type labels, Mintaka
   entity labels) **after a class check**: properties whose values are names, titles or works (given name,
   family name, notable work, described by source, noble title, honorific prefix/suffix, topic's main
   category/template, academic thesis) are never linked (label matches there are almost always homonyms,
   e.g. given name "Hugo" = the 2011 film); person-valued properties (father, spouse, child, student of, …)
   only link to QIDs known to be human (CoDEx type Q5, a BioKaLMA person, or a subject of a
   `/people/person/…` relation in full FB15k-237 incl. OpenKE `train2id`), other properties never link to a
   known human or a known film (subject of `/film/film/…`), and language properties only link to known
   languages. A review of the linked pairs found one remaining homonym, rejected explicitly
   (`REVIEWED_REJECTS`: position held "cardinal" ≠ Q1426821 the colour). Linking stays label-based: a value
   whose true item is absent from the sources can still meet a same-named item (the review found none
   beyond the one above, but it checked descriptions, not every fact). **Linked: \
{fmt(w['biokalma_item_claims_linked'])} claims. Dropped from the Wikidata sample:
   {fmt(w['biokalma_item_claims_dropped'])} item claims** (no QID is ever minted) — by reason:
   {w['biokalma_dropped_by_reason']}; top properties: {w['biokalma_dropped_by_property']}.
   The dropped claims are all kept, as labels, in `biokalma_records.jsonl.gz`.
   `date_of_birth`/`date_of_death` → P569/P570 time values ({fmt(w['biokalma_date_claims'])} claims;
   {fmt(w['biokalma_unparseable_dates'])} unparseable dates skipped: hex placeholders the release has for Wikidata
   "unknown value" dates; empty dates are skipped silently). BioKaLMA gives no precision:
   `YYYY-01-01` (how Wikidata's SPARQL/RDF writes year-precision dates) is kept at year precision 9 (JSON
   `+YYYY-00-00T00:00:00Z`), other dates at day precision 11; calendar model Gregorian (the values are in the
   proleptic Gregorian form SPARQL returns).
2. **CoDEx-S**, all splits (`data/triples/codex-s/{{train,valid,test}}.txt`, {origin('tsafavi/codex')}):
   {fmt(w['codex_s_triples_read'])} QID–PID–QID triples over {fmt(w['codex_s_entities'])} entities →
   {fmt(w['codex_s_statements'])} distinct statements.
3. **SimpleQuestions-Wikidata** (`annotated_wd_data_test_answerable.txt`, \
{origin('askplatypus/wikidata-simplequestions')}):
   the first {SQ_WD_ROWS} rows whose subject and answer both have a known English label
   ({fmt(w['sq_wd_rows_both_labelled'])} of {fmt(w['sq_wd_rows_read'])} rows qualify) contribute their triple
   (`Rxxx` = inverse of `Pxxx`, written as object `Pxxx` subject); these rows are \
`kgqa/simplequestions_wikidata_test_answerable.sample.txt`,
   so each sampled question is answerable from the dump. New statements: {fmt(w['sq_wd_statements_added'])}.
4. **CoDEx-M (all splits) and CoDEx-L (valid, test)** triples with a BioKaLMA person at one end and, at the
   other, an entity already in the sample or with a known label: {fmt(w['codex_ml_biokalma_statements'])} statements.
5. CoDEx-M/L triples whose both ends are already in the sample (adds no entity): \
{fmt(w['codex_ml_induced_statements'])} statements.
6. **Types**: CoDEx `data/types/entity2types.json` types of every entity in the sample → P31 claims
   ({fmt(w['codex_type_statements'])}); the type items are labelled from `data/types/en/types.json`. Caveat: CoDEx
   calls these "Wikidata type IDs" without naming the property; for most entities they are `instance of`
   values (Q5 human, sovereign state, …), but for class-like items (e.g. diseases, languages, professions)
   some may be Wikidata `subclass of` parents.

Labels, aliases, descriptions: label priority BioKaLMA name > FB15k-237 map label > CoDEx type label >
Mintaka label; other differing labels and the map's `alternatives` become aliases; descriptions from the
FB15k-237 map, else CoDEx types, else composed (below); enwiki sitelinks from the map's Wikipedia URL.
FB15k-237→Wikidata map: `FB15k-237/entity2wikidata.json`, {origin('villmow/datasets_knowledge_embedding')}.

### Descriptions

Source text (copied verbatim; Wikidata's own English descriptions): **{fmt(ds_map)}** items from the
FB15k-237→Wikidata map, **{fmt(ds_codex)}** type items from CoDEx `data/types/en/types.json`. No other source
of Wikidata descriptions was available (CoDEx's `entities.json` was not), which left most BioKaLMA persons
undescribed.

**Composed: {fmt(ds_composed)}** items \
({', '.join(f'{k}: {fmt(v)}' for k, v in w['descriptions_composed_by_rule'].items())}), written in the item
JSON exactly where Wikidata puts a description (`descriptions.en`) and in the N-Triples as `schema:description`,
so a reader cannot tell them apart from source text there: the marking is
`wikidata_sample.composed_descriptions.tsv` (`qid`, `description`, `rule`, `from_claims`: every claim used, as
`P106=Q36180`, and the years as `P569=1871`). Rules (`compose_descriptions` in the script), in the style of
Wikidata's English descriptions:

- **human** (P31 Q5): `[nationality] <occupation>[ and <occupation>][ from …] (<born>–<died>)`, e.g.
  "American writer and poet (1871–1900)".
  - Nationality from the countries of citizenship (P27), worded by a fixed table (`NATIONALITY` in the
    script: the {len(NATIONALITY)} labelled countries of citizenship of the BioKaLMA persons, each an established
    adjective such as "United States of America" → "American", or "from the Qing dynasty" where an adjective
    would be a guess). It is used only when every country of citizenship the item has is labelled, in the
    table and worded the same (e.g. "United Kingdom" and "Kingdom of Great Britain" → "British"); otherwise it
    is left out rather than one country picked: for \
{fmt(w['descriptions_composed_humans_countries_worded_differently'])} humans whose countries are worded differently
    (e.g. "Soviet Union" and "Russian Empire") and {fmt(w['descriptions_composed_humans_country_not_in_table'])} with \
a country outside the table or unlabelled
    ({', '.join(f'{k}: {fmt(v)}' for k, v in w['descriptions_composed_country_not_in_table'].items())}; QIDs are \
unlabelled countries).
  - Occupations (P106): at most {MAX_OCCUPATIONS} labelled ones, in a stable order — the one the BioKaLMA record
    names first, then those held by more humans in the sample, then the lower QID; an occupation whose label
    begins or ends with a chosen one's is skipped ("screenwriter" after "writer"). With none: "person".
  - Years from the birth and death dates (P569/P570): "(1871–1900)", "(born 1950)", "(died 1900)",
    "(551–479 BCE)", "(44 BCE–23 CE)". A side is left out when its values disagree, or when it is a
    year-precision value on a round hundred (BioKaLMA gives no precision, so "-1300-01-01" may be the 13th
    century BCE); both are left out when the death year is before the birth year.
  - Parts used: {', '.join(f'{k}: {fmt(v)}' for k, v in w['descriptions_composed_human_parts'].items())} of \
{fmt(w['descriptions_composed_by_rule'].get('human', 0))}.
- **type**: any other item with a labelled P31 value: that type's English label (the type most used in the sample,
  then the lower QID; never the item's own label), e.g. "international organization". Nothing finer ("city in
  Texas") is inferred. The CoDEx caveat of step 6 applies: for a class-like item the type may be a `subclass of`
  parent, so "profession" for an occupation item reads as "a kind of profession".
- Anything else keeps no description: {fmt(w['entities_without_description'])} items \
({', '.join(f'{k}: {fmt(v)}' for k, v in w['entities_without_description_by_reason'].items())}; "no claims" are items
  that only occur as values).

A composed description is only as right as the claims it is made from (e.g. a BioKaLMA date
converted from the Julian calendar can shift a year at its ends). Examples:

{examples}

Licences: Wikidata content is CC0 1.0; CoDEx MIT; wikidata-properties MIT; datasets_knowledge_embedding MIT;
SimpleQuestions CC BY 3.0; Mintaka CC BY 4.0 (labels only); BioKaLMA S-Lab License 1.0 (non-commercial;
see `licenses/BioKaLMA-S-Lab-License-1.0-NOTICE.md`). Because BioKaLMA-derived statements are included, treat
this file as non-commercial.

## `wikidata_sample.nt.gz`

The same content as Wikidata truthy N-Triples ({fmt(counts['wikidata_nt_lines'])} lines):
`<{WD}Q…> <{WDT}P…> <{WD}Q…> .`; dates as `"1871-11-01T00:00:00Z"^^<{XSD_DATETIME}>`
(year-precision dates as `YYYY-01-01T00:00:00Z`, as Wikidata writes them); `rdfs:label`,
`<{SCHEMA_DESC}>` and `skos:altLabel` literals tagged `@en`; one
`<{WD}P…> rdfs:label "…"@en .` line per property used. Same derivation and licences as above; the
`schema:description` literals are the same as the JSON descriptions, composed ones included
(marked in `wikidata_sample.composed_descriptions.tsv`).

## `wikidata_sample.composed_descriptions.tsv`

The {fmt(counts['composed_descriptions'])} composed descriptions of the Wikidata sample (see "Descriptions" above), \
one per line after a
header, sorted by numeric QID: `qid`, `description`, `rule` (`human` or `type`), `from_claims` (the item's claims
the text was composed from). Same licences as `wikidata_sample.jsonl.gz`.

## `freebase_sample.nt.gz`

Freebase N-Triples from FB15k-237 `valid.txt` + `test.txt` ({origin('villmow/datasets_knowledge_embedding')}),
{fmt(f['fb15k237_triples_read'])} rows → {fmt(f['fb15k237_triples_distinct'])} distinct triples over
**{fmt(f['entities'])} entities** and {fmt(f['relations'])} relations, plus {fmt(f['sq_fb_triples_added'])} triples of \
the
sampled SimpleQuestions (Freebase) rows (both ends already in the sample). **{fmt(f['statements'])} statements**,
{fmt(f['lines'])} lines.

- Subjects/objects `<{FB}m.0abc>` (`/m/0abc` → `m.0abc`); predicates `<{FB}people.person.place_of_birth>`
  (leading slash dropped, slashes → dots).
- **CVT paths**: a FB15k-237 relation containing `./` (e.g.
  `/film/film/release_date_s./film/film_regional_release_date/film_release_region`) stands for two hops through a
  CVT node. Each such triple becomes `subject <first> _:cvtN . _:cvtN <second> object .` with a fresh blank node
  `_:cvtN` (N counts up in sorted triple order; blank node labels are local to the file). {fmt(f['cvt_nodes'])} CVT
  nodes for {fmt(f['cvt_relations'])} CVT relations. FB15k-237 does not say which facts shared a CVT in Freebase, so
  every triple gets its own node. CVT nodes have no `type.object.name`; readers flag such mid-path nodes as CVT.
- Names: `type.object.name` `@en` from kg-bert `data/FB15k-237/entity2text.txt` (fallback `FB15k_mid2name.txt`,
  underscores → spaces; {origin('yao8839836/kg-bert')}): {fmt(f['entities_named'])} named, \
**{fmt(f['entities_unnamed'])} unnamed**.
  {fmt(f['shared_names'])} names are shared by two or more MIDs ({fmt(f['entities_sharing_a_name'])} MIDs).
- Descriptions: kg-bert's `entity2text.txt` holds names, not descriptions (its long-text file was not available), so
  `common.topic.description` `@en` comes from the **Wikidata** description in the FB15k-237→Wikidata map for
  {fmt(f['entities_with_description'])} of {fmt(f['entities'])} MIDs — Wikidata text (CC0), not Freebase's own \
description. The other
  {fmt(f['entities_without_description'])} have none ({fmt(f['undescribed_in_the_fb15k237_map'])} are in the map \
without a description); nothing is composed for Freebase
  ({fmt(f['undescribed_with_a_composed_wikidata_twin'])} of them map to a Wikidata-sample item with a composed \
description).
- No `type.object.type` triples (FB15k-237 has none). OpenKE `benchmarks/FB15K237` ({origin('thunlp/OpenKE')}; no \
licence
  file in that repository) is used only for the class check of the Wikidata sample, not written here.

Licences: Freebase data CC BY 2.5 (Google); FB15k-237 files via datasets_knowledge_embedding (MIT); names via kg-bert
(Apache-2.0); SimpleQuestions CC BY 3.0.

## `biokalma_records.jsonl.gz`

One line per distinct BioKaLMA person record ({fmt(counts['biokalma_records'])} lines, sorted by QID), deduplicated by \
`qid`:
`{{"qid","name","date_of_birth","date_of_death","facts":{{property label: value label}},"pids":{{property label: PID}},
"linked":{{property label: QID}}}}`. `facts` are the record's values exactly as released; `linked` lists the values that
were linked to an item in `wikidata_sample.*` (see above); all others are for a reader that stores them as Value nodes.
Licence: S-Lab License 1.0 (non-commercial).

## `biokalma/`

`simple_question_graph.json.gz` and `complex_question_graph.json.gz` (gzip of the released files,
{w['biokalma_question_files']['simple']:,} and {w['biokalma_question_files']['complex']:,} questions: `[question, \
[records…]]`; general =
simple, specific = complex) and `prompt/*.json` (verbatim), from
https://github.com/lixinze777/Knowledge-aware-Language-Model-Attribution (as in `data/biokalma`; the commit
was not recorded). Licence: S-Lab License 1.0 — `biokalma/NOTICE.md`. No licence text file came with the data; the
notice states the licence name and origin.

## `kgqa/`

- `simplequestions_wikidata_test_answerable.sample.txt`: {fmt(kq['simplequestions_wikidata'])} rows of
  `annotated_wd_data_test_answerable.txt` (format `subject\\tproperty\\tobject\\tquestion`), chosen as in step 3 above:
  subject and answer are both items of the Wikidata sample and the triple is in it.
- `simplequestions_freebase_valid.sample.txt`: the first {fmt(kq['simplequestions_freebase'])} rows of
  `SimpleQuestions_v2/annotated_fb_data_valid.txt` whose subject and object MIDs are in the Freebase sample
  ({fmt(f['sq_fb_rows_subject_and_object_in_sample'])} of {fmt(f['sq_fb_rows_read'])} qualify); their triples are in \
the Freebase sample.
- `mintaka_dev.sample.json`: {fmt(kq['mintaka_dev_kept'])} questions of `data/mintaka_dev.json` \
({origin('amazon-science/mintaka')}),
  in file order: those whose question entities and answer entities are all items of the Wikidata sample
  ({fmt(kq['mintaka_dev_all_entities_in_sample'])}), then those with at least one question entity in it
  ({fmt(kq['mintaka_dev_some_question_entity_in_sample'])} available), capped at {MINTAKA_ROWS}. Complexity types:
  {kq['mintaka_kept_complexity_types']}.
- Licences and readmes next to them: `SimpleQuestions-LICENSE.txt` (CC BY 3.0, Facebook), `SimpleQuestions-README.txt`,
  `SimpleQuestionsWikidata-README.md`, `Mintaka-LICENSE.md` (CC BY 4.0).

## `licenses/`

Copies of the upstream licence files: {', '.join(f'`{n}`' for n in lic)}.
"""
    (out / "SOURCES.md").write_text(text, encoding="utf-8")
    return total


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=REPO_ROOT.parent / "shared",
                    help="shared folder holding data/ (default: ../shared)")
    ap.add_argument("--out", type=Path, default=REPO_ROOT / "dumps",
                    help="output folder (default: dumps/ in the repository)")
    args = ap.parse_args(argv)
    t0 = time.time()
    inp = Inputs(args.shared.resolve())
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    # remove what this script writes (and only that), so stale files cannot survive
    for name in OUTPUT_FILES:
        (out / name).unlink(missing_ok=True)
    for sub in OUTPUT_DIRS:
        if (out / sub).exists():
            shutil.rmtree(out / sub)

    wd = WikidataSample(inp)
    wd.build()
    counts = {}
    counts["wikidata_jsonl_lines"] = wd.write_jsonl(out / "wikidata_sample.jsonl.gz")
    counts["wikidata_nt_lines"] = wd.write_nt(out / "wikidata_sample.nt.gz")
    counts["biokalma_records"] = wd.write_records(out / "biokalma_records.jsonl.gz")
    counts["composed_descriptions"] = wd.write_composed_descriptions(out / "wikidata_sample.composed_descriptions.tsv")
    fb = FreebaseSample(inp)
    fb.build()
    counts["freebase_nt_lines"] = fb.write_nt(out / "freebase_sample.nt.gz")
    fb.stats["undescribed_with_a_composed_wikidata_twin"] = sum(
        1 for m in fb.entities if m not in fb.descs and wd.desc_src.get(fb.mid2qid.get(m, "")) == "composed")
    kq = write_kgqa(inp, wd, fb, out)
    write_biokalma(inp, out)
    lic = write_licenses(inp, out)
    total = write_sources(out, inp, wd, fb, kq, lic, counts)

    log("== Wikidata sample")
    for k, v in wd.stats.items():
        log(f"  {k}: {v}")
    log("== Freebase sample")
    for k, v in fb.stats.items():
        log(f"  {k}: {v}")
    log("== KGQA samples")
    for k, v in kq.items():
        log(f"  {k}: {v}")
    log("== lines written")
    for k, v in counts.items():
        log(f"  {k}: {v}")
    log(f"== total size of {out}: {total:,} bytes (budget {SIZE_BUDGET:,}); {time.time() - t0:.1f}s")
    if total > SIZE_BUDGET:
        log("ERROR: over the size budget")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
