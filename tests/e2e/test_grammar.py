"""The citation grammar for constrained decoding, checked with llama.cpp's own grammar parser and
matcher (the packaged SmolLM2 GGUF's vocabulary only: no weights, no generation)."""

from __future__ import annotations

import pytest

from kalma_graph.generation.grammar import (
    GrammarChecker,
    GrammarError,
    build_citation_grammar,
    citation_grammar,
    gbnf_literal,
)
from kalma_graph.kg.citations import known_props, parse_answer
from kalma_graph.kg.triples import Entity, Triple

ARTEMISIA = Entity("Q212657", name="Artemisia Gentileschi")
ORAZIO = Entity("Q367360", name="Orazio Gentileschi")
TRIPLES = [
    Triple("Q212657", "P19", "place of birth", "Rome", object_id="Q220"),
    Triple("Q212657", "P106", "occupation", "painter", object_id="Q1028181"),
    Triple("Q212657", "P800", "notable works", "Love, Death: Robots"),  # a value with ", word:" inside
    Triple("Q367360", "P20", "place of death", "London", object_id="Q84"),
    Triple("Q367360", "P570", "date of death", "1639-02-07", datatype="time"),
    Triple("Q367360", "P1449", "nickname", 'the "Tuscan" \\ painter'),
    Triple("Q367360", "P9999", "odd", "x [y]"),  # cannot be written inside a citation mark
    Triple("Q367360", "P108", "employer", "Q999", object_id="Q999"),  # an object without a name
]


@pytest.fixture(scope="module")
def checker():
    return GrammarChecker.from_model_path()


@pytest.fixture(scope="module")
def grammar():
    return build_citation_grammar([ARTEMISIA, ORAZIO], TRIPLES)


def test_grammar_text(grammar):
    lines = grammar.text.splitlines()
    start = lines.index('c0 ::= "[" "Q212657" ", " c0-any "]"')
    assert lines[start + 1 : start + 3] == ['c0-0 ::= "name: Artemisia Gentileschi"', 'c0-1 ::= "place of birth: Rome"']
    assert lines[start + 5] == 'c0-any ::= c0-0 c0-2-0 | c0-1 c0-2-1 | c0-2 c0-2-2 | c0-3 c0-2-3'
    assert lines[start + 6] == 'c0-2-0 ::= (", " (c0-1 c0-1-1 | c0-2 c0-1-2 | c0-3 c0-1-3))?'
    assert 'c1-3 ::= "nickname: the \\"Tuscan\\" \\\\ painter"' in lines
    assert grammar.pairs["Q212657"] == [
        ("name", "Artemisia Gentileschi"),
        ("place of birth", "Rome"),
        ("occupation", "painter"),
        ("notable works", "Love, Death: Robots"),
    ]
    assert lines[0] == "root ::= [ \\t\\n]* s?"
    assert [t.value for t in grammar.left_out] == ["x [y]", "Q999"]
    assert grammar.n_pairs == 8


def test_literals_escape_what_gbnf_needs():
    assert gbnf_literal('a "b" \\ c\nd\te\x01') == '"a \\"b\\" \\\\ c\\nd\\te\\x01"'


def test_llama_cpp_parses_the_grammar(checker, grammar):
    checker.validate(grammar.text)
    checker.validate(citation_grammar([], []))
    with pytest.raises(GrammarError):
        checker.validate('root ::= "unterminated')
    with pytest.raises(GrammarError):
        checker.validate("root ::= undefined-rule")


ACCEPTED = [
    "",
    "Plain text with no citation at all.",
    "Artemisia was born in Rome [Q212657, place of birth: Rome].",
    "She painted [Q212657, occupation: painter, place of birth: Rome] and died later [NA].",
    "Two marks [Q212657, name: Artemisia Gentileschi][Q367360, place of death: London] in a row.",
    "A value with a comma [Q212657, notable works: Love, Death: Robots].",
    "He died in 1639 [Q367360, date of death: 1639-02-07]",
    'Nicknamed [Q367360, nickname: the "Tuscan" \\ painter].',
    "Sentence one [NA]. Sentence two [NA].\n\nA new paragraph [Q367360, place of death: London].",
    "Three marks [Q212657, occupation: painter] [NA] [Q367360, place of death: London] are the most.",
    "Same entity after words [Q212657, occupation: painter] and [Q212657, place of birth: Rome].",
    "Three pairs [Q212657, place of birth: Rome, occupation: painter, notable works: Love, Death: Robots].",
    "A, B, A: the one repeat the grammar lets through [Q212657, occupation: painter, place of birth: Rome, "
    "occupation: painter].",
    "Initials and titles: Samuel R. Delany read D. H. Lawrence with Dr. Smith [NA].",
    "Right after a mark [Q212657, occupation: painter][NA] is fine.",
    "J. R. R. Tolkien was born in Bloemfontein [NA]. U.S. Army records say so [NA].",
]

REJECTED = [
    "Wrong value [Q212657, place of birth: Paris].",  # not a retrieved triple
    "Wrong subject [Q367360, place of birth: Rome].",  # a triple of the other entity
    "Unknown entity [Q1, place of birth: Rome].",
    "Entity only [Q212657].",
    "Sloppy spacing [Q212657,place of birth: Rome].",
    "Sloppy [qid: Q212657, place of birth: Rome].",
    "Lowercase [na].",
    "A number [1] as a reference.",
    "A stray ] bracket.",
    "Left out [Q367360, odd: x [y]].",
    "Repeated value [Q212657, place of birth: Rome, Rome].",
    # Bounds against loops: one [NA] per sentence, at most three marks, no entity twice in a row.
    "Looping [NA] [NA] [NA] [NA] [NA].",
    "Two na in one sentence [NA] and again [NA].",
    "Too many [Q212657, occupation: painter] marks [Q367360, place of death: London] in one "
    "[Q212657, place of birth: Rome] sentence [NA].",
    "Same entity twice [Q212657, occupation: painter] [Q212657, occupation: painter].",
    "Same entity, no space [Q212657, occupation: painter][Q212657, place of birth: Rome].",
    # A pair never follows itself.
    "A pair twice [Q212657, occupation: painter, occupation: painter].",
    "A pair twice at the end [Q212657, place of birth: Rome, occupation: painter, occupation: painter].",
    "Four pairs [Q212657, occupation: painter, occupation: painter, occupation: painter, occupation: painter].",
    "An object known only by its id [Q367360, employer: Q999].",
    "A mark alone after the end. [NA]",
    # A lone initial is no sentence (the 1.5B model wrote `J..` when a name began one).
    "J.. C. [NA]",
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_accepted(checker, grammar, text):
    assert checker.accepts(grammar.text, text)


@pytest.mark.parametrize("text", REJECTED)
def test_rejected(checker, grammar, text):
    assert not checker.accepts(grammar.text, text)


def test_unfinished_citation_cannot_end_but_is_a_valid_prefix(checker, grammar):
    text = "Born in [Q212657, place of"
    assert not checker.accepts(grammar.text, text)
    assert checker.accepts(grammar.text, text, complete=False)


def test_no_retrieved_knowledge_allows_only_na(checker):
    text = citation_grammar([], [])
    assert checker.accepts(text, "I do not know [NA].")
    assert not checker.accepts(text, "Born in Rome [Q212657, place of birth: Rome].")


def test_without_name_pairs(checker):
    text = citation_grammar([ARTEMISIA], TRIPLES, allow_name=False)
    assert not checker.accepts(text, "X [Q212657, name: Artemisia Gentileschi].")
    assert checker.accepts(text, "X [Q212657, occupation: painter].")


def test_every_accepted_citation_parses_to_a_given_triple(grammar):
    # What the grammar lets through, the shared parser reads back as exactly the shown triples.
    given = {(t.subject, t.label, t.value) for t in TRIPLES} | {
        ("Q212657", "name", "Artemisia Gentileschi"),
        ("Q367360", "name", "Orazio Gentileschi"),
    }
    props = known_props([ARTEMISIA, ORAZIO], TRIPLES)
    for text in ACCEPTED:
        parsed = parse_answer(text, props)
        assert parsed.n_sloppy == 0, text
        assert all(c.triple in given for c in parsed.citations), text


EVERY_SENTENCE_ACCEPTED = [
    "Artemisia was born in Rome [Q212657, place of birth: Rome].",
    "She painted [Q212657, occupation: painter]. She died in Naples [NA].",
    "Two marks [Q212657, name: Artemisia Gentileschi] [Q367360, place of death: London]!",
    "One sentence [NA].\n\nA new paragraph [Q367360, date of death: 1639-02-07]?",
]
EVERY_SENTENCE_REJECTED = [
    "",
    "Artemisia was born in Rome.",  # a sentence without a mark
    "Born in Rome [Q212657, place of birth: Rome]. Then more text",  # ends inside a sentence
    "Born in Rome [Q212657, place of birth: Paris].",  # the marks are still checked
    "[NA].",  # a mark needs a claim
]


@pytest.mark.parametrize("text", EVERY_SENTENCE_ACCEPTED)
def test_every_sentence_mode_accepts(checker, text):
    grammar = citation_grammar([ARTEMISIA, ORAZIO], TRIPLES, mode="every_sentence")
    assert checker.accepts(grammar, text)


@pytest.mark.parametrize("text", EVERY_SENTENCE_REJECTED)
def test_every_sentence_mode_rejects(checker, text):
    grammar = citation_grammar([ARTEMISIA, ORAZIO], TRIPLES, mode="every_sentence")
    assert not checker.accepts(grammar, text)


def test_attribute_first_sentences_may_begin_with_initials_but_are_never_one():
    """Sentences of the attribute-first form may start with a name's initials; a lone initial with a
    period is not a sentence. The rejected text is what the 1.5B model wrote for a question about
    J. R. R. Tolkien and C. S. Lewis (Table 3), with this test's graph's triple."""
    grammar = citation_grammar([ARTEMISIA, ORAZIO], TRIPLES, mode="attribute_first")
    checker = GrammarChecker.from_model_path()
    assert checker.accepts(grammar,
                           "[NA] J. R. R. Tolkien was born in Bloemfontein. [NA] C. S. Lewis taught at Oxford.")
    assert not checker.accepts(grammar, "[Q212657, place of birth: Rome] [NA] J..  [NA] C. [NA] J.")


def test_unknown_mode_is_an_error():
    with pytest.raises(ValueError, match="grammar mode"):
        citation_grammar([ARTEMISIA], TRIPLES, mode="always")
