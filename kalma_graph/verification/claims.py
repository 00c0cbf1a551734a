"""Each sentence's claims and their status against the graph, and the answer-level walk that carries who
the answer is talking about from one sentence to the next (pronouns, "the two")."""

from __future__ import annotations

import re
from dataclasses import replace
from difflib import SequenceMatcher
from typing import Mapping, Sequence

from kalma_graph.kg.knowledge import is_unlabelled

from .lexicon import Lexicon, RelationCues, load_lexicon
from .namesakes import namesakes
from .places import SaidPlaces, spelled_alike
from .records import (
    AnswerCheck,
    AnswerInput,
    CitedTriple,
    Claim,
    ClaimStatus,
    GraphTriple,
    SentenceCheck,
    evidence_text,
    evidence_triple,
)
from .structure import (
    DENIES,
    MAX_SENTENCE_CHARS,
    SCORE,
    Context,
    GraphView,
    Mention,
    _cue_spans,
    apposed_participle,
    check_citation,
    demonym_words,
    entity_mentions,
    holders,
    joined,
    life_span,
    life_span_opening,
    name_mentions,
    opens_clause,
    pronoun_mentions,
)
from .text import (
    DateValue,
    Token,
    covered,
    dates_in,
    decade_of,
    find_phrase,
    find_stem,
    fold,
    number_of,
    numbers_in,
    parse_iso_date,
    phrase,
    span_text,
    spans_overlap,
    tokenize,
)


def _resolve(tokens: Sequence[Token], mentions: list[Mention], focus: list[str], group: list[str], recent: list[str],
             view: GraphView, said: dict[str, str], lexicon: Lexicon) -> list[Mention]:
    """Pronouns refer to the person the sentence is evidently about: the first person named earlier in
    this sentence, else the one the previous sentences were about (a `he` skips a person the graph says is
    female, and the other way round); plural ones to the persons named together last. A sentence that opens
    with a name the graph does not hold, as its subject, is about that person ("Marc Isambard Brunel is best
    known for his work on V", in an answer about his son): its pronouns name nobody of the graph."""
    out = []
    first_subject = None
    opener = mentions[0] if mentions else None
    stranger = (opener is not None and opener.kind == "name" and opener.start == 0 and opener.end - opener.start >= 2
                and opens_clause(tokens, opener.end, lexicon))
    for m in mentions:
        if m.kind == "entity" and m.subject and first_subject is None and not _owned_relative(tokens, m, lexicon):
            first_subject = m.ids[0]
        if m.kind != "pronoun":
            out.append(m)
            continue
        word = m.text.casefold()
        if word in lexicon.singular_pronouns and stranger:
            ids: tuple[str, ...] = ()
        elif word in lexicon.singular_pronouns:
            candidates = list(dict.fromkeys([*([first_subject] if first_subject else []), *focus, *recent]))
            gender = lexicon.pronoun_gender.get(word)
            fitting = [c for c in candidates if (view.gender(c) or said.get(c)) in (None, gender)
                       and not view.not_person(c)]  # "After treatment in Germany …, he died": not Germany
            ids = tuple(fitting[:1]) if fitting else _named_before(m, out, view, said, gender, candidates)
            if ids and gender and ids[0] not in said and view.gender(ids[0]) is None:
                said[ids[0]] = gender  # the answer called this person "she": a later "he" is someone else
        else:
            ids = tuple(group) if len(group) > 1 else tuple(focus[:1])
        out.append(Mention(m.start, m.end, "pronoun", ids, m.text, True))
    return out


def _owned_relative(tokens: Sequence[Token], m: Mention, lexicon: Lexicon) -> bool:
    """The mention is named as someone's relative: "His father was John VII Palaiologos, who …, and his mother was
    V" (a family word owned by a possessive, then at most a copula, a comma, an article and a trade): not whom the
    sentence's later pronouns refer to."""
    for k in range(m.start - 1, max(m.start - 6, 0), -1):
        t = tokens[k]
        if t.word and lexicon.kin_class_of(t.norm):
            return k > 0 and (tokens[k - 1].possessive or tokens[k - 1].norm in lexicon.possessive_pronouns)
        if t.word and (t.capital or t.norm == "of"):
            return False
    return False


def _named(tokens: Sequence[Token], mentions: list[Mention], dates: Sequence[tuple[int, int, DateValue]],
           lexicon: Lexicon) -> list[Mention]:
    """The mentions that name someone or something, in text order: not a month inside a date ("born on 2 February
    1887", where a Freebase graph holds the month February as an entity), nor a nickname ("Ernst Hanfstaengl,
    nicknamed 'Putzi', was born …": Putzi is he, and holds nothing of his own)."""
    in_dates = covered((a, b) for a, b, _ in dates)
    return sorted((m for m in mentions if not (m.kind != "pronoun" and m.start in in_dates)
                   and not (m.kind == "name" and m.start > 0 and tokens[m.start - 1].norm in lexicon.nickname_words)),
                  key=lambda m: m.start)


def _named_before(pronoun: Mention, before: Sequence[Mention], view: GraphView, said: dict[str, str],
                  gender: str | None, candidates: Sequence[str]) -> tuple[str, ...]:
    """Whom a pronoun that fits none of the persons spoken of refers to: the last one named before it in the sentence
    that its sex does not exclude ("Mallika Sarabhai's father, Vikram Sarabhai, … earned his MBA": Vikram; a name
    the graph does not hold: nobody of the graph); failing that, the first person spoken of, as before."""
    for m in reversed(before):
        if m.start >= pronoun.start or m.kind == "pronoun" or m.thing:
            continue
        if m.kind == "name":
            return ()
        if m.ids and (view.gender(m.ids[0]) or said.get(m.ids[0])) in (None, gender) and not view.not_person(m.ids[0]):
            return m.ids[:1]
    return tuple(candidates[:1])


def verify_structure(answer: AnswerInput, lexicon: Lexicon | None = None,
                     store_triples: dict[str, list[GraphTriple]] | None = None,
                     containers: Mapping[str, frozenset[str]] | None = None,
                     said_places: SaidPlaces | None = None) -> AnswerCheck:
    """Stage one over a whole answer. `store_triples` (subject id → every statement the store holds for
    it) widens what counts as held or contradicted beyond the graph shown to the model; `containers`
    (`places.place_containers`) says where the places the answer may name lie, `said_places` where the places it
    names instead of a held one lie."""
    lexicon = lexicon or load_lexicon()
    view = GraphView.build(answer.shown, answer.entities, lexicon)
    object_ids = {(t.subject, fold(t.label), fold(t.value)): t.object_id for t in answer.shown}  # the shown triples
    question_tokens = tokenize(answer.question)
    question_words = frozenset(t.norm for t in question_tokens if t.word)
    asked_of = entity_mentions(question_tokens, view)
    group = list(dict.fromkeys(m.ids[0] for m in asked_of if m.subject))
    namesake = namesakes(question_tokens, asked_of, view, lexicon)
    focus = group[:1] or view.subjects[:1]
    recent = list(group)
    said: dict[str, str] = {}
    sentences = []
    for position, (text, cited) in enumerate(answer.sentences):
        tokens = tokenize(text[:MAX_SENTENCE_CHARS])
        found = entity_mentions(tokens, view, prefer=[*focus, *recent])
        taken = covered((m.start, m.end) for m in found)
        # "took his own life" is a value's wording (`value_phrases`): its "his" names nobody new
        in_phrases = covered(span for wordings in lexicon.value_phrases.values() for w in wordings
                             for span in find_phrase(tokens, phrase(w)))
        pronouns = [m for m in pronoun_mentions(tokens, taken, lexicon) if m.start not in in_phrases]
        taken |= covered((m.start, m.end) for m in pronouns)
        names = name_mentions(tokens, taken, lexicon)
        dates = dates_in(tokens, lexicon.month_index, (lexicon.short_year_before, lexicon.short_year_after),
                         (lexicon.era_bc_words, lexicon.era_ad_words), lexicon.centuries)
        named = _named(tokens, found + pronouns + names, dates, lexicon)
        mentions = [replace(m, thing=True) if m.kind == "entity" and m.ids and all(view.not_person(i) for i in m.ids)
                    else m for m in _resolve(tokens, named, focus, group, recent, view, said, lexicon)]
        ctx = Context(tokens, mentions, view, lexicon, dates, question_words,
                      containers=containers if containers is not None else {}, namesakes=namesake,
                      said_places=said_places)
        checks, accounted, values = [], [], []
        for c in cited:
            key = (c.subject, fold(c.relation), fold(c.value))
            check, spans = check_citation(ctx, c, key in object_ids, object_ids.get(key))
            if c.subject in namesake and check.verdict != "unsupported":  # said of the one asked of, held by another
                check, spans = check.model_copy(update={"verdict": "unsupported", "outcome": "unsupported_bystander",
                                                        "score": SCORE["unsupported_bystander"],
                                                        "reason": namesake[c.subject]}), []
            if not check.in_graph:
                check = check.model_copy(update={"reason": check.reason + "; the triple is not in the graph shown"})
            checks.append(check)
            if check.verdict == "supported":
                accounted += spans
                values.append((spans[0] if spans else None, c))
        claims = sentence_claims(ctx, values, accounted, store_triples or {})
        about = list(dict.fromkeys(i for m in mentions if m.subject for i in m.ids))
        sentences.append(SentenceCheck(position=position, text=text, citations=checks, claims=claims,
                                       fully_supported=all(c.status == "supported" for c in claims)
                                       and bool(text.strip()),
                                       about=about))
        subjects_here = [m.ids[0] for m in mentions if m.kind == "entity" and m.subject]
        leading = next((m for m in mentions if m.subject and not m.thing), None)
        if leading is not None and leading.ids:  # the sentence's first person, no place (a pronoun keeps the focus)
            focus = [leading.ids[0]]
        recent = list(dict.fromkeys([*subjects_here, *recent]))
        if len(set(subjects_here)) > 1:
            group = list(dict.fromkeys(subjects_here))
    return AnswerCheck(id=answer.id, question=answer.question, sentences=sentences)


class _UncitedJudge:
    """Whether the graph holds what a span of the sentence states, and in which direction: the check a citation
    of each triple of the persons spoken of would get (computed once per triple)."""

    def __init__(self, ctx: Context, values: Sequence[tuple[tuple[int, int] | None, CitedTriple]],
                 store_triples: dict[str, list[GraphTriple]]) -> None:
        self.ctx, self.values, self.store_triples = ctx, values, store_triples
        self.judged: dict[tuple[str, str, str], tuple[str, list, str, str]] = {}

    def triples(self, sid: str) -> list[GraphTriple]:
        if sid in self.ctx.namesakes:  # a namesake's triples hold nothing about the person asked of
            return []
        return _triples_of(self.ctx, self.store_triples, sid)

    def judge(self, t: GraphTriple) -> tuple[str, list, str, str]:
        """The check a citation of the uncited triple `t` would get: verdict, spans, outcome, reason."""
        key = (t.subject, t.label, t.value)
        if key not in self.judged:
            check, spans = check_citation(self.ctx, CitedTriple(subject=t.subject, relation=t.label, value=t.value),
                                          True, t.object_id)
            self.judged[key] = (check.verdict, spans, check.outcome, check.reason)
        return self.judged[key]

    def held_by(self, span: tuple[int, int], who: set[str]) -> tuple[ClaimStatus, GraphTriple | None]:
        overlapping = [(v, c) for v, c in self.values if v is not None and spans_overlap(v, span)]
        cited = GraphTriple(subject=overlapping[0][1].subject, label=overlapping[0][1].relation,
                            value=overlapping[0][1].value) if overlapping else None
        # a held value wider than the cited one, by a word before or after it, is that value, not the cited one: "a
        # stage actor", citing `field of work: acting`; "a Byzantine emperor", citing `country of citizenship:
        # Byzantine Empire` (v17); unless the words beyond are the cited relation's own cue: "an ice hockey player",
        # citing `sport: ice hockey`, though the graph holds `occupation: ice hockey player` too (v5)
        beyond = set(range(*span)) - covered(v for v, _ in overlapping)
        if cited is not None and (not beyond or all(
                self.ctx.tokens[k].norm.startswith(_cue_stems_of(self.ctx.lexicon, {cited.label})) for k in beyond)):
            return "supported", cited
        uncited = None
        for sid in sorted(who or set(self.ctx.view.subjects)):  # sorted: the same evidence in every process
            for t in self.triples(sid):
                verdict, spans, _, _ = self.judge(t)
                if t.label != "name" and verdict == "supported" and self._names_value_at(t, spans, span):
                    if cited is None:
                        return "supported_uncited", t
                    if spans[0] == span:  # "a stage actor", citing `field of work: acting`: held wider, not cited
                        uncited = t
        if uncited is not None:
            return "supported_uncited", uncited
        return ("supported", cited) if cited is not None else ("absent", None)

    def _names_value_at(self, t: GraphTriple, spans: list, span: tuple[int, int]) -> bool:
        """`span` is where the judged value `t` is said (its check's first span), or another part of a compound value
        ("singer, songwriter" of a held singer-songwriter: each word its own hit, the check keeps one)."""
        return any(spans_overlap(x, span) for x in spans[:1]) or any(
            h.how == "part" and spans_overlap(h.span, span) for h in self.ctx.hits(t.value, t.object_id))

    def holds_at(self, span: tuple[int, int], who: set[str]) -> GraphTriple | None:
        """A triple of `who` whose value is named at `span`, whoever the sentence says it of."""
        return next((t for sid in sorted(who) for t in self.triples(sid) if t.label != "name"
                     and any(spans_overlap(h.span, span) for h in self.ctx.hits(t.value, t.object_id)
                             if h.how not in ("vaguer", "date_wrong", "date_year"))), None)

    def held_back(self, span: tuple[int, int], who: set[str]) -> GraphTriple | None:
        """A family triple of the person named at `span` whose value is one of `who`, which the sentence states
        ("Osorkon II was the father of Takelot II" where the graph holds Takelot II `father: Osorkon II`)."""
        named = {i for m in self.ctx.mentions if m.kind == "entity" and (m.start, m.end) == span for i in m.ids}
        lex, view = self.ctx.lexicon, self.ctx.view
        for sid in sorted(named):
            for t in self.triples(sid):
                if lex.relation(t.label).kin and (t.object_id in who or any(fold(t.value) == fold(view.label(w))
                                                                               for w in who)) \
                        and self.judge(t)[0] == "supported":
                    return t
        return None

    def outweighing_inversion(self, span: tuple[int, int], who: set[str],
                              held: GraphTriple | None) -> GraphTriple | None:
        """An inversion of the value named in full at `span` (`inverted`) that outweighs the other relation the
        graph holds it in: "He was the father of Tokugawa Ieyasu", where the graph holds both `relative: Tokugawa
        Ieyasu` and `father: Tokugawa Ieyasu` for him, inverts the father."""
        if held is None or self.ctx.lexicon.relation(held.label).kin not in (None, "relative"):
            return None  # "the son of General Raffaele Cadorna", held as his father and as his son of that name
        flipped = self.inverted(span, who)
        if flipped is None or flipped.label == held.label:
            return None
        return flipped if find_phrase(self.ctx.tokens[span[0]:span[1]], phrase(flipped.value)) else None

    def inverted(self, span: tuple[int, int], who: set[str]) -> GraphTriple | None:
        """A triple of `who` whose value is named at `span` in the inverse direction: "He was the father of
        Jerry Lawler" where the graph holds `father: Jerry Lawler` for him."""
        for sid in sorted(who):
            for t in self.triples(sid):
                # named in full: "Anne Isabella", a daughter, is not her mother Anne Isabella Byron
                # nor inside a longer name: "Pier Giacomo Castiglioni", a son, is not his father Giacomo Castiglioni
                if any(spans_overlap(h.span, span) and not _inside_longer_name(self.ctx, h.span)
                       for h in self.ctx.hits(t.value, t.object_id) if h.how != "vaguer") \
                        and self.judge(t)[2] == "unsupported_inverted":
                    return t
        return None


def sentence_claims(ctx: Context, values: Sequence[tuple[tuple[int, int] | None, CitedTriple]],
                    accounted: list[tuple[int, int]], store_triples: dict[str, list[GraphTriple]]) -> list[Claim]:
    """What the sentence states beyond naming who it is about, each with its status. `values` are the
    value spans of the citations judged supported."""
    tokens, view = ctx.tokens, ctx.view
    # who the sentence is about: the persons named (or pronouns) before its first verb-like word, joined by "and"
    leading = _leading_group(ctx)
    cited_subjects = {c.subject for _, c in values}
    subject_spans = [(m.start, m.end) for m in ctx.mentions
                     if m.kind == "pronoun" or (m.subject and (m in leading or set(m.ids) & cited_subjects))]
    claims: list[Claim] = []
    used: set[int] = covered(subject_spans)

    graph = _UncitedJudge(ctx, values, store_triples)
    held_spans: list[tuple[tuple[int, int], str | None]] = []  # the values judged held, cited or not; their relation
    # the held places the sentence names (value span, place name): "St. Louis, Missouri" names where it lies
    places: list[tuple[tuple[int, int], str, ClaimStatus]] = [(s, c.value, "supported") for s, c in values
              if s is not None and ctx.lexicon.is_place_relation(c.relation)]

    def add(span: tuple[int, int], kind: str) -> None:
        if any(k in used for k in range(*span)):
            return
        found, _ = holders(tokens, [m for m in ctx.mentions if not spans_overlap((m.start, m.end), span)], span,
                           ctx.lexicon)
        who, status, evidence = _held_of_whom(ctx, graph, span, found, leading)
        text = span_text(tokens, span).rstrip(".")
        reason = ""
        own = _own_relative(ctx, span, found)
        lies_in = (_lies_in(ctx, span, text, places) or _renamed_as(ctx, graph, span, who)) \
            if status == "absent" else None
        if own is not None:  # held for the others of the group, never for the person named as their own relative
            status, evidence, reason = "contradicted", None, f"names {own} as {own}'s own relative"
        elif lies_in is not None:  # as held as the place it says where of: cited, or held uncited
            place, held, renamed = lies_in
            places.append((span, place, held))  # "Memphis, Tennessee, United States"
            used.update(range(*span))
            claims.append(_place_claim(text, kind, place, held, renamed))
            return
        elif status == "absent":
            status, evidence, reason = _unheld(ctx, graph, store_triples, span, who,
                                               max((m.end for m in found), default=0))
            back = graph.held_back(span, who) if status == "absent" and kind == "name" else None
            if back is not None:  # "Osorkon II was the father of Takelot II": Takelot II's own `father` says so
                status, evidence, reason = "supported_uncited", back, "held by the graph but not cited"
            elif status == "absent" and kind == "name" and all(w in ctx.question_words for w in phrase(text)) \
                    and not _kin_before(ctx, span):
                return  # a name the question itself gives: restating the premise (not "the father of" it)
        elif status == "supported_uncited" and (flipped := graph.outweighing_inversion(span, who, evidence)):
            status, evidence, reason = "contradicted", flipped, _inversion(view, flipped, graph.judge(flipped)[3])
        elif status == "supported_uncited":
            reason = "held by the graph but not cited"
            if evidence is not None and ctx.lexicon.is_place_relation(evidence.label):
                places.append((span, evidence.value, "supported_uncited"))
        used.update(range(*span))
        if status.startswith("supported"):
            held_spans.append((span, evidence.label if evidence else None))
        claims.append(Claim(text=text, kind=kind, about=next(iter(who)) if len(who) == 1 else None,
                            relation=evidence.label if evidence else None, status=status,
                            evidence=evidence_text(evidence.subject, evidence.label, evidence.value)
                            if evidence else None,
                            reason=reason))

    claims += _ages(ctx, leading, graph, values, used)  # "died in 2007 at the age of 102": from the two dates
    for span, kind in _claim_spans(ctx, values, leading):
        add(span, kind)
    used |= covered(accounted)
    claims += _family_word_sex(ctx, used)
    claims += _compared(ctx, claims, graph)
    claims += _said_of_group(ctx, claims, graph, leading)
    denials = _denials(ctx, leading, graph, used)  # before `_ordinals`: "an only child" denies siblings
    claims += _ordinals(ctx, values, held_spans, used) + denials + _counts(ctx, values, used)
    claims += _closer_than_relative(ctx, values)
    used |= _implied(ctx, values)  # "an Anglican Christian": "Christian" is said by Anglicanism
    used |= _relation_words(ctx, values)  # "notable works include V" names the relation: "notable" judges nothing
    claims += _evaluations(ctx, used)
    return claims + _leftover_words(ctx, used, values, claims,
                                    held_spans + [(s, c.relation) for s, c in values if s is not None])


def _triples_of(ctx: Context, store_triples: dict[str, list[GraphTriple]], sid: str) -> list[GraphTriple]:
    """A subject's statements: those shown with the answer, then those the store adds."""
    return list(ctx.view.by_subject.get(sid, ())) + list(store_triples.get(sid, ()))


def _unheld(ctx: Context, graph: "_UncitedJudge", store_triples: dict[str, list[GraphTriple]],
            span: tuple[int, int], who: set[str], lo: int) -> tuple[ClaimStatus, GraphTriple | None, str]:
    """A value no triple of `who` holds: contradicted where the graph holds another value of a single-valued
    relation cued before it, or holds it the other way round; absent otherwise. Status, evidence, reason."""
    view = ctx.view
    if _aside_about_another(ctx):  # "If you meant Faustina the Younger, her parents were V": nothing here (v28)
        return "absent", None, "an aside about someone the asker may mean"
    bad = _contradiction(ctx, store_triples, span, who, lo) or _another_parent(ctx, store_triples, span, who)
    if bad is not None:
        return "contradicted", bad, f"the graph holds {bad.label}: {bad.value} for {view.label(bad.subject)}"
    flipped = graph.inverted(span, who)
    if flipped is not None:
        return "contradicted", flipped, _inversion(view, flipped, graph.judge(flipped)[3])
    return "absent", None, ("the graph shown holds no such statement"
                            + (f" about {', '.join(view.label(i) for i in sorted(who))}" if who else ""))


def _held_of_whom(ctx: Context, graph: "_UncitedJudge", span: tuple[int, int], found: Sequence[Mention],
                  leading: Sequence[Mention]) -> tuple[set[str], ClaimStatus, GraphTriple | None]:
    """Whom the value at `span` is said of (the entities of `found`, the holders), and whether the graph holds it
    for them: (ids, "supported_uncited" / "supported" / "absent", evidence)."""
    who = {i for m in found if not _relative_of_that_name(ctx, m) for i in m.ids}
    status, evidence = graph.held_by(span, who)
    if status == "absent" and _head_of_of(ctx, found):  # "the first wife of Albert Einstein, born on V": hers
        who = {i for m in leading for i in m.ids}
        evidence = graph.holds_at(span, who)
        status = "supported_uncited" if evidence is not None else "absent"
    elif status == "absent" and _parents_cue(ctx, span, spouse_of_parent=True):
        # "the son of Stellan Skarsgård and his first wife, My Skarsgård": his wife and the subject's mother (v30)
        subject = {i for m in leading for i in m.ids}
        parent = graph.holds_at(span, subject)
        if parent is not None and ctx.lexicon.relation(parent.label).kin == "parent":
            return subject, "supported_uncited", parent
    return who, status, evidence


def _head_of_of(ctx: Context, found: Sequence[Mention]) -> bool:
    """The holder found is the object of a family word's "of" ("the first wife of Albert Einstein, born on V"): the
    clause after it may be said of the family word's person, who opens the sentence, as well."""
    if len(found) != 1 or found[0].start < 2:
        return False
    tokens = ctx.tokens
    return tokens[found[0].start - 1].norm == "of" and ctx.lexicon.kin_class_of(tokens[found[0].start - 2].norm) \
        is not None


def _family_word_sex(ctx: Context, used: set[int]) -> list[Claim]:
    """The sex a family word says, where a supported citation's check found the graph says another ("the daughter of",
    said of a man): contradicted; and one where the graph shown does not say the sex ("Cao Pi's son was Cao Rui",
    citing `child`): absent (verifier 23: the passes of v7, v14 and v16 label it so, those of v2, v4 and v8 did not);
    marks them used."""
    out = []
    for span, evidence, reason in ctx.wrong:
        used.update(range(*span))
        out.append(Claim(text=span_text(ctx.tokens, span), kind="words", status="contradicted", evidence=evidence,
                         reason=reason))
    for span, reason in ctx.unsaid:
        used.update(range(*span))
        out.append(Claim(text=span_text(ctx.tokens, span), kind="words", status="absent", reason=reason))
    return out


def _relative_of_that_name(ctx: Context, m: Mention) -> bool:
    """The mention names a relative that a person of the answer holds under this name, and the graph's entity of
    that name is someone else: the relation's value is another item, or a bare name while the entity names no
    relative in that person ("with whom he had Kim Jong-il (born in 1941 …)": Kim Il-sung's `child` is the name
    "Kim Jong-il", the graph's entity of that name an athlete born in 1962). What the answer says of the relative
    is not said of the namesake."""
    if m.kind != "entity":
        return False
    view, lex = ctx.view, ctx.lexicon
    for sid, t in view.kin_named(phrase(m.text), lex):
        if sid in m.ids or t.object_id in m.ids:
            continue
        if t.object_id or not any(lex.relation(k.label).kin and (k.object_id == sid or phrase(k.value)
                                  == phrase(view.label(sid))) for i in m.ids for k in view.by_subject.get(i, ())):
            return True
    return False


def _inside_longer_name(ctx: Context, span: tuple[int, int]) -> bool:
    """A name the graph does not know holds the span and starts before it ("Pier Giacomo Castiglioni" holds
    "Giacomo Castiglioni"): the span is part of another person's name."""
    return any(m.kind == "name" and m.start < span[0] and span[1] <= m.end for m in ctx.mentions)


def _kin_before(ctx: Context, span: tuple[int, int]) -> bool:
    """A family word just before the name ("the father of X", "his son, X"): the sentence relates X to someone."""
    return any(ctx.lexicon.kin_class_of(t.norm) for t in ctx.tokens[max(0, span[0] - 3):span[0]])


def _inversion(view: GraphView, t: GraphTriple, why: str) -> str:
    """The reason of a claim the graph holds the other way round, or denied ("was not a writer")."""
    verb = "denies" if why.startswith(DENIES) else "inverts"
    return f"the sentence {verb} the graph's {t.label}: {t.value} of {view.label(t.subject)}"


def _lies_in(ctx: Context, span: tuple[int, int], text: str,
             places: Sequence[tuple[tuple[int, int], str, ClaimStatus]]) -> tuple[str, ClaimStatus, bool] | None:
    """The held place that `span` names the whereabouts of, or another name of, and how it is held: right after
    "<place>," (or "<place> (…),") and one of the places the graph says contain it (`Context.containers`); or right
    after "<place> (now", "<place>, then" (`Lexicon.rename_words`): "Bombay (now Mumbai)", "Mumbai (then Bombay)",
    which the passes of v24r and v28, shown the containment, hold. (place, held, renamed), else None."""
    tokens, start = ctx.tokens, span[0]
    if start >= 2 and _renaming_at(ctx, start - 2):
        return next(((place, held, True) for (_, end), place, held in places if end == start - 2), None)
    if start < 1 or tokens[start - 1].text != ",":
        return None
    end_at = start - 1
    if end_at > 0 and tokens[end_at - 1].text == ")":  # "Mumbai (then Bombay), India": past the parenthesis
        end_at = next((k for k in range(end_at - 2, max(end_at - 8, -1), -1) if tokens[k].text == "("), end_at)
    for (_, end), place, held in places:
        if end == end_at and fold(text) in ctx.containers.get(fold(place), ()):
            return place, held, False
    return None


def _renaming_at(ctx: Context, k: int) -> bool:
    """A bracket or comma at `k` and a word giving a place's other name after it ("(now", ", then":
    `Lexicon.rename_words`)."""
    return k + 1 < len(ctx.tokens) and ctx.tokens[k].text in ("(", ",") \
        and ctx.tokens[k + 1].norm in ctx.lexicon.rename_words


def _place_claim(text: str, kind: str, place: str, held: ClaimStatus, renamed: bool) -> Claim:
    """The claim of a name that says where a held place lies, or names it otherwise (`_lies_in`, `_renamed_as`)."""
    if renamed and fold(text) == fold(place):  # "Calcutta (now Kolkata)", the graph's Kolkata: named again
        return Claim(text=text, kind=kind, relation="other name", status=held, evidence=place,
                     reason=f"names {place} again, by its held name")
    how = "other name" if renamed else "located in"
    return Claim(text=text, kind=kind, relation=how, status=held, evidence=f"{place}, {how}: {text}",
                 reason=f"names {place} as it was or is called" if renamed
                 else f"names where {place} lies (the graph's containment)")


def _renamed_as(ctx: Context, graph: "_UncitedJudge", span: tuple[int, int],
                who: set[str]) -> tuple[str, ClaimStatus, bool] | None:
    """The held place named right after `span` as its other name ("born in Bombay, now Mumbai", where the graph
    holds Mumbai), as `_lies_in` returns it; else None."""
    k = span[1]
    if not _renaming_at(ctx, k):
        return None
    for m in ctx.mentions:
        if m.start == k + 2:
            status, held = graph.held_by((m.start, m.end), who)
            if held is not None and status != "absent" and ctx.lexicon.is_place_relation(held.label):
                return held.value, status, True
    return None


def _compared(ctx: Context, claims: Sequence[Claim], graph: "_UncitedJudge") -> list[Claim]:
    """"Like his father Kim Il-sung, Kim Jong-un received the title Hero of the Republic" states the held values
    of the sentence's subject of the person compared too: each such value the graph does not hold for that person
    is a claim of its own, absent (contradicted where the relation is single-valued and the graph holds another
    value)."""
    tokens = ctx.tokens
    if not tokens or tokens[0].norm != "like":
        return []
    comma = next((i for i, t in enumerate(tokens) if t.text == ","), len(tokens))
    compared = next((m for m in ctx.mentions if m.kind == "entity" and 0 < m.start < comma and m.ids), None)
    if compared is None:
        return []
    other = compared.ids[0]
    held = {(fold(t.label), fold(t.value)) for t in graph.triples(other)}
    opening = span_text(tokens, (0, comma))  # "Like his father Kim Jong-il": what it says is not compared
    out = []
    for claim in claims:
        if claim.status not in ("supported", "supported_uncited") or not claim.relation or claim.about == other \
                or claim.text in opening:
            continue
        triple = evidence_triple(claim.evidence)
        value = triple[2] if triple else claim.text
        if (fold(claim.relation), fold(value)) in held:
            continue
        single = ctx.lexicon.relation(claim.relation).single and any(fold(t.label) == fold(claim.relation)
                                                                       for t in graph.triples(other))
        out.append(Claim(text=f"{compared.text}: {claim.text}", kind="relation", about=other, relation=claim.relation,
                         status="contradicted" if single else "absent",
                         reason=f"'Like {compared.text}' says {claim.relation} '{value}' of "
                                f"{ctx.view.label(other)} too, which the graph does not hold"))
    return out


def _said_of_group(ctx: Context, claims: Sequence[Claim], graph: "_UncitedJudge",
                   leading: Sequence[Mention]) -> list[Claim]:
    """"Kim Jong-un and Kim Jong-il were the children of Kim Il-sung" says the value of every person of the group
    that opens the sentence: a value held for one of them is, for each other, a claim of its own, absent where the
    graph holds it neither for that person nor the inverse way (contradicted where the relation is single-valued
    and the graph holds another value). A value naming one of the group ("A and B were siblings") and a sentence
    pairing values one by one ("respectively") are left alone."""
    group = list(dict.fromkeys(m.ids[0] for m in leading if m.kind == "entity" and m.ids))
    if len(group) < 2 or any(t.norm in ctx.lexicon.distributive_words for t in ctx.tokens):
        return []
    names = {fold(ctx.view.label(i)) for i in group}
    out = []
    for claim in claims:
        triple = evidence_triple(claim.evidence)
        if claim.status not in ("supported", "supported_uncited") or triple is None or triple[0] not in group \
                or fold(triple[2]) in names:
            continue
        holder, label, value = triple
        target = next((t.object_id for t in graph.triples(holder)
                       if (fold(t.label), fold(t.value)) == (fold(label), fold(value)) and t.object_id), None)
        for other in group:
            if other == holder:
                continue
            own = graph.triples(other)
            if any((fold(t.label), fold(t.value)) == (fold(label), fold(value)) for t in own):
                continue
            if target is not None and any(fold(t.value) == fold(ctx.view.label(other)) or t.object_id == other
                                          for t in graph.triples(target)):
                continue  # held the inverse way: the value's own statement names the other person
            single = ctx.lexicon.relation(label).single and any(fold(t.label) == fold(label) for t in own)
            out.append(Claim(text=f"{ctx.view.label(other)}: {claim.text}", kind="relation", about=other,
                             relation=label, status="contradicted" if single else "absent",
                             reason=f"said of {ctx.view.label(other)} too, with {ctx.view.label(holder)}, as "
                                    f"{label} '{value}', which the graph does not hold for "
                                    f"{ctx.view.label(other)}"))
    return out


def _own_relative(ctx: Context, span: tuple[int, int], found: Sequence[Mention]) -> str | None:
    """A person named both among those a family word is said of and as its object: "Tokugawa Iemitsu and
    Tokugawa Ietsuna were the sons of Tokugawa Iemitsu", "He was the father of Walter Huston" in an answer about
    him. The person's name, or None. Named in full (or as "he", "she"): a surname alone is a relative's ("with his
    father Lionel Penrose … the Moore–Penrose pseudoinverse"), and a grandparent, uncle or cousin of a possessive
    pronoun's person may bear that person's name ("named after his grandfather … Lord Randolph Churchill")."""
    # no nation is anyone's relative: "the invasion of Poland", "professor of German literature"
    named = {i for m in ctx.mentions if m.kind == "entity" and spans_overlap((m.start, m.end), span)
             and _in_full(ctx.view, m) and fold(m.text) not in demonym_words(ctx.lexicon)
             for i in m.ids if not ctx.view.not_person(i)}
    holders_ids = {i for m in found if (m.kind == "entity" and _in_full(ctx.view, m))
                   or m.text.casefold() in ctx.lexicon.subject_pronouns for i in m.ids}
    same = named & holders_ids
    if not same or not found or ctx.tokens[span[1] - 1].possessive:
        return None  # "his mother was Lady Zhang, one of Liu Yuan's consorts": a possessor is no family word's object
    said = phrase(span_text(ctx.tokens, span))
    if any(ctx.lexicon.relation(t.label).kin and set(said) <= set(phrase(t.value)) for i in same
           for t in ctx.view.by_subject.get(i, ())):
        # a relative of that name the graph holds ("his father was the poet Allan Ramsay"; "His father was Antonín
        # Baťa" where it holds Antonín Baťa starší, "the elder")
        return None
    lo = max(m.end for m in found)
    kin = [k for k in range(lo, span[0]) if ctx.tokens[k].word and ctx.lexicon.kin_class_of(ctx.tokens[k].norm)]
    if not kin:
        return None
    before = ctx.tokens[kin[0] - 1] if kin[0] > 0 else None
    if before is not None and before.norm in ctx.lexicon.possessive_pronouns \
            and ctx.lexicon.kin_class_of(ctx.tokens[kin[0]].norm) == "relative":
        return None  # "He was named after his grandfather, … Randolph Churchill": a namesake forebear
    if _another_clause_opens(ctx, kin[-1] + 1, span[0]):
        return None  # "After his father left Geneva …, Rousseau was raised": the name opens another clause
    start = min(m.start for m in ctx.mentions if m.kind == "entity" and spans_overlap((m.start, m.end), span))
    if start >= 2 and ctx.tokens[start - 1].word and not ctx.tokens[start - 1].capital \
            and ctx.tokens[start - 2].norm in ctx.lexicon.articles and start - 1 not in kin:
        return None  # "one of eight children of the miner Wilhelm Lehmbruck": a forebear introduced by his trade
    return ctx.view.label(sorted(same)[0])


def _another_clause_opens(ctx: Context, lo: int, hi: int) -> bool:
    """Between a family word and a name, a relative pronoun ("five children, all of whom Rousseau insisted on
    leaving") or a verb and then a comma ("After his father left Geneva following a quarrel, Rousseau"): the name is
    another clause's subject, not the family word's person ("his father was V", "his children included V, V and V"
    are: `reads_forward.noun_verbs`)."""
    lex, between = ctx.lexicon, ctx.tokens[lo:hi]
    if any(t.word and t.norm in lex.relative_pronouns for t in between):
        return True
    comma = next((k for k, t in enumerate(between) if t.text == ","), None)
    return comma is not None and any(t.word and t.norm not in lex.copulas and t.norm not in lex.forward_noun_verbs
                                     and lex.verb_like(t.norm) for t in between[:comma])


def _in_full(view: GraphView, m: Mention) -> bool:
    """The mention names its entity by its name or an alias, not by a surname or first name alone."""
    said = phrase(m.text)
    return any(phrase(n) == said for i in m.ids for n in (view.names.get(i, ""), *view.aliases.get(i, ())))


def _contradiction(ctx: Context, store_triples: dict[str, list[GraphTriple]], span: tuple[int, int], who: set[str],
                   lo: int) -> GraphTriple | None:
    """A single-valued relation cued just before `span` whose value the graph holds otherwise for one of `who`."""
    tokens, lex = ctx.tokens, ctx.lexicon
    start = _cue_window(ctx, lo, span[0])
    # a full date's year said alone elsewhere does not shield it, nor its month and year ("died in December 1855, I
    # believe on 19 December" where the graph holds 25 December, v30); a year said alone is shielded by the held
    # year said beside it ("born around 1431 (some sources say 1433)")
    said = next((d for a, b, d in ctx.dates if (a, b) == span), None)
    vaguer_dates = {(a, b) for a, b, d in ctx.dates if (a, b) != span and (
        d.month is None or (said.day is not None and d.day is None))} if said is not None and said.month else set()
    for sid in sorted(who):
        triples = _triples_of(ctx, store_triples, sid)
        for label in {fold(t.label) for t in triples}:
            rel = lex.relation(label)
            cues = (_cue_spans(tokens, rel, start, span[0]) or _where_cue(tokens, rel, span)
                    or (_parent_noun(ctx, label, lo, span) if rel.kin == "parent" else [])
                    or _life_span_cue(ctx, label, span, sid)) if rel.single else []
            if not cues:
                continue
            if not _fits(label, tokens, span, lex):
                continue  # "died in Moscow" states a place of death, not a cause of death
            if lex.is_place_relation(label) and not tokens[span[0]].capital:
                continue  # "buried in the cathedral of …": a common noun names no other place
            if lex.is_place_relation(label) and span[0] > 0 and tokens[span[0] - 1].norm in lex.reference_prepositions:
                continue  # "at Croydon, near London": a place to find it by, not where he died
            if lex.is_place_relation(label) and span[1] < len(tokens) and tokens[span[1]].word \
                    and not tokens[span[1]].capital and tokens[span[1]].norm in lex.area_words:
                continue  # "born in the Moscow region": an area that may hold the held town (v26)
            if not rel.kin and _relative_speaks(ctx, lo, span[0], max(end for _, end in cues)):
                continue  # "on their father's death in 1638": the father's date, not theirs
            cue_end = max(end for _, end in cues)
            if _another_clause(ctx, cue_end, span):
                continue  # "the conspiracy that killed Domitian in 96"; "born in 1977 and raised in Copenhagen"
            if any(tokens[k].norm in lex.hedge_words for k in range(cue_end, span[0])):
                continue  # "born around 1558, probably in West Ham": hedged
            held = [t for t in triples if fold(t.label) == label]
            # the person's own name is not a relative's of that name ("William Adams, …; his father was John
            # Adams" where the graph holds William Adams `father: William Adams`, v27)
            own = [(m.start, m.end) for m in ctx.mentions if m.kind == "entity" and sid in m.ids] if rel.kin else []
            # another full date in the held year is another date ("16 January 1947" where the graph holds the 17th),
            # even where the sentence gives the year alone elsewhere ("In late 1072 … he died … in November 1072");
            # the held value said in another verb's clause is not said here ("born … in New York City and raised
            # largely in Montreal" where the graph holds Montreal; "died … in Paris …, and Toulouse honoured him")
            # a parent's family name inside the span is no shield: `_names_share_word` decides ("His father was
            # Giuseppe Castiglioni" where the graph holds Giacomo Castiglioni)
            if held and not any(h.how != "date_wrong" and h.span not in vaguer_dates and h.span not in own
                                and not (rel.kin and h.how == "vaguer" and spans_overlap(h.span, span))
                                and not (h.span[0] > span[0] and (_another_clause(ctx, cue_end, h.span)
                                                                  or _subject_of_own_clause(ctx, h.span)))
                                for t in held for h in ctx.hits(t.value, t.object_id)):
                # a date or number against a date or number, a name against a name: a place the graph holds
                # only as a string ("Strones", no item of its own) is still contradicted by "born in Braunau am Inn"
                # a held place written in lower case is no name to hold another against ("film", a parish)
                # nor an item the graph names nowhere ("place of burial: Q311", v20)
                same_kind = [t for t in held if _held_literal(t) == _is_literal(tokens, span, lex)
                             and not (lex.is_place_relation(label) and t.value[:1].islower())
                             and not is_unlabelled(t)]
                stated = fold(span_text(tokens, span).rstrip("."))
                # "born in the United States" where the graph holds Chicago: a place that contains the held one
                # is vaguer, not another place; so is one inside it ("born in Xikou" where the graph holds
                # Fenghua District), as far as the graph says where either lies: absent, not contradicted
                if not same_kind or any(stated in ctx.containers.get(fold(t.value), ())
                                        or fold(t.value) in ctx.containers.get(stated, ()) for t in same_kind):
                    continue
                if ctx.said_places is not None and lex.is_place_relation(label) and not _is_literal(tokens, span, lex):
                    # not a place the graph puts inside the held one ("born in Oxford" where it holds England), nor one
                    # it cannot locate said for an area ("born in Xikou" where it holds Fenghua District); asked only
                    # here, past the containment already walked, as it costs store round trips
                    same_kind = [t for t in same_kind if ctx.said_places.contradicts(stated, t.value)]
                same_kind = [t for t in same_kind if not _near_year(ctx, span, t) and not _in_decade(ctx, span, t)
                             and not _held_place_beside(ctx, span, t)
                             and not _held_year_as_number(ctx, span, t)
                             and not _within_bound(ctx, span, t)
                             and not _in_said_range(ctx, span, t)
                             and not (rel.kin and _names_share_word(ctx, span, t))]
                if same_kind:
                    return same_kind[0]
    return None


def _aside_about_another(ctx: Context) -> bool:
    """The sentence opens as an aside about someone else the asker may mean ("If you mean Richard Wright of Pink
    Floyd, he was born on …"): the passes of v18, v20, v22 and v26 call none of these contradicted; or it assumes
    the asker means a person named otherwise than the graph's (`assumed_openers`)."""
    words = [t.norm for t in ctx.tokens[:6] if t.word]
    if any(tuple(words[:len(opener)]) == opener for opener in ctx.lexicon.aside_openers):
        return True
    # "Assuming you mean Thomas Adolphus Trollope, …" where the graph's person is Thomas Trollope: someone else;
    # "Assuming you mean the Croatian basketball guard Marko Popović" names the graph's person (v28, v30)
    opener = next((o for o in ctx.lexicon.assumed_openers if tuple(words[:len(o)]) == o), None)
    if opener is None:
        return False
    named = next((m for m in ctx.mentions if m.kind in ("entity", "name") and m.start >= len(opener)), None)
    return named is not None and not (named.kind == "entity" and named.subject
                                      and fold(named.text) == fold(ctx.view.label(named.ids[0])))


def _parent_noun(ctx: Context, label: str, lo: int, span: tuple[int, int]) -> list[tuple[int, int]]:
    """The parent relation's own noun, owned ("his", "Anna's") and said to be the value: "His father was Giuseppe
    Castiglioni", "her mother, Maria Rossi", "his mother was, as far as I recall, Beata …". Not where a family word
    or "of" stands between ("his father was the son of X", "his mother was Lady Zhang, one of Liu Yuan's consorts"),
    nor "the father of X" (X is the child). Its span, or none."""
    tokens, lex = ctx.tokens, ctx.lexicon
    if tokens[span[1] - 1].possessive or not _a_persons_name(ctx, span):
        return []  # "his mother was Zheng Jing's concubine": the possessor is not the mother; "a Roman senator"
    for k in range(max(lo, 1), span[0]):
        t, owner, nxt = tokens[k], tokens[k - 1], tokens[k + 1]
        if not (t.word and t.norm == label and not t.possessive
                and (owner.possessive or owner.norm in lex.possessive_pronouns)):
            continue
        if k + 1 < span[0] and nxt.norm not in lex.copulas and nxt.text != ",":
            continue
        if any(tokens[j].norm == "of" or lex.kin_class_of(tokens[j].norm) or tokens[j].norm in lex.relative_pronouns
               for j in range(k + 1, span[0])) or any(k < m.start < span[0] for m in ctx.mentions):
            continue  # the first name after the noun is the parent: "his mother was V, and Helena … his godmother"
        return [(k, k + 1)]
    return []


def _another_parent(ctx: Context, store_triples: dict[str, list[GraphTriple]], span: tuple[int, int],
                    who: set[str]) -> GraphTriple | None:
    """A name said to be a parent without saying which ("His parents were Lucius Julius Caesar and Popillia", "a son
    of the famous censor Appius Claudius Caecus") that is neither parent the graph holds for the person (it holds
    both, and the name shares no word with either, the family's aside): the held parent it stands for (the mother
    after "and", else the father), or None."""
    if ctx.tokens[span[1] - 1].possessive or not _parents_cue(ctx, span):
        return None
    for sid in sorted(who):
        triples = _triples_of(ctx, store_triples, sid)
        parents = {fold(t.label): t for t in triples if fold(t.label) in ("father", "mother")}
        if len(parents) < 2 or any(h.how != "vaguer" and spans_overlap(h.span, span) for t in parents.values()
                                   for h in ctx.hits(t.value, t.object_id)):
            continue
        if not any(_names_share_word(ctx, span, t) for t in parents.values()):
            return parents["mother" if ctx.tokens[span[0] - 1].norm == "and" else "father"]
    return None


def _a_persons_name(ctx: Context, span: tuple[int, int]) -> bool:
    """The span is a mention that may name a person: not a thing the graph knows, nor a nation's adjective, nor a
    word that modifies what follows ("the British Army officer", "a Roman senator")."""
    tokens, lex = ctx.tokens, ctx.lexicon
    mention = next((m for m in ctx.mentions if (m.start, m.end) == span), None)
    nxt = tokens[span[1]] if span[1] < len(tokens) else None
    return not (mention is None or mention.thing or mention.kind == "pronoun"
                or fold(mention.text) in demonym_words(lex)
                or nxt is not None and nxt.word and (nxt.capital or nxt.norm not in lex.coordinators
                                                     and nxt.norm not in lex.relative_pronouns))


def _parents_cue(ctx: Context, span: tuple[int, int], spouse_of_parent: bool = False) -> bool:
    """The name at `span` is a person's name in a list of the sentence's subject's parents: after "parents were" or
    "was a/the son (daughter, child) of", past up to three lower-case words ("the famous censor") and the parents
    named before it ("X and"); not a word that modifies what follows ("the British Army officer"). With
    `spouse_of_parent`, only a name the parent before it owns ("the son of Stellan Skarsgård and his first wife, V")."""
    tokens, lex = ctx.tokens, ctx.lexicon
    if not _a_persons_name(ctx, span):
        return False
    demonyms = demonym_words(lex)
    k = span[0] - 1
    k -= k > 0 and tokens[k].text == "," and spouse_of_parent  # "and his first wife, V"
    while True:
        words, owned = 0, False
        while k >= 0 and words < 3 and tokens[k].word and (not tokens[k].capital or tokens[k].norm in demonyms) \
                and tokens[k].norm not in ("of", "to") and tokens[k].norm not in lex.copulas \
                and tokens[k].norm not in lex.coordinators:  # "the son of Swedish actor X"
            owned = owned or tokens[k].norm in lex.possessive_pronouns
            k, words = k - 1, words + 1
        if k < 1:
            return False
        t = tokens[k]
        child_of = k >= 3 and t.norm == "of" and lex.kin_class_of(tokens[k - 1].norm) == "child" \
            and tokens[k - 2].norm in lex.articles and tokens[k - 3].norm in lex.copulas \
            and not (k >= 4 and lex.kin_class_of(tokens[k - 4].norm))  # "He was a son of", not "his father was …"
        if child_of or t.norm in lex.copulas and tokens[k - 1].norm == "parents":
            return True
        earlier = next((m for m in ctx.mentions if m.end == k and m.kind != "pronoun"), None) \
            if t.norm == "and" and owned == spouse_of_parent else None  # "the son of X and his queen V" (v28):
        # his queen, not a parent of the sentence's subject to weigh; with `spouse_of_parent`, only such a V
        if earlier is None:
            return False
        k = earlier.start - 1


def _names_share_word(ctx: Context, span: tuple[int, int], held: GraphTriple) -> bool:
    """The name at `span` shares a word with the held relative's name or an alias: maybe the same person named
    otherwise ("Caroline Louise Büchner, née Reuss" for Karoline Reuss, her maiden name after `maiden_name_words`;
    "Lina Dahrendorf (née Witt)" for Lina Witt; "Constantius I Chlorus"), so no contradiction; "Beata … Bildt" for
    Christina Elisabeth Fröding shares none. A name of no word but the family's may be anyone's."""
    tokens = ctx.tokens
    end = span[1]
    while end < min(span[1] + 2, len(tokens)) and tokens[end].word and "-" in tokens[end].text \
            and any(part[:1].isupper() for part in tokens[end].text.split("-")):
        end += 1  # the name goes on in a particle the mention left out: "Hussein Abd al-Majid"
    k = end + (end < len(tokens) and not tokens[end].word)  # "V, née Reuss", "V (née Witt)"
    maiden = tokens[k + 1:k + 3] if k < len(tokens) and tokens[k].norm in ctx.lexicon.maiden_name_words else []
    said = _words(" ".join((span_text(tokens, (span[0], end)), *(t.text for t in maiden if t.capital))))
    names = ctx.view.value_names(held.value, held.object_id)
    # the family's name, which the person bears too, tells no parent from another ("Thorvald Foss" for Wenche
    # Foss's father Christian August Steenfeldt-Foss; "Giuseppe Castiglioni" for Giacomo)
    family = _words(ctx.view.label(held.subject))
    mine = [w for w in said if w not in family]
    for name in filter(None, names):
        theirs = list(_words(name))
        rest = [w for w in theirs if w not in family]
        # with no word but the family's on one side, the whole names: "Jan Amor Tarnowski" may be Jan Tarnowski,
        # "Popillia" is not Lucius Julius Caesar (the son's own name)
        # a relative named as the person is ("father: William Adams" of William Adams): the words the said name
        # lacks tell them apart ("John Adams" is not William Adams, v27)
        unsaid = [w for w in theirs if w not in said] if mine and not rest else []
        if _alike(mine, rest) if mine and rest else _alike(mine, unsaid) if unsaid else _alike(list(said), theirs):
            return True
    return False


def _alike(said: Sequence[str], held: Sequence[str]) -> bool:
    """Two names' words (the family's aside) that may name one person: none left on one side to tell them apart, a
    word in common or spelled alike ("Alexander", "Aleksander"), or the same letters run together ("Shah Rukh",
    "Shahrukh")."""
    if not said or not held or set(said) & set(held):
        return True
    if any(SequenceMatcher(None, a, b).ratio() >= 0.8 for a in said for b in held):
        return True
    joined_said, joined_held = "".join(said), "".join(held)  # in the name's order (`_words`)
    return any(w in joined_said for w in held if len(w) > 5) or any(w in joined_held for w in said if len(w) > 5)


def _words(name: str) -> dict[str, None]:
    """The words of a name longer than two letters, or of two written with a capital ("Cao Pi": cao, pi, v34; not
    "de", "la"), hyphenated parts apart ("Steenfeldt-Foss": steenfeldt, foss), folded, in their order (a dict's keys:
    a set that keeps it)."""
    short = {fold(w) for w in (w.strip(".,;:()") for w in re.split(r"[-\s]", name))
             if len(w) == 2 and w[0].isupper() and w[1].islower()}
    return dict.fromkeys(w for w in re.split(r"[-\s]", " ".join(phrase(name))) if len(w) > 2 or w in short)


def _held_place_beside(ctx: Context, span: tuple[int, int], held: GraphTriple) -> bool:
    """The place said is followed by ", <the held place in another spelling>" (it lies there: "born in Wuxi, Jiangsu
    Province" where the graph holds the name Kiangsu, v29) or by "(modern <it>)" (it is its other name: "Qiantang
    (modern Hangzhou)" where it holds Hangchow, v30), spelled as transliterations differ (`spelled_alike`). The held
    place spelled as held is a hit of its own, already counted."""
    tokens, k = ctx.tokens, span[1]
    if k + 1 >= len(tokens) or tokens[k].text not in (",", "(") or not ctx.lexicon.is_place_relation(held.label):
        return False
    renamed = _renaming_at(ctx, k)
    if tokens[k].text == "(" and not renamed:
        return False  # "(1887)", "(Dadu …)": no other name said to be the place's
    start = k + 1 + renamed
    end = start
    while end < min(start + 3, len(tokens)) and tokens[end].word and tokens[end].capital:
        end += 1
    return end > start and spelled_alike(fold(span_text(tokens, (start, end))), fold(held.value))


def _near_year(ctx: Context, span: tuple[int, int], held: GraphTriple) -> bool:
    """A year said as approximate ("born around 601") less than two years off the held date's year."""
    said = next((d for a, b, d in ctx.dates if (a, b) == span), None)
    year = said.year if said is not None and said.month is None else None
    if said is None and span[1] - span[0] == 1 and ctx.tokens[span[0]].norm.isdigit():
        year = int(ctx.tokens[span[0]].norm)  # "born around 601": a number, not read as a date
    date = parse_iso_date(held.value)
    k = span[0] - 1
    while k >= 0 and not ctx.tokens[k].word:
        k -= 1  # "c. 505"
    return year is not None and date is not None and k >= 0 \
        and ctx.tokens[k].norm in ctx.lexicon.approximate_words and abs(year - date.year) < 2


def _held_year_as_number(ctx: Context, span: tuple[int, int], held: GraphTriple) -> bool:
    """A number no date reading takes that is the held date's year ("killed in 459 by his brother", the graph holding
    0459: a three-digit year only reads as a date beside its era or between `short_year` words)."""
    date = parse_iso_date(held.value)
    mine = None if any((a, b) == span for a, b, _ in ctx.dates) else _said_year(ctx, span[0], span[1])
    return date is not None and mine is not None and mine[0] == date.year


def _within_bound(ctx: Context, span: tuple[int, int], held: GraphTriple) -> bool:
    """A year said as a bound ("died sometime after 1565", "before 1600"; `bound_words`) that the held date's year
    keeps: not another date."""
    date, mine = parse_iso_date(held.value), _said_year(ctx, span[0], span[1])
    k = span[0] - 1
    if date is None or mine is None or k < 0:
        return False
    sign = ctx.lexicon.bound_words.get(ctx.tokens[k].norm)
    return sign is not None and (date.year - mine[0]) * sign >= 0


def _life_span_cue(ctx: Context, label: str, span: tuple[int, int], sid: str) -> list[tuple[int, int]]:
    """The parenthesis that opens a life span ("Alessandro Marcello (1673 to 1747)") as the cue of the relation its
    date at `span` states, birth for the first, death for the second, when it is `sid`'s life: not the subject's where
    another person is named before it ("his grandfather, Lord Randolph Churchill (1849–1895)") (`life_span`)."""
    at = life_span_opening(ctx, span, label, sid)
    return [(at, at + 1)] if at is not None else []


def _in_said_range(ctx: Context, span: tuple[int, int], held: GraphTriple) -> bool:
    """The year at `span` is one end of a range said ("born around 970–980", "309/308 BC", "in 1431 or 1433") that
    holds the held date's year: not another date. A bare number beside a BC year is BC too ("309/308 BC"). A life
    span's ends are two dates, not a range ("Alessandro Marcello (1673 to 1747)", held born 1684)."""
    date = parse_iso_date(held.value)
    mine = _said_year(ctx, span[0], span[1])
    if date is None or mine is None or life_span(ctx, span) is not None:
        return False
    for other in (_range_end(ctx, span[0] - 1, -1), _range_end(ctx, span[1], 1)):
        if other is None:
            continue
        bc = mine[1] or other[1]
        years = sorted(1 - y if bc and not was_bc and y > 0 else y for y, was_bc in (mine, other))
        if years[0] - bc <= date.year <= years[1]:
            return True
    return False


def _range_end(ctx: Context, k: int, step: int) -> tuple[int, bool] | None:
    """The year said at the other end of a range, from token `k` on in direction `step` (-1 or 1): past a dash or a
    `range_words` word, or right beside it ("309/308": the slash is no token)."""
    tokens = ctx.tokens
    first = k
    while 0 <= k < len(tokens) and (tokens[k].text in ("–", "—", "-") or tokens[k].norm in ctx.lexicon.range_words):
        k += step
    if not 0 <= k < len(tokens):
        return None
    if k == first:  # nothing between: only a year written against it ("309/308")
        near = tokens[k + 1] if step < 0 else tokens[k - 1]
        if abs((near.start if step < 0 else tokens[k].start) - (tokens[k].end if step < 0 else near.end)) > 1:
            return None
    date = next(((a, b) for a, b, _ in ctx.dates if (b == k + 1 if step < 0 else a == k)), None)
    return _said_year(ctx, *date) if date is not None else _said_year(ctx, k, k + 1)


def _said_year(ctx: Context, a: int, b: int) -> tuple[int, bool] | None:
    """The year said at tokens [a, b) and whether with BC: a date read there, or a number of up to four digits."""
    said = next((d for x, y, d in ctx.dates if (x, y) == (a, b)), None)
    if said is not None:
        return said.year, said.bc
    t = ctx.tokens[a]
    return (int(t.norm), False) if b - a == 1 and t.word and t.norm.isdigit() and len(t.norm) <= 4 else None


def _in_decade(ctx: Context, span: tuple[int, int], held: GraphTriple) -> bool:
    """A decade or century said ("born in the 1970s", "in the early 13th century") that holds the held date's year:
    vaguer, not another date."""
    said = next((d for a, b, d in ctx.dates if span[0] <= a and b <= span[1]), None)
    date = parse_iso_date(held.value)
    if said is None or date is None:
        return False
    if said.years > 1:
        return said.holds_year(date.year)
    decade = any(decade_of(t.norm) is not None for t in ctx.tokens[span[0]:span[1]])
    return decade and any(said.same_year(date.year - k) for k in range(10))


def _where_cue(tokens: Sequence[Token], rel: RelationCues, span: tuple[int, int]) -> list[tuple[int, int]]:
    """A relation's cue in a clause right after the value that opens with "where" ("His story begins in Tabriz, where
    he was born on V"): its span, or none."""
    k = span[1] + (span[1] < len(tokens) and tokens[span[1]].text == ",")
    if k >= len(tokens) or tokens[k].norm != "where":
        return []
    return _cue_spans(tokens, rel, k + 1, min(k + 5, len(tokens)))


def _relative_speaks(ctx: Context, lo: int, hi: int, cue_end: int) -> bool:
    """A relative of the holder is what the value at `hi` is said of, its relation's cue ending at `cue_end`: a
    family noun (or "family") between `lo` and `hi` that is possessive ("their father's death in V") or opens a clause
    after a possessive ("his father died in V", "her mother was born"), any possessed family noun after the cue ("gave
    birth to her son Max in V"), or one before the cue that a verb, a relative pronoun or a participle follows ("two
    daughters who died in infancy", "had a son, born in 2009", "several members of the family died in V")."""
    tokens, lex = ctx.tokens, ctx.lexicon
    for k in range(lo, hi):
        t = tokens[k]
        if not t.word or (lex.kin_class_of(t.norm) is None and t.norm not in lex.possessed_nouns) \
                or lex.verb_like(t.norm):
            continue
        if t.possessive:
            return True
        prev = tokens[k - 1] if k > 0 else None
        if prev is not None and (prev.possessive or prev.norm in lex.possessive_pronouns) \
                and (k >= cue_end or opens_clause(tokens, k + 1, lex)):
            return True
        nxt = tokens[k + 1] if k + 1 < hi else None
        # "Genghis Khan's youngest son, who died around 1232": the comma before a relative pronoun too
        relative_clause = nxt is not None and nxt.text == "," and k + 2 < hi \
            and tokens[k + 2].norm in lex.relative_pronouns
        if k < cue_end and nxt is not None and (opens_clause(tokens, k + 1, lex) and (nxt.word or relative_clause)
                                                or apposed_participle(tokens, k + 1, lex)):
            return True
    return False


def _another_clause(ctx: Context, cue_end: int, span: tuple[int, int]) -> bool:
    """Between a single-valued relation's cue and the value, another clause takes the value: the cue's object
    ("the conspiracy that killed Domitian in 96": Domitian's death), or another verb after some words ("born in 1977
    and raised in Copenhagen", "born in London in 1840 and died in Chamonix"; not "born and raised in V")."""
    tokens, lex = ctx.tokens, ctx.lexicon
    if cue_end < span[0] and tokens[cue_end - 1].norm.endswith("ed") and tokens[cue_end].capital \
            and any(m.start == cue_end and m.kind in ("name", "entity") for m in ctx.mentions):
        return True
    in_dates = ctx.in_dates
    # "born and raised in V" shares V; a comma does not ("his tomb, described in the Abbott Papyrus")
    first = cue_end + 1 if cue_end < len(tokens) and tokens[cue_end].word and tokens[cue_end].norm in lex.coordinators \
        else cue_end
    # a participle after a comma opens a clause of its own too ("died in 1847, living in the Waldviertel": where he
    # lived, not where he died)
    return any(tokens[k].word and k not in in_dates and tokens[k].norm not in lex.elapsed_time_words
               and (lex.verb_like(tokens[k].norm) or tokens[k - 1].text == "," and tokens[k].norm.endswith("ing")
                    and tokens[k].norm not in lex.stop_and_glue)
               for k in range(first + 1, span[0]))


def _subject_of_own_clause(ctx: Context, span: tuple[int, int]) -> bool:
    """The words at `span` open a clause of their own after "and" ("…, and Toulouse honoured him"): its subject,
    not a value of the clause before."""
    tokens, lex = ctx.tokens, ctx.lexicon
    return span[0] > 0 and tokens[span[0] - 1].norm in ("and", "but") and span[1] < len(tokens) \
        and tokens[span[1]].word and tokens[span[1]].norm not in lex.apposed_participles \
        and lex.verb_like(tokens[span[1]].norm)


def _cue_window(ctx: Context, lo: int, hi: int, words: int = 6) -> int:
    """Where a single-valued relation's cue may start before a value at `hi`: up to `words` words back (not past
    `lo`), a date between them not counted ("died on 31 July 1972 in Brussels"), nor, before a date, words of elapsed
    time ("died of the wound a few days later, in November 1072")."""
    in_dates = ctx.in_dates
    before_date = hi in {a for a, _, _ in ctx.dates}
    elapsed = ctx.lexicon.elapsed_time_words
    start, counted = hi, 0
    while start > lo and counted < words:
        start -= 1
        counted += start not in in_dates and not (before_date and (ctx.tokens[start].norm in elapsed
                                                                    or not ctx.tokens[start].word))
    return start


def _claim_spans(ctx: Context, values: Sequence[tuple[tuple[int, int] | None, CitedTriple]],
                 leading: Sequence[Mention]) -> list[tuple[tuple[int, int], str]]:
    """Where the sentence may state something, in text order (longest first at a position): values of the graph
    (cited ones first), dates, numbers, names the graph does not hold, objects of single-valued relations."""
    tokens, view = ctx.tokens, ctx.view
    spans: list[tuple[tuple[int, int], str]] = []
    for value_span, _ in values:
        if value_span is not None:
            spans.append((value_span, "value"))
    for sid in view.subjects:
        for t in view.by_subject.get(sid, ()):
            if t.label == "name":
                continue
            for hit in ctx.hits(t.value, t.object_id):
                if hit.how != "vaguer":
                    spans.append((hit.span, "value"))
    for a, b, _ in ctx.dates:
        spans.append(((a, b), "date"))
    for a, b, _ in numbers_in(tokens):
        spans.append(((a, b), "number"))
    for m in ctx.mentions:
        if m.text.casefold() in ctx.lexicon.speaker_pronouns:
            continue  # "I'm not certain of her exact birthplace": the answerer, no name (v24)
        if m.kind == "name" or (m.kind == "entity" and (not m.subject or m not in leading)):
            spans.append(((m.start, m.end), "name"))
    date_starts = {a for a, _, _ in ctx.dates}
    spans += [(span, "relation") for span in _single_valued_objects(tokens, ctx.lexicon)
              if not any(a in date_starts for a in range(*span))]  # "born in the early 260s AD": the date is it
    return sorted(spans, key=lambda s: (s[0][0], -(s[0][1] - s[0][0])))


def _ordinals(ctx: Context, values: Sequence[tuple[tuple[int, int] | None, CitedTriple]],
              held: Sequence[tuple[tuple[int, int], str | None]], used: set[int]) -> list[Claim]:
    """"Takelot II was the third pharaoh": an ordinal right before a held value's words (cited or not: "the third
    Tokugawa shogun") says where in a series it stands, which no triple holds (unless the question says it); so
    does an ordinal or a birth-order word before a family word ("his first wife", "the youngest child of");
    marks its token used."""
    lex = ctx.lexicon
    starts = {span[0] for span, _ in values if span is not None} | {span[0] for span, _ in held}
    out = []
    tokens = ctx.tokens
    for i, t in enumerate(tokens[:-1]):
        # one lower-case word may stand between: "his only known child", "the eldest surviving son"
        kin_at = next((k for k in (i + 1, i + 2) if k < len(tokens) and tokens[k].word
                       and lex.kin_class_of(tokens[k].norm) is not None), None)
        before_kin = (t.norm in lex.ordinals or t.norm in lex.birth_order_words) and kin_at is not None \
            and all(tokens[k].word and not tokens[k].capital for k in range(i + 1, kin_at))
        if (t.norm in lex.ordinals and i + 1 in starts or before_kin) and i not in used:
            used.add(i)
            out.append(Claim(text=t.text, kind="words", status="absent",
                             reason=f"'{t.text} {tokens[kin_at].text}': the graph holds no order or count among "
                             "relatives" if before_kin and kin_at is not None
                             else "an ordinal: the graph holds no place in a series"))
    return out


def _counts(ctx: Context, values: Sequence[tuple[tuple[int, int] | None, CitedTriple]], used: set[int]) -> list[Claim]:
    """"Johann Christian Bach was a composer who wrote many works": a count (`count_words`) says more than the one
    value cited; with two values or more cited the count is theirs ("a member of several international
    organizations"), as it is of a cited value it stands before ("created several portraits"). Marks its token
    used."""
    if len({fold(c.value) for span, c in values if span is not None}) >= 2:
        return []
    starts = {span[0] for span, _ in values if span is not None}
    out = []
    for i, t in enumerate(ctx.tokens):
        if t.word and t.norm in ctx.lexicon.count_words and i not in used \
                and i + 1 not in starts:  # "created several portraits", citing `genre: portrait`: the value's own
            used.add(i)
            out.append(Claim(text=t.text, kind="words", status="absent",
                             reason="a count: the cited triples give no number of them"))
    return out


def _closer_than_relative(ctx: Context, values: Sequence[tuple[tuple[int, int] | None, CitedTriple]]) -> list[Claim]:
    """"Enrico Letta's brother is Gianni Letta", citing `relative: Gianni Letta`: the graph's `relative` is kin other
    than parents, children, siblings and spouses (those have relations of their own), so a word for one of these
    says more than the citation ("his cousin" does not). Both passes of v9 and v10 call every such sentence not fully
    supported, the citation itself supported."""
    lex = ctx.lexicon
    cited = {lex.relation(c.relation).kin for span, c in values if span is not None}
    if "relative" not in cited:
        return []
    out = []
    for t in ctx.tokens:
        kin = lex.kin_class_of(t.norm) if t.word else None
        if kin not in (None, "relative") and kin not in cited:
            out.append(Claim(text=t.text, kind="relation", status="absent",
                             reason=f"'{t.text}': the graph holds a relative, not a {kin}"))
    return out


def _denials(ctx: Context, leading: Sequence[Mention], graph: "_UncitedJudge", used: set[int]) -> list[Claim]:
    """"He was an only child": a phrase that says the person it is said of has no value of a relation
    (`Lexicon.none_phrases`) is a claim of its own: contradicted where the graph holds a value of it for that
    person, absent otherwise. Once a sentence with such a phrase had no claim at all and passed; marks its tokens
    used."""
    out = []
    for words, label in ctx.lexicon.none_phrases.items():
        for span in find_phrase(ctx.tokens, words):
            if any(k in used for k in range(*span)):
                continue
            used.update(range(*span))
            # said of whoever holds the phrase: "when Tughril died childless" is not said of Alp Arslan
            found, _ = holders(ctx.tokens, ctx.mentions, span, ctx.lexicon)
            who = {i for m in (found or leading) for i in m.ids}
            held = next((t for sid in sorted(who) for t in graph.triples(sid) if t.label == label), None)
            text = span_text(ctx.tokens, span).rstrip(".")
            if held is not None:
                out.append(Claim(text=text, kind="words", about=held.subject, relation=label, status="contradicted",
                                 evidence=evidence_text(held.subject, held.label, held.value),
                                 reason=f"says there is no {label}; the graph holds {label}: {held.value}"))
            else:
                out.append(Claim(text=text, kind="words", relation=label, status="absent",
                                 reason=f"says there is no {label}: the graph holds no such statement"))
    return out


def _ages(ctx: Context, leading: Sequence[Mention], graph: "_UncitedJudge",
          values: Sequence[tuple[tuple[int, int] | None, CitedTriple]], used: set[int]) -> list[Claim]:
    """"She died in 2007 at the age of 102": in a sentence with a word for death, an age is held when the person's
    dates of birth and death give it (to the year when a date lacks its day), contradicted when they give another;
    left to the other claims when a date is missing. Once "102" and "age" were absent claims of every such
    sentence."""
    tokens = ctx.tokens
    out: list[Claim] = []
    who = [i for m in leading for i in m.ids]
    if not _cue_spans(tokens, ctx.lexicon.relation("date of death"), 0, len(tokens)):
        return out  # "at the age of 20 he moved to Paris" is an age at another event: not read here
    # (claim start, claim end, the number's position): "at the age of 102", "28 years old"
    said = [(a, b + 1, b) for cue in ctx.lexicon.age_cues for a, b in find_phrase(tokens, cue) if b < len(tokens)]
    said += [(a - 1, b, a - 1) for cue in ctx.lexicon.age_after_cues for a, b in find_phrase(tokens, cue) if a > 0]
    for _start, end, k in said:
        number = number_of(tokens[k].norm) if tokens[k].word else None
        if number is None or any(j in used for j in range(_start, end)):
            continue
        for sid in who:
            dates = {t.label: parse_iso_date(t.value) for t in graph.triples(sid)
                     if t.label in ("date of birth", "date of death")}
            born, died = dates.get("date of birth"), dates.get("date of death")
            if born is None or died is None:
                continue
            age = died.year - born.year
            exact = None not in (born.month, born.day, died.month, died.day)
            if exact and (died.month, died.day) < (born.month, born.day):  # type: ignore[operator]
                age -= 1
            fits = number == age if exact else age - 1 <= number <= age
            cited = {c.relation for span, c in values if span is not None and c.subject == sid}
            status: ClaimStatus = ("supported" if {"date of birth", "date of death"} <= cited
                                   else "supported_uncited") if fits else "contradicted"
            used.update(range(_start, end))
            out.append(Claim(text=span_text(tokens, (_start, end)).rstrip("."), kind="number", about=sid,
                             relation="age at death", status=status,
                             evidence=f"{sid}, date of birth: {born.year}, date of death: {died.year}",
                             reason=f"the dates give {age if exact else f'{age - 1} or {age}'}"))
            break
    return out


def _implied(ctx: Context, values: Sequence[tuple[tuple[int, int] | None, CitedTriple]]) -> set[int]:
    """The tokens of words a supported citation's value implies (`Lexicon.implied_words`: "Christian" of
    `religion: Anglicanism`): no claim of their own."""
    held = {fold(c.value) for span, c in values if span is not None}
    return {i for i, t in enumerate(ctx.tokens)
            if t.word and ctx.lexicon.implied_words.get(t.norm, frozenset()) & held}


def _relation_words(ctx: Context, values: Sequence[tuple[tuple[int, int] | None, CitedTriple]]) -> set[int]:
    """The tokens that are words of a supported citation's relation label ("notable" of `notable works`): they
    name the relation the citation holds, not a claim of their own."""
    words = {w for _, c in values for w in phrase(c.relation)} - ctx.lexicon.stop_and_glue
    return {i for i, t in enumerate(ctx.tokens) if t.word and t.norm in words}


def _evaluations(ctx: Context, used: set[int]) -> list[Claim]:
    """Evaluations ("prestigious", "known for") the graph never holds, the question's words too (annotators of v2,
    v8, v9 and v16 read "known for his pop music career" as praise beside a cited genre); marks their tokens used."""
    tokens, claims = ctx.tokens, []
    for cue in ctx.lexicon.evaluative:
        for span in find_stem(tokens, tuple(w for w in cue), 0, len(tokens)):
            if any(k in used for k in range(*span)):
                continue
            if len(cue) == 1 and tokens[span[0]].norm != cue[0] and not tokens[span[0]].norm.startswith(cue[0] + "l"):
                continue  # a stem inside another word ("greatest" is kept by "great"; "keyboard" is not "key")
            used.update(range(*span))
            claims.append(Claim(text=span_text(tokens, span), kind="evaluation",
                                status="absent", reason="an evaluation: the graph holds none"))
    return claims


def _leftover_words(ctx: Context, used: set[int], values: Sequence[tuple[tuple[int, int] | None, CitedTriple]],
                    claims: Sequence[Claim], held: Sequence[tuple[tuple[int, int], str | None]]) -> list[Claim]:
    """The content words nothing else accounts for (not the question's, not a relation's cue), as one claim.
    A relation's verb ("born", "studied") introduces the value that is the claim, so it is never one itself; a
    relation's noun ("country", "position", "professional") is one, unless the sentence states a value of that
    relation (a supported citation's or a held claim's) or it introduces a held value (`_governing_cues`):
    "received the Order of the British Empire for his service to the country" says more than the award."""
    lex = ctx.lexicon
    used = used | _governing_cues(ctx, held) | _apposed_kinds(ctx, held)
    stated = {c.relation for _, c in values} | {c.relation for c in claims if c.relation}
    stop = lex.stop_and_glue
    any_cue, own_cue = _all_cue_stems(lex), _cue_stems_of(lex, stated)
    verbs = lex.verbs  # a common verb states nothing by itself ("He took part in the Dakar Rally")

    def a_cue(word: str) -> bool:  # str.startswith tries the tuple of stems in C: this runs on every word
        return word not in lex.role_words and word.startswith(any_cue if lex.verb_like(word) else own_cue)

    # the answerer's talk about what it knows ("I don't have reliable information on his parents' names") states
    # nothing
    talk = lex.talk_words if any(t.word and t.norm in lex.speaker_pronouns for t in ctx.tokens) else frozenset()
    # a question's words are claims too: "his father's baritone voice" asked, "his father was a baritone" answered
    # states what the question presupposed (v17; on v2-v17 dropping the excuse caught 21 more sentences)
    rest = [t.text for i, t in enumerate(ctx.tokens) if t.word and i not in used and t.norm not in stop
            and t.norm not in lex.hedge_words and t.norm not in talk and t.norm not in lex.frame_words
            and t.norm not in lex.speaker_pronouns
            and not t.norm.isdigit() and (t.norm not in verbs or t.norm in lex.role_words)
            and not a_cue(t.norm)]
    if not rest:
        return []
    return [Claim(text=" ".join(rest).rstrip("."), kind="words", status="absent",
                  reason="words no cited triple accounts for")]


def _governing_cues(ctx: Context, spans: Sequence[tuple[tuple[int, int], str | None]]) -> set[int]:
    """A relation's word before "of" and a held value ("a member of the Catholic Church" says `religion: Catholic
    Church`): it introduces that value, whichever relation it is the cue of, unless the value is a field or style
    ("a member of the performing arts", "of the Western genre": v8's and v19's passes call both unsupported; "the
    title of", "a member of" before a religion, label or position they accept); or right after a held person's
    possessive ("Jonathan Swift's work")."""
    tokens, stems, out = ctx.tokens, _all_cue_stems(ctx.lexicon), set()
    for (start, end), label in spans:
        after = tokens[end] if end < len(tokens) else None
        if tokens[end - 1].possessive and after is not None and after.word and after.norm.startswith(stems):
            out.add(end)  # "influenced by Jonathan Swift's work": the person's work stands for the person
        k = start - 1
        while k >= 0 and start - k <= 3 and tokens[k].word and tokens[k].norm in ctx.lexicon.stop_and_glue:
            k -= 1
        # only across "of": a word right before the value modifies it ("a professional tennis player")
        if k >= 0 and tokens[k].word and any(t.norm == "of" for t in tokens[k + 1:start]) \
                and tokens[k].norm.startswith(stems) and tokens[k].norm not in ctx.lexicon.role_words \
                and (label is None or fold(label) not in ctx.lexicon.field_relations
                     or tokens[k].norm.startswith(_cue_stems_of(ctx.lexicon, {label}))):
            out.add(k)
    return out


def _apposed_kinds(ctx: Context, spans: Sequence[tuple[tuple[int, int], str | None]]) -> set[int]:
    """A group's kind between "the" and its held name ("a member of the band Toto", "of the band Die Happy": both
    passes of v7 and v21 accept each): it names what the value is, no claim beside it."""
    tokens, kinds = ctx.tokens, ctx.lexicon.apposed_kinds
    return {start - 1 for (start, _), _ in spans
            if start >= 2 and tokens[start - 1].norm in kinds and tokens[start - 2].norm == "the"}


def _single_valued_objects(tokens: Sequence[Token], lex: Lexicon) -> list[tuple[int, int]]:
    """What follows a cue of a single-valued relation ("died of cholera", "born in jena"): up to three words,
    so that a value written in lower case, or not a name of the graph, can still be contradicted."""
    out = []
    stop, skip = lex.stop_and_glue, lex.skip_after_cue
    for rel in lex.relations.values():
        if not rel.single:
            continue
        for _, end in _cue_spans(tokens, rel, 0, len(tokens)):
            k = end
            while k < len(tokens) and tokens[k].word and tokens[k].norm in skip:
                k += 1
            j = k
            while j < len(tokens) and j - k < 3 and tokens[j].word and tokens[j].norm not in stop:
                j += 1
            if j > k and k > end:  # a preposition or article introduced it
                out.append((k, j))
    return out


def _fits(label: str, tokens: Sequence[Token], span: tuple[int, int], lex: Lexicon) -> bool:
    """Whether the value at `span` can be the value of relation `label`: a date only of a date relation;
    after "in"/"at" a place, after "of"/"from" not a place ("died of pneumonia", "died in Moscow")."""
    if label.startswith("date of") != _is_literal(tokens, span, lex):
        return False
    k = span[0] - 1
    while k >= 0 and tokens[k].norm in lex.articles:
        k -= 1
    before = tokens[k].norm if k >= 0 else ""
    place = lex.is_place_relation(label)
    if before in lex.place_prepositions:
        return place or label.startswith("date of")
    if before in lex.cause_prepositions and k > 0 and tokens[k - 1].norm in lex.place_words:
        return place  # "born in the village of Cetireni": the village is the place (v26)
    if before in lex.cause_prepositions:
        return not place
    # a place follows "in", "at", "near" or a copula ("his birthplace was V"): "killed the chieftain V", "by
    # Hannibal's forces", "after Paula's death Geldof gained custody" name no place of death
    return not place or before in lex.copulas


def _leading_group(ctx: Context) -> list[Mention]:
    """The mentions that open the sentence as its subject: the first person (or pronoun) and those joined
    to it by "and" or commas ("Both Pushkin and Keats", "J. R. R. Tolkien and C. S. Lewis")."""
    people = [m for m in ctx.mentions if m.subject or m.kind == "pronoun"]
    if not people:
        return []
    group = [people[0]]
    for m in people[1:]:
        if not joined(ctx.tokens, group[-1], m, ctx.lexicon):
            break
        group.append(m)
    return group


def _held_literal(t: GraphTriple) -> bool:
    """A held value that is a date or a number (not a name, even one held as a string)."""
    return t.object_id is None and (parse_iso_date(t.value) is not None or number_of(t.value) is not None)


def _is_literal(tokens: Sequence[Token], span: tuple[int, int], lex: Lexicon) -> bool:
    """A date or number: contradicted only by a literal the graph holds, not by an entity. The comma of "March 25,
    2006" is part of it (with it, no date written month first had been contradicted); so is a decade ("the
    1970s"), and a year's era or minus sign ("8 BC", "the 260s AD", "-1000")."""
    return all(t.norm.lstrip("-").isdigit() or t.norm in lex.months or not t.word or decade_of(t.norm) is not None
               or t.norm in lex.era_bc_words or t.norm in lex.era_ad_words or lex.centuries.has(t.norm)
               for t in tokens[span[0]:span[1]])


_CUE_CACHE: dict[tuple[str, frozenset[str]], tuple[str, ...]] = {}


def _all_cue_stems(lex: Lexicon) -> tuple[str, ...]:
    """Single-word relation cues ("born", "studied", "influenced"): relation words, not claims of their
    own — the value they introduce is the claim."""
    return _cue_stems_of(lex, None)


def _cue_stems_of(lex: Lexicon, labels: set[str] | None) -> tuple[str, ...]:
    """The single-word cues (four letters or more) of the relations `labels` (None: of every relation), and the
    family words where one of them is a kin relation."""
    key = (lex.sha256, frozenset(fold(x) for x in labels) if labels is not None else frozenset(["*"]))
    if key not in _CUE_CACHE:
        rels = list(lex.relations.values()) if labels is None else [lex.relation(x) for x in labels]
        stems = {c[0] for r in rels for c in r.cues if len(c) == 1 and len(c[0]) >= 4}
        if labels is None or any(r.kin for r in rels):  # a family word names some kinship the graph holds
            stems |= {w for ws in lex.kin_words.values() for w in ws}
        if len(_CUE_CACHE) > 4096:  # one entry per set of relations a sentence states: bounded
            _CUE_CACHE.clear()
        _CUE_CACHE[key] = tuple(sorted(stems))
    return _CUE_CACHE[key]
