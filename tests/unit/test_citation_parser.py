"""The citation parser: a truth table of answer forms, and properties over generated answers."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings, strategies as st

from kalma_graph.kg.citations import parse_answer, render_citation

TABLE_13_ANSWER = (
    "Artemisia Gentileschi was an Italian painter born on July 8, 1596 [NA] in Rome [Q212657, "
    "ethnic group: Italians, occupation: painter, place of birth: Rome]. She was a member of the "
    "Accademia delle Arti del Disegno and is best known for her work Judith Slaying Holofernes "
    "[Q212657, member of: Accademia delle Arti del Disegno, notable works: Judith Slaying "
    "Holofernes]. She was the eldest child of the Tuscan painter Orazio Gentileschi [Q212657, "
    "father: Orazio Gentileschi]. Orazio Gentileschi was an Italian painter [NA] born in 1563 and "
    "died in 1639 [Q367360, ethnic group: Italians, date of birth: 1563-07-19, date of death: "
    "1639-02-07]. He was born in Pisa and died in London [Q367360, place of death: London]. "
    "Orazio's influence on Artemisia's development as a prominent Baroque [NA] painter can be seen "
    "in her highly naturalistic portrayal of figures, dramatic scenes and the use of chiaroscuro "
    "technique [NA]. He also provided her with the opportunity to study with him and learn from "
    "his experience and expertise. She became an important second-generation proponent of "
    "Caravaggio's dramatic realism [Q212657, movement: Caravaggisti]."
)


def summary(text: str, known=None) -> list[tuple]:
    """Per sentence: (clean text, [(qid, prop, value, sloppy)], na marks, entity-only ids)."""
    parsed = parse_answer(text, known)
    return [
        (s.clean_text, [(*c.triple, c.sloppy) for c in s.citations], s.na_marks, s.entity_only)
        for s in parsed.sentences
    ]


def issue_kinds(text: str, known=None) -> list[str]:
    return [issue.kind for issue in parse_answer(text, known).errors]


# (id, answer, known props, expected summary, expected issue kinds)
CASES = [
    ("canonical two pairs", "A painter [Q212657, ethnic group: Italians, occupation: painter].", None,
     [("A painter.", [("Q212657", "ethnic group", "Italians", False),
                      ("Q212657", "occupation", "painter", False)], 0, [])], []),
    ("bracket after the period", "Born in Rome. [Q1, place of birth: Rome] Died in Naples.", None,
     [("Born in Rome.", [("Q1", "place of birth", "Rome", False)], 0, []), ("Died in Naples.", [], 0, [])], []),
    ("bracket after period, no space", "Born in Rome.[NA] Died.", None,
     [("Born in Rome.", [], 1, []), ("Died.", [], 0, [])], []),
    ("na canonical", "Unknown claim [NA].", None, [("Unknown claim.", [], 1, [])], []),
    ("na sloppy spaces", "Claim [ NA ].", None, [("Claim.", [], 1, [])], []),
    ("na lower case", "Claim [na].", None, [("Claim.", [], 1, [])], []),
    ("na slash", "Claim [N/A].", None, [("Claim.", [], 1, [])], []),
    ("two na in one sentence", "A Baroque [NA] painter of technique [NA].", None,
     [("A Baroque painter of technique.", [], 2, [])], []),
    ("qid prefix", "Rome [qid: Q1, place of birth: Rome].", None,
     [("Rome.", [("Q1", "place of birth", "Rome", True)], 0, [])], []),
    ("missing spaces", "Rome [Q1,place of birth:Rome,occupation: painter].", None,
     [("Rome.", [("Q1", "place of birth", "Rome", True), ("Q1", "occupation", "painter", True)], 0, [])], []),
    ("only the later separator sloppy", "Rome [Q1, p: v,q: w].", None,
     [("Rome.", [("Q1", "p", "v", False), ("Q1", "q", "w", True)], 0, [])], []),
    ("semicolon separator", "Rome [Q1, p: v; q: w].", None,
     [("Rome.", [("Q1", "p", "v", False), ("Q1", "q", "w", True)], 0, [])], []),
    ("parentheses citation", "Rome (Q1, place of birth: Rome) and (born 1596).", None,
     [("Rome and (born 1596).", [("Q1", "place of birth", "Rome", True)], 0, [])], []),
    ("brackets in a row", "Rome [Q1, p: a][Q1, q: b][NA].", None,
     [("Rome.", [("Q1", "p", "a", False), ("Q1", "q", "b", False)], 1, [])], []),
    ("entity only", "Gentileschi [Q212657] painted [Q212657, occupation: painter].", None,
     [("Gentileschi painted.", [("Q212657", "occupation", "painter", False)], 0, ["Q212657"])], []),
    ("freebase mid", "An actor [m.0c94fn, profession: actor].", None,
     [("An actor.", [("m.0c94fn", "profession", "actor", False)], 0, [])], []),
    ("fb15k mid spelling", "An actor [/m/0c94fn, profession: actor].", None,
     [("An actor.", [("m.0c94fn", "profession", "actor", True)], 0, [])], []),
    ("lower-case qid", "X [q5, instance of: human].", None,
     [("X.", [("Q5", "instance of", "human", True)], 0, [])], []),
    ("double brackets", "X [[Q5, instance of: human]].", None,
     [("X.", [("Q5", "instance of", "human", True)], 0, [])], []),
    ("value with a comma, no labels", "Born [Q1, date of birth: July 8, 1596].", None,
     [("Born.", [("Q1", "date of birth", "July 8, 1596", False)], 0, [])], []),
    ("value with colon split blindly", "W [Q1, notable works: Love, Death: Robots, occupation: painter].", None,
     [("W.", [("Q1", "notable works", "Love", False), ("Q1", "Death", "Robots", False),
              ("Q1", "occupation", "painter", False)], 0, [])], []),
    ("value with colon kept by known labels", "W [Q1, notable works: Love, Death: Robots, occupation: painter].",
     {"notable works", "occupation"},
     [("W.", [("Q1", "notable works", "Love, Death: Robots", False),
              ("Q1", "occupation", "painter", False)], 0, [])], []),
    ("known labels per entity", "W [Q1, notable works: Love, Death: Robots, occupation: painter].",
     {"Q1": {"notable works", "occupation"}, "Q2": {"Death"}},
     [("W.", [("Q1", "notable works", "Love, Death: Robots", False),
              ("Q1", "occupation", "painter", False)], 0, [])], []),
    ("invented label still splits", "It [Q1, occupation: painter, citizen: Italy].", {"occupation"},
     [("It.", [("Q1", "occupation", "painter", False), ("Q1", "citizen", "Italy", False)], 0, [])], []),
    ("category value kept by known labels", "X [Q1, topic: Category:Stephen Crane, religion: atheism].",
     {"topic", "religion"},
     [("X.", [("Q1", "topic", "Category:Stephen Crane", False), ("Q1", "religion", "atheism", False)], 0, [])], []),
    ("two subjects in one bracket", "X [Q1, p: v, Q2, q: w].", None,
     [("X.", [("Q1", "p", "v", False), ("Q2", "q", "w", True)], 0, [])], []),
    ("subject given last (Table 12 form)", "X [name: Orazio, qid: Q367360].", None,
     [("X.", [("Q367360", "name", "Orazio", True)], 0, [])], []),
    ("missing subject", "Born in Rome [place of birth: Rome].", None,
     [("Born in Rome.", [("", "place of birth", "Rome", True)], 0, [])], ["missing_subject"]),
    ("missing value", "Born [Q1, place of birth].", None,
     [("Born.", [("Q1", "place of birth", "", True)], 0, [])], ["incomplete_citation"]),
    ("empty brackets", "Nothing [] here.", None, [("Nothing here.", [], 0, [])], ["empty_bracket"]),
    ("unrecognised brackets stay text", "He wrote [sic] this [1].", None,
     [("He wrote [sic] this [1].", [], 0, [])], ["unrecognised_bracket", "unrecognised_bracket"]),
    ("unterminated bracket", "Born in Rome [Q1, place of birth: Rome. Died [NA].", None,
     [("Born in Rome [Q1, place of birth: Rome.", [], 0, []), ("Died.", [], 1, [])], ["unterminated_bracket"]),
    ("unterminated bracket swallows no sentence end", "Born [Q1, p: v and [NA] more. Died.", None,
     [("Born [Q1, p: v and more.", [], 1, []), ("Died.", [], 0, [])], ["unterminated_bracket"]),
    ("unbalanced close", "Born ] in Rome [NA].", None, [("Born ] in Rome.", [], 1, [])], ["unbalanced_close"]),
    ("abbreviations and initials", "Dr. J. R. Smith lived in St. Louis [Q1, residence: St. Louis]. He died.", None,
     [("Dr. J. R. Smith lived in St. Louis.", [("Q1", "residence", "St. Louis", False)], 0, []),
      ("He died.", [], 0, [])], []),
    ("mid-sentence bracket before a comma", "He attended Syracuse [Q1, alma mater: Syracuse], where he wrote.", None,
     [("He attended Syracuse, where he wrote.", [("Q1", "alma mater", "Syracuse", False)], 0, [])], []),
    ("paragraphs and list items", "Intro [NA]\n\n- first [Q1, p: v]\n- second", None,
     [("Intro", [], 1, []), ("first", [("Q1", "p", "v", False)], 0, []), ("second", [], 0, [])], []),
    ("mark alone after a blank line joins the sentence before", "He died.\n\n[NA]\n\nNext.", None,
     [("He died.", [], 1, []), ("Next.", [], 0, [])], []),
    ("only a mark", "[NA]", None, [("", [], 1, [])], []),
    ("empty answer", "", None, [], []),
    ("nested brackets inside a value", "X [Q1, notable works: Untitled [study]].", None,
     [("X.", [("Q1", "notable works", "Untitled [study]", False)], 0, [])], []),
]


@pytest.mark.parametrize("text,known,expected,issues", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_parser_truth_table(text, known, expected, issues):
    assert summary(text, known) == expected
    assert issue_kinds(text, known) == issues


def test_table_13_demonstration():
    parsed = parse_answer(TABLE_13_ANSWER)
    assert len(parsed.sentences) == 8
    assert [len(s.citations) for s in parsed.sentences] == [3, 2, 1, 3, 1, 0, 0, 1]
    assert [s.na for s in parsed.sentences] == [True, False, False, True, False, True, False, False]
    assert (parsed.n_citations, parsed.n_na, parsed.n_sloppy, parsed.errors) == (11, 4, 0, [])
    assert parsed.sentences[3].citations[1].triple == ("Q367360", "date of birth", "1563-07-19")


def test_counts_and_offsets():
    text = "A [Q1, p: v][Q1, p: v] [na]. B [qid: Q2, q: w] [Q3]."
    parsed = parse_answer(text)
    assert ((parsed.n_citations, parsed.n_sloppy, parsed.n_na, parsed.n_na_sloppy, parsed.n_entity_only)
            == (3, 1, 1, 1, 1))
    for sentence in parsed.sentences:
        assert text[sentence.span[0]:sentence.span[1]] == sentence.text
    assert parsed.sentences[0].citations[0].raw == "[Q1, p: v]"


def test_render_citation():
    assert render_citation("Q1", [("p", "v"), ("q", "w")]) == "[Q1, p: v, q: w]"
    assert render_citation("Q1") == "[Q1]"


# --- properties ---------------------------------------------------------------------------------

ID_RE = re.compile(r"(?:[Qq][1-9]\d*|[mg]\.[0-9a-z_]+|/[mg]/[0-9a-z_]+)(?!\w)\s*(?:[,;]|$)")
NA_RE = re.compile(r"(?i:n\s*/?\s*a)\s*(?:[,;]|$)")
INVENTED_KEY_RE = re.compile(r"[^\W\d_][\w'\u2019\- ]*")


def unambiguous(value: str, labels: set[str]) -> bool:
    """The documented grammar's condition for a value to read back whole: no `,`/`;` inside it is
    followed by a known label and `:`, an entity id or NA ending the segment, a lowercase key and
    `: ` (an invented property), or nothing. Written here independently of the parser."""
    keys = {" ".join(label.split()).casefold() for label in labels}
    for found in re.finditer(r"[,;]", value):
        after = value[found.end():]
        head = after.lstrip()
        if not head or ID_RE.match(head) or NA_RE.match(head):
            return False
        if ":" in head:
            key, rest = head.split(":", 1)
            if any(c in key for c in ",;"):
                continue
            if " ".join(key.split()).casefold() in keys:
                return False
            key = key.strip()
            if key[:1].islower() and INVENTED_KEY_RE.fullmatch(key) and len(key.split()) <= 6 \
                    and (not rest or rest[0].isspace()):
                return False
    return True


subjects = st.one_of(
    st.integers(1, 10**9).map(lambda n: f"Q{n}"),
    st.text("0123456789abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8).map(lambda tail: f"m.0{tail}"),
)
LABEL_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ\u00e9\u00df"
labels = st.builds(
    lambda first, rest: (first + rest).rstrip(),
    st.sampled_from(LABEL_LETTERS),
    st.text(LABEL_LETTERS + "0123456789' -", max_size=20),
).filter(lambda label: label.casefold() not in {"qid", "mid", "id"})
value_pieces = st.one_of(
    st.sampled_from([",", ":", ";", ", ", ": ", " ", "Q5", "NA", "m.0ab", "é", "日本", "(", ")", "St. Louis",
                     "1596-07-08", "Category:Crane", "occupation", "Ω", "\u00a0x"]),
    st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="[]\n\r"), max_size=6),
)
values = st.lists(value_pieces, min_size=1, max_size=5).map(lambda pieces: "".join(pieces).strip()).filter(bool)


@st.composite
def cited_answers(draw):
    groups = draw(st.lists(
        st.tuples(subjects, st.lists(st.tuples(labels, values), min_size=1, max_size=3)),
        min_size=1, max_size=3,
    ))
    all_labels = {label for _, pairs in groups for label, _ in pairs}
    for _, pairs in groups:
        for _, value in pairs:
            assume(unambiguous(value, all_labels))
    per_entity = draw(st.booleans())
    known: dict[str, set[str]] | set[str] = {}
    if per_entity:
        for subject, pairs in groups:
            known.setdefault(subject, set()).update(label for label, _ in pairs)
    else:
        known = all_labels
    joiner = draw(st.sampled_from(["", " "]))
    text = "The answer " + joiner.join(render_citation(s, pairs) for s, pairs in groups) + ". Next."
    expected = [(s, label, value) for s, pairs in groups for label, value in pairs]
    return text, known, expected


@settings(max_examples=200, deadline=None)
@given(cited_answers())
def test_rendered_triples_parse_back(case):
    text, known, expected = case
    parsed = parse_answer(text, known)
    assert [c.triple for c in parsed.citations] == expected
    assert not any(c.sloppy for c in parsed.citations)
    assert parsed.errors == []


answer_pieces = st.one_of(
    st.sampled_from(["[", "]", "(", ")", "Q1", "q2", "m.0x", "/m/0y", ",", ";", ":", " ", "NA", "na", "qid:",
                     ". ", "\n", "\n\n", "- ", "Dr.", "A", "é", "[NA]", "[Q1, p: v]", "…", "。", "\u00a0"]),
    st.text(max_size=8),
)
answers = st.lists(answer_pieces, max_size=30).map("".join)
known_props = st.one_of(
    st.none(),
    st.sets(st.sampled_from(["p", "occupation", "place of birth", "NA", "q2"])),
    st.dictionaries(st.sampled_from(["Q1", "Q2", "m.0x"]), st.sets(st.sampled_from(["p", "q", "date"]))),
)


@settings(max_examples=500, deadline=None)
@given(answers, known_props)
def test_arbitrary_text_never_raises(text, known):
    parsed = parse_answer(text, known)
    assert parsed.n_citations == len(parsed.citations)
    assert parsed.n_sloppy <= parsed.n_citations
    assert parsed.n_na == sum(s.na_marks for s in parsed.sentences)
    for sentence in parsed.sentences:
        assert text[sentence.span[0]:sentence.span[1]] == sentence.text
        assert sentence.clean_text == sentence.clean_text.strip()
