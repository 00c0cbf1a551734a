"""What a natural question asks of the graph when it names topics, not relations (issue 43).

"How did Akshara Haasan's family shape her career?" names no relation label, yet it asks her father, mother and
spouse (family) and her occupation and positions (career). `question_asks` reads a question clause by clause,
as `asked` does, and returns, in the question's order, each (person, relation) it asks (tier 2) or makes
relevant (tier 1):

- the relations a clause names by label, noun or cue (`asked_in_order`), tier 2;
- the relations of each topic a clause names by a cue word (`data/question_topics.json`: family, upbringing,
  marriage, education, career, recognition, accomplishments, legacy, succession, death, …), its `asks` at tier 2
  and its `relevant` at tier 1, of the persons the clause names (else the person a pronoun points back to, else
  every person the question names);
- "Who was X?" / "tell me about X" / "an overview of X's life": a biography's core, tier 1.

`unanswered_parts` names the asked parts the graph shown cannot answer: a topic none of whose `asks` the graph
holds for that person ("Virginia Woolf's family" with no family triple), or a relation the question names by its
label that the person lacks. The grounded loop writes one `[NA]` sentence for each, so an honest answer says what
the graph does not hold rather than leaving it unsaid.

The word lists are data; the reading is plain token matching (no model), so it is fast and deterministic, and
`bench/question_facts.py` measures it against the annotated development set.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from itertools import takewhile
from typing import Any, Sequence

from kalma_graph.kg.triples import Entity, Triple

from .asked import _named, _pronouns_resolved, asked_in_order, asked_readings, name_spans
from .lexicon import load_lexicon
from .text import Token, find_phrase, find_stem, fold, number_of, parse_iso_date, phrase, tokenize

_CLAUSE_RE = re.compile(r",\s*(?:and\s+)?|;|:|\?\s+|\s+and\s+(?=(?:how|what|where|when|who|which|why|did|was|were)\b)")
MISSING = "named, not held"  # an Ask's topic: a relation the question names by label that the graph shown lacks
UNREAD = "asked, not read"  # an Ask's topic: what a question asks in words no topic, label or cue reads
_UNREAD_WORDS = 6  # the most words of an unread part's lead after the person's name ("'s favourite food")
_WHO_CUES = ("who was", "who is", "who were", "tell me about", "life of")  # the person must follow at once


@dataclass(frozen=True)
class Topic:
    name: str
    cues: tuple[tuple[str, ...], ...]  # stems, or whole words when `whole`
    whole: frozenset[tuple[str, ...]]
    asks: tuple[str, ...]
    relevant: tuple[str, ...]
    lead: str
    of_after: bool = False  # "X, son of Y": the topic word followed by "of" asks of Y only


@dataclass(frozen=True)
class Topics:
    topics: tuple[Topic, ...]
    biography_cues: tuple[tuple[str, ...], ...]
    biography: tuple[str, ...]
    groups: tuple[tuple[str, ...], ...]
    version: str
    verbs: frozenset[str] = frozenset()
    leads: dict[str, str] = field(default_factory=dict)
    unread: tuple[str, ...] = ()  # relevant to a question that asks, in words no reading knows, of a person
    connection_cues: tuple[tuple[str, ...], ...] = ()  # "connected", "relationship": the question asks a link
    value_not_asked: frozenset[str] = frozenset()
    # "when" / "where" -> (a life event's words, the relation asked): "When did she die?" asks the date of death
    wh_asks: dict[str, tuple[tuple[tuple[str, ...], str], ...]] = field(default_factory=dict)

    def asks_connection(self, question: str) -> bool:
        """Whether the question asks how the persons it names are connected (`connection_cues`)."""
        tokens = tokenize(question)
        return any(find_stem(tokens, cue) for cue in self.connection_cues)

    def lead(self, relations: Sequence[str], name: str, dead: bool) -> str:
        """The words a planned sentence of these relations starts with (`leads`, by its group's first relation)."""
        index = self.group_of(relations[0])
        group = self.groups[index] if index < len(self.groups) else ()
        own = "+".join(sorted(set(relations), key=lambda r: group.index(r) if r in group else len(group)))
        template = self.leads.get(own) or (self.leads.get(group[0]) if group else None) or "{name}"
        return template.format(name=name, **{"is": "was" if dead else "is"})

    def has_verb(self, text: str) -> bool:
        """Whether a sentence holds a verb (`verbs`, or a lower-case word ending in -ed) outside its relative clauses:
        no fragment ("X's father, Y."). A name is no verb: "Zoya Akhtar's parents, Javed Akhtar and Honey Irani." once
        passed on "Javed"; nor is a relative clause's: a trim left "Sun Quan's son, Sun Kuangti, which is the
        ancestral home of his family."."""
        relative = load_lexicon().relative_pronouns
        inside, after_comma = False, False  # in a relative clause (", which …" up to the next comma)
        for t in tokenize(text):
            if t.text == ",":
                inside, after_comma = False, True
                continue
            if after_comma and t.word and t.norm in relative:
                inside = True
            after_comma = False
            if inside:
                continue
            if t.word and (t.norm in self.verbs
                           or (len(t.norm) >= 4 and t.norm.endswith("ed") and not t.capital)):
                return True
        return False

    def group_of(self, relation: str) -> int:
        """The sentence group a relation is said in (relations of one group share a sentence); its own past the end."""
        for i, group in enumerate(self.groups):
            if relation in group:
                return i
        return len(self.groups) + hash(relation) % 1000


@dataclass(frozen=True)
class Ask:
    """One (person, relation) a question asks (tier 2) or makes relevant (tier 1), and why."""

    subject: str
    relation: str
    tier: int
    topic: str  # a topic's name, "named" (its label, noun or cue), "biography", `MISSING` or `UNREAD`
    position: tuple[int, int]  # (clause, token): the question's order
    words: str = ""  # an `UNREAD` part: the question's words for it ("Friedrich Schiller's favourite food")


@lru_cache(maxsize=1)
def load_topics() -> Topics:
    data = json.loads(resources.files("kalma_graph").joinpath("data/question_topics.json").read_bytes())

    def cue(text: str) -> tuple[str, ...]:
        return tuple(fold(w) for w in text.split())

    topics = tuple(Topic(name=name, cues=tuple(cue(c) for c in spec["cues"]),
                         whole=frozenset(cue(c) for c in spec.get("whole", ())), asks=tuple(spec["asks"]),
                         relevant=tuple(spec.get("relevant", ())), lead=spec["lead"],
                         of_after=bool(spec.get("of_after", False)))
                   for name, spec in data["topics"].items())
    return Topics(topics=topics, biography_cues=tuple(cue(c) for c in data["biography"]["cues"]),
                  biography=tuple(data["biography"]["relevant"]), groups=tuple(tuple(g) for g in data["groups"]),
                  version=data["version"], verbs=frozenset(data.get("verbs", ())),
                  leads=dict(data.get("leads", {})), unread=tuple(data.get("unread", {}).get("relevant", ())),
                  connection_cues=tuple(cue(c) for c in data.get("connection_cues", ())),
                  value_not_asked=frozenset(data.get("value_not_asked", ())),
                  wh_asks={fold(wh): tuple((cue(words), label) for words, label in events.items())
                           for wh, events in data.get("wh_asks", {}).items()})


def _relation_spans(tokens: Sequence[Token], labels: set[str]) -> list[tuple[int, int]]:
    """Where a clause names a relation by its label or noun (of the relations a question may name, and those
    shown): "employer", "noble family", "place of burial", "influences"."""
    lexicon = load_lexicon()
    out: list[tuple[int, int]] = []
    for label in {*_nameable_relations(), *labels}:
        for name in (label, *lexicon.relation(label).nouns):
            words = phrase(name)
            if words:
                out += find_phrase(tokens, words)
    return out


def _says_exactly(words: Sequence[str], label: str) -> bool:
    """Whether the question's words hold the relation's label or noun exactly ("influences", not the verb
    "influence" that a plural-tolerant match also finds)."""
    lexicon = load_lexicon()
    for name in (label, *lexicon.relation(label).nouns):
        want = list(phrase(name))
        if want and any(words[i:i + len(want)] == want for i in range(len(words) - len(want) + 1)):
            return True
    return False


@lru_cache(maxsize=1)
def _nameable_relations() -> tuple[str, ...]:
    """The relations a question may name that the graph may lack: the verifier's cue table and every topic's."""
    table = load_topics()
    labels = {label for label in load_lexicon().relations}
    topical = {r for t in table.topics for r in (*t.asks, *t.relevant)}
    labels |= topical

    # a label that is a topic's word ("family", Wikidata's P53) is read as the topic, not as that relation,
    # unless a topic asks that relation ("employer" of career)
    def topic_word(label: str) -> bool:
        tokens = tokenize(label)
        return any(find_stem(tokens, cue) == [(0, len(tokens))] for t in table.topics for cue in t.cues)

    topic_words = {label for label in labels - topical if topic_word(label)}
    # "part of" names no relation in a question ("what artistic movement was he a part of?" asks the movement)
    return tuple(sorted(labels - topic_words - {"name", "instance of", "sex or gender", "given name", "family name",
                                                "surname", "part of"}))


def _cue_spans(tokens: Sequence[Token], cue: tuple[str, ...], whole: bool) -> list[tuple[int, int]]:
    return find_phrase(tokens, cue) if whole else find_stem(tokens, cue)


def _clauses(question: str) -> list[list[Token]]:
    return [tokenize(c) for c in _CLAUSE_RE.split(question) if c and c.strip()]


def question_persons(question: str, entities: Sequence[Entity]) -> list[str]:
    """The entities the question names, in the order it first names them."""
    tokens = tokenize(question)
    first = _named(tokens, entities)
    return sorted(first, key=first.__getitem__)


def looks_english(question: str) -> bool:
    """Whether the question reads as English: at least one word in five, names aside, is an English function
    word ("who", "was", "the", "of"). "Wer war Stephen Crane und wo wurde er geboren?" has none; the word lists
    match English only, so such a question is read as "Who is X?" of the persons it names (`question_asks`)."""
    tokens = [t for t in tokenize(question) if t.word]
    words = [t for i, t in enumerate(tokens) if not (t.capital and i > 0) and not t.norm.isdigit()]
    if len(words) < 3:
        return True  # too short to tell
    stop = load_lexicon().stop_words
    return sum(t.norm in stop for t in words) / len(words) >= 0.2


def question_asks(question: str, entities: Sequence[Entity], shown: Sequence[Triple],
                  persons: Sequence[str] | None = None) -> list[Ask]:
    """What the question asks and makes relevant, per person, in its order (see the module docstring).
    `persons`: the entity ids that count as persons (default: every named entity the question names). A question
    that does not read as English (`looks_english`) asks a biography's core of each person it names."""
    table = load_topics()
    named = question_persons(question, entities)
    people_ids = [p for p in named if persons is None or p in persons]
    if not looks_english(question):
        return [Ask(p, relation, 1, "biography", (0, k)) for p in people_ids
                for k, relation in enumerate(table.biography)]
    allowed = set(people_ids)
    clauses = _clauses(question)
    found = [{k: v for k, v in _named(tokens, entities).items() if k in allowed} for tokens in clauses]
    held = {(t.subject, t.label) for t in shown}
    by_value: set[str] = set()  # persons reached through a relative the graph names only as a value
    for tokens, people in zip(clauses, found):
        for other, (at, through_value) in _referred(tokens, people, entities, shown).items():
            people.setdefault(other, at)  # "Ian Khama's father": the father, where the clause names him
            allowed.add(other)
            if through_value:
                by_value.add(other)
    found = _pronouns_resolved(clauses, found)
    out: dict[tuple[str, str], Ask] = {}

    def add(subject: str, relation: str, tier: int, topic: str, position: tuple[int, int]) -> None:
        if subject in by_value and (subject, relation) not in held:
            return  # "Arundhati Roy's parents, … her work": "her" may be Arundhati, no [NA] part for her mother
        key = (subject, relation)
        old = out.get(key)
        if old is None or tier > old.tier:
            out[key] = Ask(subject, relation, tier, topic, old.position if old else position)

    # what the question names by label, noun or cue: the existing reading, over the graph shown
    for subject, relation in asked_in_order(question, entities, shown):
        if subject in allowed or not allowed:
            add(subject, relation, 2, "named", (-1, len(out)))
    # a value the question names is asked of the person named: "his connection to Walmart" asks Jim Walton's
    # employer Walmart, "Petra Kvitová's left-handedness" her handedness
    for t in _value_named(question, entities, [t for t in shown if t.subject in allowed or not allowed]):
        add(t.subject, t.label, 2, "value", (-1, len(out)))
    # a relation named by its label or noun that the graph shown does not hold for that person: an asked part
    # to mark [NA] ("What were Henry James's employers?" with no employer shown); cue words alone are too
    # loose to claim the graph lacks something
    pseudo = [Triple(p, "", label, "") for p in people_ids for label in _nameable_relations() if (p, label) not in held]
    words = [t.norm for t in tokenize(question) if t.word]
    for t, by_label in asked_readings(question, entities, pseudo):
        if by_label and (t.subject, t.label) not in out and _says_exactly(words, t.label):
            add(t.subject, t.label, 2, MISSING, (-1, len(out)))
    for index, (tokens, people) in enumerate(zip(clauses, found)):
        subjects = sorted(people, key=people.__getitem__) or people_ids or sorted(by_value)
        # a word that names a relation names that relation, not a topic: "employer" asks the employer, not a
        # career; "noble family" and "place of burial" ask themselves, not the family or the death
        named_spans = _relation_spans(tokens, {t.label for t in shown})
        # nor is a word inside a name: "Cao Song" asks no music ("song")
        named_spans += [span for spans in name_spans(tokens, {e.id: e.name for e in entities if e.name}).values()
                        for span in spans]
        for topic in table.topics:
            every = [s for c in topic.cues for s in _cue_spans(tokens, c, c in topic.whole)]
            spans = [s for s in every if not any(a < s[1] and s[0] < b for a, b in named_spans)]
            # a person reached through a value is named by no label reading (`asked_in_order` reads the
            # persons named): the relation word asks as its topic
            if not spans and every and by_value & set(subjects):
                spans = every
            if not spans:
                continue
            at = min(spans)[0]
            for subject in (_of_whom(tokens, spans, people, subjects) if topic.of_after else subjects):
                for relation in topic.asks:
                    add(subject, relation, 2, topic.name, (index, at))
                for relation in topic.relevant:
                    add(subject, relation, 1, topic.name, (index, at))
        for subject in _biography_subjects(tokens, people, entities):
            for relation in table.biography:
                add(subject, relation, 1, "biography", (index, -1))
    _mark_wh_missing(out, clauses, found, people_ids, held, table)
    if not out:
        out = {(a.subject, a.relation): a for a in _unread(clauses, found, entities)}
    return sorted(out.values(), key=lambda a: (-a.tier, a.position))


def _mark_wh_missing(out: dict[tuple[str, str], Ask], clauses: Sequence[Sequence[Token]],
                     found: Sequence[dict[str, int]], people_ids: Sequence[str], held: set[tuple[str, str]],
                     table: Topics) -> None:
    """"when did she die" asks the date itself: one the graph lacks is a part to mark [NA] (`MISSING`), even where
    the death topic is answered by a held cause or burial (the topic's reading would otherwise stand)."""
    for index, relation in _wh_asked(clauses, table):
        for subject in sorted(found[index], key=found[index].__getitem__) or people_ids:
            if (subject, relation) not in held:  # held: `asked_in_order` reads it by its cue already
                old = out.get((subject, relation))
                out[(subject, relation)] = Ask(subject, relation, 2, MISSING,
                                               old.position if old else (index, len(clauses[index])))


def _wh_asked(clauses: Sequence[Sequence[Token]], table: Topics) -> list[tuple[int, str]]:
    """(clause, relation) a question word asks with a life event's word (`wh_asks`): "When did Joan Rivers die?"
    asks the date of death; "…, and where?" (the word alone) asks the place of the event the clause before named."""
    out: list[tuple[int, str]] = []
    before: set[tuple[str, ...]] = set()  # the life-event words of the last clause that had some
    for index, tokens in enumerate(clauses):
        norms = {t.norm for t in tokens if t.word}
        here = {cue for pairs in table.wh_asks.values() for cue, _ in pairs if find_phrase(tokens, cue)}
        for wh, pairs in table.wh_asks.items():
            if wh in norms:
                cues = here or (before if len(norms) <= 2 else set())
                out += [(index, label) for cue, label in pairs if cue in cues]
        before = here or before
    return list(dict.fromkeys(out))


def _unread(clauses: Sequence[Sequence[Token]], found: Sequence[dict[str, int]],
            entities: Sequence[Entity]) -> list[Ask]:
    """A question that names a person the graph holds, yet asks nothing any reading knows ("What was Friedrich
    Schiller's favourite food?"): one part the graph, as read, does not hold, in the question's words (the name
    and up to `_UNREAD_WORDS` words after its possessive; else the name), and the `unread` relevant facts of that
    person. Without it the loop wrote freely: eight sentences the model chose, none of them about food."""
    names = {e.id: e.name for e in entities if e.name}
    for index, (tokens, people) in enumerate(zip(clauses, found)):
        for subject in sorted(people, key=people.__getitem__):
            spans = name_spans(tokens, {subject: names[subject]}).get(subject) if subject in names else None
            if not spans:
                continue
            start, end = spans[0]
            after = list(takewhile(lambda t: t.word, tokens[end:end + _UNREAD_WORDS]))
            words = [t.text for t in after] if tokens[end - 1].possessive else []
            lead = f"{names[subject]}'s {' '.join(words)}" if words else names[subject]
            return [Ask(subject, "", 2, UNREAD, (index, start), words=lead),
                    *(Ask(subject, r, 1, UNREAD, (index, start)) for r in load_topics().unread)]
    return []


def _of_whom(tokens: Sequence[Token], spans: Sequence[tuple[int, int]], people: dict[str, int],
             subjects: Sequence[str]) -> list[str]:
    """Whom a topic word asks of: "the son of Y" / "X, son of Y" asks of Y, the persons named after "of", not X
    ("How did Andreas Pereira, son of … Marcos Pereira, establish his career?" once asked Andreas's children); any
    other use asks of every person of the clause."""
    if not all(end < len(tokens) and tokens[end].norm == "of" for _start, end in spans):
        return list(subjects)
    after = min(end for _start, end in spans)
    return [s for s in subjects if people.get(s, -1) > after]


def _value_named(question: str, entities: Sequence[Entity], shown: Sequence[Triple]) -> list[Triple]:
    """The triples whose value the question names (`_names_value`), but not those of `value_not_asked`, and two
    persons joined once: "his son X" asks X's father or X, not both."""
    whole = tokenize(question)
    in_names = [span for e in entities if e.name for span in find_phrase(whole, phrase(e.name))]
    id_of = {fold(e.name): e.id for e in entities if e.name}
    linked: set[frozenset[str]] = set()
    out = []
    for t in shown:
        if t.label in load_topics().value_not_asked or not _names_value(whole, t, in_names):
            continue
        if load_lexicon().relation(t.label).kin:
            pair = frozenset((t.subject, t.object_id or id_of.get(fold(t.value), t.value)))
            if pair in linked:
                continue
            linked.add(pair)
        out.append(t)
    return out


def _names_value(tokens: Sequence[Token], t: Triple, in_names: Sequence[tuple[int, int]]) -> bool:
    """Whether the question names the triple's value outside a person's name ("Walton" in "Jim Walton" is no
    surname asked): a name of 4 letters or more that is no stop word, not a date or a number."""
    if parse_iso_date(t.value) or number_of(t.value) is not None:
        return False
    words = phrase(t.value)
    if not words or len("".join(words)) < 4 or (len(words) == 1 and words[0] in load_lexicon().stop_words):
        return False
    return any(not any(a <= s and e <= b for a, b in in_names) for s, e in find_phrase(tokens, words))


def _referred(tokens: Sequence[Token], people: dict[str, int], entities: Sequence[Entity],
              shown: Sequence[Triple]) -> dict[str, tuple[int, bool]]:
    """Persons a clause names through a named person's kin ("Ian Khama's father", "his son"): the value of that
    person's family triple when it is an entity shown, at the family word; the word is the relation's own
    ("father") or, for a relation that is no kin word itself, one of its class ("son" for `child`). Also the
    holder of a family value the clause names before a word of the inverse class ("Ian Khama's father": Seretse
    Khama holds `child: Ian Khama`), flagged True: reached through a person the graph knows only by name."""
    lexicon = load_lexicon()
    ids = {e.id for e in entities}
    by_name = {fold(e.name): e.id for e in entities if e.name}
    out: dict[str, tuple[int, bool]] = {}
    for t in shown:  # "Ian Khama's father" where the graph holds only "Seretse Khama, child: Ian Khama"
        kin = lexicon.relation(t.label).kin
        if not kin or t.object_id or t.subject in people or t.subject not in ids:
            continue
        words = [(w,) for w in lexicon.kin_words.get(lexicon.kin_inverse.get(kin, ""), ())]
        for _, end in find_phrase(tokens, phrase(t.value)):
            after = [end + a for w in words for a, _ in find_stem(tokens[end:end + 2], w)]
            if after:
                out.setdefault(t.subject, (min(after), True))
    for t in shown:
        kin = lexicon.relation(t.label).kin
        if t.subject not in people or not kin:
            continue
        other = t.object_id if t.object_id in ids else by_name.get(fold(t.value))
        if not other or other in people:
            continue
        kin_words = [t.label] if t.label in lexicon.kin_words.get(kin, ()) else list(lexicon.kin_words.get(kin, ()))
        spans = [span for word in kin_words for span in find_phrase(tokens, (word,)) if span[0] > people[t.subject]]
        if spans:
            out.setdefault(other, (min(spans)[0], False))
    return out


def _biography_subjects(tokens: Sequence[Token], people: dict[str, int], entities: Sequence[Entity]) -> list[str]:
    """The persons a "Who was X?" / "tell me about X" / "an overview of X's life" clause asks a biography of."""
    table = load_topics()
    names = {e.id: phrase(e.name) for e in entities if e.name and e.id in people}
    out = []
    for cue in table.biography_cues:
        for _start, end in find_stem(tokens, cue):
            if " ".join(cue) in _WHO_CUES:
                # "Who was Stephen Crane", not "who was his father"
                # the name itself, not "X's parents"
                out += [p for p, words in names.items() if find_phrase(tokens[end:end + len(words)], words)
                        and not tokens[end + len(words) - 1].possessive]
            else:
                out += list(people)
    return list(dict.fromkeys(out))


def unanswered_parts(asks: Sequence[Ask], shown: Sequence[Triple], names: dict[str, str]) -> list[dict[str, Any]]:
    """The asked parts the graph shown holds nothing for: per (person, topic) none of whose asked relations the
    person has a triple of, each with the words its [NA] sentence starts with (`lead`). A relation named by its
    label is never missing here: `asked_in_order` reads only what the graph shows."""
    table = {t.name: t for t in load_topics().topics}
    held = {(t.subject, t.label) for t in shown}
    by_part: dict[tuple[str, str], list[Ask]] = {}
    for a in asks:
        if a.tier == 2 and a.topic in table:
            by_part.setdefault((a.subject, a.topic), []).append(a)
    lexicon = load_lexicon()
    out: list[dict[str, Any]] = []
    for a in asks:  # a relation the question names by its label: the part is that relation
        name = names.get(a.subject)
        if a.topic == UNREAD and a.words:
            out.append({"subject": a.subject, "topic": UNREAD, "lead": a.words, "position": a.position,
                        **({"label": f"what the question asks of {name}"} if a.words == name else {})})
        elif a.topic == MISSING and name:
            noun = (lexicon.relation(a.relation).nouns or (a.relation,))[0]
            out.append({"subject": a.subject, "topic": a.relation, "lead": f"{name}'s {noun}", "position": a.position,
                        "relation": a.relation})
    named = {(p["subject"], p["topic"]) for p in out}
    # a person another shown person names as kin has family in the graph ("How did Kamal Haasan's family shape
    # Akshara Haasan's career?" with `Akshara Haasan, father: Kamal Haasan` shown): the kin asks are held for them
    # (the inverse kind: Akshara's `father` gives him a child, Brian Christopher's `father` gives Brian no children)
    inverse_held = {(who, lexicon.kin_inverse.get(kin, "")) for t in shown if (kin := lexicon.relation(t.label).kin)
                    for who in {t.object_id, *(i for i, n in names.items() if n == t.value)} if who}
    for (subject, topic), part in by_part.items():
        name = names.get(subject)
        if (not name
            or any((subject, relation) in held or (subject, relation) in named
                   or (subject, lexicon.relation(relation).kin) in inverse_held for relation in table[topic].asks)):
            continue
        out.append({"subject": subject, "topic": topic, "lead": table[topic].lead.format(name=name),
                    "position": min(a.position for a in part)})
    out.sort(key=lambda p: p["position"])
    return out
