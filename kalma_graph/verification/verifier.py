"""The one entry point: `Verifier.verify(AnswerInput) -> AnswerCheck`. The adapters that build an
`AnswerInput` from an answers-file record or from any text live with the citation parser
(`kalma_graph.evaluation.verify`), which sits above this package.

A store, when given, widens the graph: the aliases of every entity the answer may name, and every
statement the store holds about the answer's subjects (so that a claim the model was not shown can still
be held or contradicted). Nothing is written to the store.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

from .claims import verify_structure
from .lexicon import Lexicon, load_lexicon
from .places import LazyContainers, SaidPlaces, place_containers, shown_lookup
from .records import AnswerCheck, AnswerInput, CitedTriple, GraphEntity, GraphTriple
from .text import fold

# The verifier's id is `version:cues_sha256`, so that a stored report scored by another verifier is never read
# back. `cues_sha256` (`Lexicon.sha256`) hashes every data file the verifier reads (`lexicon.DATA_FILES`: the
# relation cues, the verifier's own word tables, the Wikidata aliases, question_topics.json for its common verbs),
# so a changed word is a new id by itself; the name is kept from when the relation cues were the only such file
# (stored reports compare it). The version is the code's: bump it when the checks' logic changes (what they do with
# the words), never for a changed word.
# 2 reads an s-possessive's apostrophe ("Oates' book"); 3 reads "S is the <relation> of V" as the inverse of
# S <relation>: V, and "S's brother taught at V" as said of the brother, not of S; 4 reads no value in a part of
# another entity's name ("Haasan" of "Akshara Haasan" is not her father Kamal Haasan), "S's father is an actor" as
# the father's occupation, not S's, and no value in a short alias that is a function word (India's "IN" in "died
# in Mumbai"); 7 reads "born in St. Louis, Missouri" as naming where the place lies (`places.py`), and a value said of
# a group ("A and B were the children of V") as said of each of them, an ordinal before a cited value ("the third
# pharaoh") as a claim, and the words of a cited relation's label ("notable works include V") as naming it; 8 reads
# a value in other words ("took his own life"), words a value implies, denials ("an only child") as claims, a first
# name or surname joined to another capitalised word as another person, and an inverted family word over a vaguer
# relation; 9 reads the family word nearest a value as its own ("the son of A and the father of B"), a name between
# commas before a verb as the clause's subject ("S's father, F, was born in V"), a place held as a string as a name
# another place contradicts (a place inside the held one, as far as the graph says, does not), a looser relation's
# word only in the value's own clause, an ordinal before any held value or a family word as a claim, and a value's
# last word in its other form ("left-handed" for left-handedness); 10 reads a person the question gives a field
# their graph namesake does not fit as another person (`namesakes.py`: "his literary prowess" is not a researcher's),
# a family word before a person the question names as a claim (held by that person's own triple), a value's own
# comma, a first name two persons share as the one the answer is about, and another birthplace as contradicting
# only where the graph locates it outside the held one, or cannot locate it and the held one is a town
# (`places.SaidPlaces`); 11 reads a verb after "and" with no subject of its own as the sentence subject's ("…, married
# M in 1936, and died in Hanover"), a single-valued relation's cue up to six words before the value (a date between
# not counted: "died on 31 July 1972 in Brussels"), another full date in the held year as another date, a common noun
# as no other place ("buried in the cathedral"), and cause and manner of death as relations a second value does not
# contradict ("heart failure" beside a held myocardial infarction); 12 reads a participle after a name's comma as
# said of that name ("her brother Jaden Smith, born on …"), a place of birth or death only after "in", "at", "near" or
# a copula ("killed the chieftain V" names none), a date of a relative's event as the relative's ("on their father's
# death in 1638"), a three-digit year ("born in 155"), a capitalised word inside a sentence as joining a name ("One
# Bull" is not Sitting Bull), an area the graph cannot place as possibly holding the held town, a relation's noun as a
# claim unless the sentence states a value of that relation or it introduces one across "of" ("for his service to
# the country"; "a member of the Catholic Church"), a value's last word in another form as naming it as the person's
# own ("a communist"), present-tense verbs as opening a clause ("speaks"), and a sentence that opens with a person the
# graph does not hold as about that person ("Marc Isambard Brunel … his work", in an answer about his son); 13 names a
# person as their own relative only in full or by "he"/"she" (not by a surname: "his father Lionel Penrose … the
# Moore–Penrose pseudoinverse"; not a forebear after "his", nor one the graph holds by that name), inverts only a value
# named in full ("Anne Isabella", a daughter, is not her mother Anne Isabella Byron), lets part of a town the graph
# cannot place lie in the town said ("died in Stockholm" where it holds Oscar Parish), reads "speaks" as no native
# language, and gives religious order, part of, conflict, noble title and a singer's voice their cues; 14 resolves
# "he"/"she" to no entity the graph says is not a person (`instance of: country`) and names none as its own relative,
# reads a relative the graph gives only by name as not the namesake entity of that name ("he had Kim Jong-il (born in
# 1941 …)" against an athlete born in 1962), a family word only with a family word's ending ("Song-ju" is no "son"),
# "the son of V" where the graph holds both a father and a son V as the father, the clause after "the wife of X, born
# …" as possibly hers, a phrase that denies a relation ("died childless") as said of whoever holds it, a date after
# words of elapsed time ("died … a few days later, in November 1072"), a wider cue of another held relation ("doctoral
# students" citing `student`) as partly supporting, and a held value wider than the cited one by a word before it ("a
# stage actor" citing `field of work: acting`) as held but not cited; 15 reads a date written month first ("March 25,
# 2006") as a date a held one contradicts, no place as born ("a politician from Rhode Island, born on V"), a value in
# another clause than its cue's as not the cue's (a relative's: "two daughters who died in infancy", "had a son, born
# in 2009", "his family died in V"; the cue's object's: "killed Domitian in 96"; another verb's: "born in 1977 and
# raised in Copenhagen"), a family word's sex where `child` or `sibling` is cited and the graph shown does not hold it
# ("Hidetada's daughter was Senhime") and "only" before a family word as claims, and a nation after another held value
# and "of" ("the monarch of French Annam") as not stating citizenship; 16 drops 15's claim of a family word's sex
# (four annotation passes accept "his son V" for `child`, two did not), and reads "his life ended/began" and a cue in a
# "where" clause after the value ("Tabriz, where he was born") as the relation's, a year after "around" less than two
# years off as no contradiction, a given name before "von" as another's name ("Hans-Georg von Friedeburg"), a pronoun
# whose sex fits none of the persons spoken of as the one named last before it, and "of the" before a nation; 17 lets
# a held value shield another only in the cue's own clause ("born … in New York City and raised largely in Montreal",
# "died in Paris …, and Toulouse honoured him"), reads no mention inside a date (the Freebase month February) and a
# nickname ("nicknamed 'Putzi'", "often called …") as the person's own name, "M, son of V" and "M (born V)" and "twins
# A and B, born V" as said of M, A and B (never of a place: "in Stockholm, the son of"), a nation or another spelling
# ("Grodno", "Nafplio") said for a place the graph cannot locate, and a hedged value ("probably in West Ham") as no
# contradiction, a forebear introduced by his trade ("the miner Wilhelm Lehmbruck") as no one's own relative,
# "throughout her life" and a count ("wrote many works") as claims, and "associated" as none; 18 reads a word for a
# parent, child, sibling or spouse where only `relative` is cited ("Enrico Letta's brother is Gianni Letta") and "most"
# as claims, a value after "influenced by" as an influence (citing `genre` or `movement`: partly supported), a value no
# mention holds as said of the person who opens the sentence ("Mustafa II, Ottoman sultan from 1695 to 1703, was born
# on V"), a decade ("born in the 1970s") as a date, "his son, who died in V" as the son's, a nation's adjective as no
# one's relative, and no place as the sentence's person a later pronoun refers to; 19 reads a person's alias of one
# word after another given name as that other's surname ("the son of Isaac Rousseau") and a name after a family word
# and another clause ("After his father left Geneva …, Rousseau"; "all of whom Rousseau") as no one's own relative,
# "the son and successor of V" as V's son, and a participle after a comma ("his tomb, described in V") as another
# clause; 20 reads years with their era ("8 BC", "AD 238", "the early 260s AD", "the 60s BC"), the graph's negative
# and zero-padded years as written ("-1000", "0023"; a year said with BC matches the held year numbered with or
# without a year 0), a parent named otherwise after "his father was", "her mother," as contradicted (the name sharing
# only the held parent's surname: "Giuseppe Castiglioni" for Giacomo), a name inside a longer name ("Pier Giacomo
# Castiglioni") as not that value, a possessor ("one of Liu Yuan's consorts") as no family word's object, a year said
# beside the held one ("around 1431 (some sources say 1433)") as an alternative, and a value in a clause opened by
# ", whom" as said of the name before it; 21 reads a parent named in a list ("His parents were X and Y", "He was a son
# of X") that shares no word with either held parent as contradicted, the family's name (which the person bears too)
# as telling no parent from another ("Thorvald Foss" for Christian August Steenfeldt-Foss), a range of years
# ("970–980", "309/308 BC") as holding the years between, a place after "near" as no value, a held place in lower
# case ("film") and an area the graph cannot locate as contradicting no place, a relative whose held name holds the
# name said ("Antonín Baťa starší") as no one's own relative, "-1300." at a sentence's end with its minus sign, and a
# place of death said for a cited citizenship as partly supporting it; 22 reads a year after "after" or "before" as a
# bound the held year may keep ("died sometime after 1565"), a word that modifies what follows ("a Roman senator") as
# no parent's name, a place the graph locates said where it holds another spelling it cannot locate ("Chengdu" for
# Chengtu) as that place, and "strangled", "beheaded", "poisoned", "put to death" as words for death; 23 reads a family
# word's sex where `child` or `sibling` is cited and the graph shown does not hold it ("Cao Pi's son was Cao Rui") as a
# claim again, absent (verifier 15's reading, which 16 dropped); 24 reads a nation after another relation's verb and a
# place preposition ("worked in Greece", "grew up in Cambodia", "born on May 25, 1972, India") as partly supporting a
# cited citizenship, a day and month said where the subject holds the year alone as partly supporting that year's
# citation and as no held date, a role noun that is a relation's cue ("a professor at", "the CEO of") as a claim of
# its own, and a century ("the early 13th century", "the late 4th or early 3rd century BC") as a date whose years a
# held year outside contradicts; 25 reads the answerer's talk about what it knows ("I don't have reliable information
# on his parents' names") as no claim, a bare number that is the held year ("killed in 459", held 0459) as no other
# date, and more nations by their adjectives (so that "born in Cambodia" holds the unlocated Udong); 26 reads the
# question's words as claims where the answer states them ("his father was a baritone", the question having asked of
# "his father's baritone voice"), words that frame a person's story ("career", "family background", "currently") as
# no claim, and a held value wider than the cited one by a word after it ("a Byzantine emperor", citing citizenship)
# as that value, uncited, unless the word is the cited relation's own cue ("a tennis player", citing `sport`); 27
# reads a life span after the name that opens a sentence ("Alessandro Marcello (1673 to 1747)") as the birth and death
# years, an item the graph names nowhere ("place of burial: Q311") as contradicting nothing, "known for", "famous for"
# and "best known" as evaluations (no longer cues of `genre`, `field of work`, `notable work`), "share" as talk, and
# "taught at X" as a role of its own beside `employer` (as "a professor at X" since 24); 28 reads "known as a X" as
# an evaluation (as "best known"), a relation's word before "of" a field or style ("a member of the performing arts")
# as no wording of it, and a group's kind between "the" and its held name ("the band Toto") as no claim; 29 reads a
# participle after a comma as another clause ("died in 1847, living in the Waldviertel"), "the mid-16th century BC" as
# a century, and "I'm", "not sure", "days", "dates" and "birthplace" in the answerer's talk as no claim; 30 reads
# "musician" as a role of its own, no longer a cue of `genre` ("an American country and rock musician"); 31 reads "the
# village of X" as the place X, a place followed by an area word ("the Moscow region") as an area that may hold the
# held town, and a sentence opening "If you mean …" as an aside about someone else: none of it contradicts; 32 reads
# a value denied in its own clause ("Charles was not a writer") as unsupported and contradicted (the triple's inverse),
# and "X, also a footballer, was born …" as said of X (an appositive opened by "also", from v26); 33 (from v27) reads
# part of a longer name as no vaguer value when its run of capitalised words has a word the value lacks ("Silanus" of
# "Marcus Junius Silanus"), a sentence opened by an article and lower-case words before its first name as that
# person's ("The best-known X, …, was the son of V"), and a relative the graph names as the person is named as not
# named by the person's own name ("his father was John Adams" against `father: William Adams` of William Adams); 34
# (from v24r, v26r, v28) reads "the son of X and his queen V" as V his queen (no parent weighed against the graph's),
# a person's one-word alias beside another capitalised word as part of another name ("Anna Magdalena Bach"), "If you
# meant …" as an aside whatever its values, a name between commas before a second appositive as the clause's subject
# ("His son, X, consul in 140 BC, died …"), a place sharing a word with the held one as no spelling of it ("San
# Anselmo"), "N years old" as an age, advice to check a source as talk, and a place's other name after "(now", ",
# then" as held as the place ("Bombay (now Mumbai)"); 35 (from v29) reads "If you instead mean …" as an aside, a
# building or part of a town the graph cannot place ("Henry Ford Hospital") as no other place than the held town, a
# place followed by ", <the held place in another spelling>" as inside it ("Wuxi, Jiangsu Province" for Kiangsu),
# "after contracting typhus" as the cause of death, and "honestly", "wouldn't want to guess" as talk; 36 (from v30)
# reads "do" as a name's connector ("Diante do Trono"), a day and month after a date of that month and year as that
# day ("died in December 1855, I believe on 19 December"), "X (modern Y)" with Y another spelling of the held place as
# that place, and "Assuming you mean <a name not the graph's person's>" as an aside; 37 (from ten v30 answers read by
# hand) reads "the son of X and his queen V" as V the subject's mother where the graph holds her so, and a held
# place named again after its old name ("Calcutta (now Kolkata)") as the place, not another name of itself; 38 (from
# v28-v31's sentences held by the passes, and v30's answers read by hand) reads a name of capitalised words with one
# word spelled one letter off ("Queen Ashi Kesang Choden Wangchuck", "Ramondina di Ventimiglia") as the held name,
# and the same one-letter test for a word of another name around a vaguer mention (it was difflib's 0.8 ratio at
# equal length: "Michal" for "Michał" still passes); 39 (from v32) reads the graph's containment of a said place by
# whole names: a held place inside another place's name ("Ancient Rome", "Los Angeles County") does not contain it;
# 40 (from v32, v33 and twenty of their answers read by hand) reads each word of a held compound occupation said
# alone as held ("singer, songwriter" of a singer-songwriter) and a capitalised pronoun's word inside a sentence
# before a capitalised word as a name ("He Yan's father was He Sheng"); 41 (from v34) counts a two-letter given name
# written with a capital when two names are weighed as maybe one person ("Cao Pi" is not the held Cao Shiliang).
VERIFIER_VERSION = "41"


class VerifierStore(Protocol):
    """What the verifier reads of a graph store (`kalma_graph.store.GraphStore` has it): the entities' names and
    aliases, every statement of the answer's subjects, and the entities of a place's name the answer says instead
    of a held one (where it lies decides a contradiction)."""

    def get_entities(self, entity_ids: Iterable[str]) -> Sequence[Any]: ...

    def one_hop_many(self, entity_ids: Iterable[str]) -> Mapping[str, Sequence[Any]]: ...

    def entities_by_name(self, name: str) -> Sequence[Any]: ...


class ScoreRefiner(Protocol):
    """Stage two, as the verifier calls it (`kalma_graph.verification.calibration.Calibrator` is one): refines the
    citation scores with a model."""

    def refine(self, answer: AnswerInput, check: AnswerCheck) -> AnswerCheck: ...

    def describe(self) -> dict[str, Any]: ...


class Verifier:
    """Graph-grounded checking of citations and claims. `store` (a `GraphStore`) is optional; `calibrator`
    (stage two, `kalma_graph.verification.calibration.Calibrator`) refines citation scores with a model."""

    def __init__(self, store: VerifierStore | None = None, *, calibrator: ScoreRefiner | None = None,
                 lexicon: Lexicon | None = None) -> None:
        self.store = store
        self.calibrator = calibrator
        self.lexicon = lexicon or load_lexicon()
        self.citations = 0
        self.seconds = 0.0

    def id(self) -> str:
        """`version:cues_sha256` (the code's version, the hash of every data file it reads): what `--cite verified`
        / `grounded` records, so that an evaluation by the same verifier can say it is self-scored."""
        return f"{VERIFIER_VERSION}:{self.lexicon.sha256}"

    def describe(self) -> dict[str, Any]:
        out = {"name": "kalma-graph verifier", "version": VERIFIER_VERSION, "stage": "structure",
               "cues_sha256": self.lexicon.sha256, "data": dict(self.lexicon.data_sha256),
               "store": getattr(self.store, "uri", None)}
        if self.calibrator is not None:
            out |= {"stage": "structure+model", "model": self.calibrator.describe()}
        return out

    def verify(self, answer: AnswerInput) -> AnswerCheck:
        started = time.perf_counter()
        entities = list(answer.entities)
        store_triples: dict[str, list[GraphTriple]] = {}
        if self.store is not None:
            entities, store_triples = self._from_store(answer)
            answer = answer.model_copy(update={"entities": entities})
        shown = answer.shown
        lookup = self._store_lookup if self.store is not None else shown_lookup(shown)
        names = self._store_entities if self.store is not None else None
        containers = LazyContainers(lambda: place_containers(shown, lookup, self.lexicon, names))
        said = SaidPlaces(self._store_places if self.store is not None else _shown_places(answer), lookup,
                          self.lexicon, names)
        check = verify_structure(answer, self.lexicon, store_triples, containers, said)
        if self.calibrator is not None:
            check = self.calibrator.refine(answer, check)
        check = check.model_copy(update={"verifier": self.describe()})
        self.citations += len(check.citations)
        self.seconds += time.perf_counter() - started
        return check

    def _from_store(self, answer: AnswerInput) -> tuple[list[GraphEntity], dict[str, list[GraphTriple]]]:
        assert self.store is not None  # verify() asks only when there is one
        subjects = list(dict.fromkeys(t.subject for t in answer.shown))
        ids = set(subjects) | {t.object_id for t in answer.shown if t.object_id}
        known = {e.id: e for e in answer.entities}
        for e in self.store.get_entities(sorted(ids)):
            mine = known.get(e.id)
            known[e.id] = GraphEntity(id=e.id, name=(mine.name if mine and mine.name else e.name),
                                      aliases=tuple(dict.fromkeys((*(mine.aliases if mine else ()), *e.aliases))))
        if answer.shown_is_store or not subjects:
            return list(known.values()), {}
        return list(known.values()), self._store_lookup(subjects)

    def _store_lookup(self, ids: list[str]) -> dict[str, list[GraphTriple]]:
        assert self.store is not None
        return {s: [graph_triple(t) for t in ts] for s, ts in self.store.one_hop_many(ids).items()}

    def _store_places(self, name: str) -> list[tuple[GraphEntity, str]]:
        assert self.store is not None
        return [(graph_entity(e), e.description or "") for e in self.store.entities_by_name(name)]

    def _store_entities(self, ids: list[str]) -> list[GraphEntity]:
        assert self.store is not None
        return [graph_entity(e) for e in self.store.get_entities(ids)]


def _shown_places(answer: AnswerInput) -> Callable[[str], list[tuple[GraphEntity, str]]]:
    """`SaidPlaces`' lookup without a store: the entities of that name among the graph shown, indexed on the first
    lookup (only a would-be contradicted place asks, which most answers never write)."""
    named: dict[str, dict[str, GraphEntity]] = {}

    def find(name: str) -> list[tuple[GraphEntity, str]]:
        if not named:
            for e in answer.entities:
                if e.name:
                    named.setdefault(fold(e.name), {})[e.id] = e
            for t in answer.shown:
                if t.object_id:
                    named.setdefault(fold(t.value), {}).setdefault(t.object_id,
                                                                   GraphEntity(id=t.object_id, name=t.value))
        return [(e, "") for e in named.get(fold(name), {}).values()]

    return find


def graph_triple(t: Any) -> GraphTriple:
    """A `store.base.Triple` or `records.TripleRecord` as the verifier reads it."""
    return GraphTriple(subject=t.subject, label=t.label, value=str(t.value), pid=getattr(t, "pid", "") or "",
                       object_id=getattr(t, "object_id", None), datatype=getattr(t, "datatype", None))


def graph_entity(e: Any) -> GraphEntity:
    """A `store.base.Entity` as the verifier reads it."""
    return GraphEntity(id=e.id, name=e.name, aliases=tuple(e.aliases))


def cited_sentences(sentences: Sequence[Any]) -> list[tuple[str, list[CitedTriple]]]:
    """Parsed sentences (`kg.citations.Sentence`: `clean_text`, `citations` with qid, prop, value) as
    the verifier's (text, cited triples) pairs."""
    return [(s.clean_text, [CitedTriple(subject=c.qid, relation=c.prop, value=c.value) for c in s.citations])
            for s in sentences]
