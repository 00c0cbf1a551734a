"""Verifier 24's readings (issue 44), from the errors of v2, v3, v8, v13, v14 and v16 with verifier 23 (development
data by then): a nation said after another relation's verb ("worked in Greece", "born on May 25, 1972, India") is not
its citizenship; "English" is not the United Kingdom; a day and month where the graph holds the year alone are not
held; a role noun ("a professor at") is a claim of its own, though it is the cue of `employer`; and a century ("the
early 13th century", "the late 4th or early 3rd century BC") is a date, contradicted by a held year outside it."""

from __future__ import annotations

import pytest

from kalma_graph.verification.lexicon import load_lexicon
from kalma_graph.verification.text import DateValue, dates_in, tokenize
from tests.unit.test_verifier_readings_v12_v13 import check, statuses


@pytest.mark.parametrize("start, version, verb", [
    # each cites `country of citizenship` for the nation; both passes of each set: not fully supported
    ("Christina Onassis was a businessperson who worked in Greece", "v16", "worked in"),
    ("Ang Duong was born and grew up in Cambodia", "v8", "grew up"),
    ("Karan Johar is a Hindu actor who was born on May 25, 1972, India", "v14", "born on May 25, 1972, India"),
    ("Lata Mangeshkar was a world music singer who was born on September 28, 1929, India", "v3", "born on"),
])
def test_a_nation_after_another_relations_verb_is_not_citizenship(start, version, verb):
    sentence = check(start, version)
    assert not sentence.fully_supported
    cited = next(c for c in sentence.citations if c.relation == "country of citizenship")
    assert cited.verdict == "partial" and verb in cited.reason, cited.reason


@pytest.mark.parametrize("start, version", [
    ("Hosni Mubarak was involved in politics", "v11"),  # `field of work`: a verb with no nation after it
    ("Jerry Lawler was involved in professional wrestling", "v5"),
])
def test_a_verb_before_another_relations_value_still_supports(start, version):
    assert check(start, version).fully_supported


@pytest.mark.parametrize("start, version", [
    ("Christabel Pankhurst was an English suffragist", "v16"),
    ("Andy Murray, an English professional tennis player", "v2"),
])
def test_english_is_not_the_united_kingdom(start, version):
    # `country of citizenship: United Kingdom`: "British" states it, "English" does not (both passes of v2 and v16)
    sentence = check(start, version)
    assert not sentence.fully_supported
    assert next(c for c in sentence.claims if c.text == "English").status == "absent"


def test_a_day_where_the_graph_holds_the_year_alone():
    # Cleopatra Thea: the graph holds -0120 and no day; both passes of v16: partly supported, not fully
    sentence = check("Cleopatra Thea died of poison on January 20, 120 BCE", "v16")
    assert not sentence.fully_supported
    dated = next(c for c in sentence.citations if c.relation == "date of death")
    assert dated.verdict == "partial" and "only the year" in dated.reason, dated.reason


def test_the_year_citation_beside_a_held_full_date_counts():
    # Sima Yi: the graph holds 0179 and 0179-01-01, both cited; v9's passes call both supported
    sentence = check("Sima Yi was born on January 1, 179", "v9")
    assert sentence.fully_supported
    assert {c.verdict for c in sentence.citations if c.relation == "date of birth"} == {"supported"}


def test_a_role_noun_is_a_claim_of_its_own():
    # Kipling: `employer: University of St Andrews` holds no professorship (both passes of v14: not fully supported)
    sentence = check("Rudyard Kipling was a professor at the University of St Andrews", "v14")
    assert [c.text for c in sentence.claims if c.status == "absent"] == ["professor"]
    assert {c.verdict for c in sentence.citations} == {"supported"}


def test_a_role_noun_a_cited_value_names_is_held():
    # Max Wolf cites `position held: professor` beside the employer (v16's passes: fully supported)
    assert check("Max Wolf was a professor at Heidelberg University", "v16").fully_supported


@pytest.mark.parametrize("text, first, last", [
    ("born in the 13th century", 1201, 1300),
    ("born in the early 13th century", 1201, 1250),
    ("born in the late 4th or early 3rd century BC", -349, -250),  # 350 BC to 251 BC
    ("died in the 5th-6th centuries", 401, 600),
    ("in the mid 9th century", 826, 875),
])
def test_centuries_are_periods(text, first, last):
    lex = load_lexicon()
    found = [d for _, _, d in dates_in(tokenize(text), lex.month_index, eras=(lex.era_bc_words, lex.era_ad_words),
                                             centuries=lex.centuries)]
    assert len(found) == 1 and isinstance(found[0], DateValue)
    period = found[0]
    assert (period.year, period.year + period.years - 1) == (first, last)
    assert period.holds_year(first) and period.holds_year(last) and not period.holds_year(last + 1)


def test_no_century_without_its_noun():
    lex = load_lexicon()
    assert dates_in(tokenize("the 13th pharaoh of the dynasty"), lex.month_index,
                    eras=(lex.era_bc_words, lex.era_ad_words), centuries=lex.centuries) == []


@pytest.mark.parametrize("start, text", [
    # Lorenzo Tiepolo: the graph holds 1300, the last year of the 13th century, not its early half
    ("His exact date and place of birth are not known, though he was born in Venice", "early 13th century"),
    # Publius Claudius Pulcher: the graph holds -0058
    ("His date and place of birth are not recorded, though he was presumably born in Rome",
     "late 4th or early 3rd century BC"),
])
def test_a_century_that_does_not_hold_the_held_year_is_contradicted(start, text):
    claims = statuses(start, "v13")
    assert claims.get(text) == "contradicted", claims
