"""Verifier 14's to 16's readings (issue 44), each from a real sentence of the labelled set the version before it was
scored on once and then developed on: verifier 14's from v6 (a "he" is no country, a relative's name the graph gives
to someone else, a family word's stem only with a family word's ending, a son named like his father, the clause
after "the wife of X", a denial said of whoever holds it, a date after words of elapsed time, a wider cue of another
relation, a held value wider than the cited one); verifier 15's from v7 (a date written month first, no place is
born, a value in another clause than its cue's, "only" before a family word, a nation after another value and "of");
verifier 16's from v8 ("his life ended/began", a cue after "where", an approximate year, a given name before "von",
a pronoun that fits nobody spoken of, "of the" before a nation; a son or daughter is no claim of sex)."""

from __future__ import annotations

import pytest

from kalma_graph.verification import Verifier
from kalma_graph.verification.lexicon import load_lexicon
from kalma_graph.verification.records import AnswerInput, CitedTriple, GraphEntity, GraphTriple
from tests.unit.test_verifier_readings_v12_v13 import check, statuses


def _linked(question: str, before: str, sentence: str, triples: list[tuple[str, str, str, str]]):
    """A sentence of a chatbot answer, after the sentence `before` it, checked against the graph a verify run linked
    (the labelled items show only persons' triples): (entity id, name, relation, value) rows; the answer's first
    sentence names the first entity."""
    shown = [GraphTriple(subject=i, label=r, value=v) for i, _, r, v in triples]
    names = list({i: GraphEntity(id=i, name=n) for i, n, _, _ in triples}.values())
    answer = AnswerInput(question=question, shown=shown, entities=names,
                         sentences=[(f"{names[0].name} was an artist.", []), (before, []), (sentence, [])])
    return {c.text: c.status for c in Verifier().verify(answer).sentences[-1].claims}


def test_a_country_is_no_he():
    # "he" after "After treatment in Germany" is Bob Marley, not Germany (`instance of: country`): his date of
    # death, 11 May 1981 where the graph holds 1981-04-11, is contradicted (it was absent, said of Germany)
    marley = [("Q409", "Bob Marley", "date of death", "1981-04-11"), ("Q409", "Bob Marley", "instance of", "human"),
              ("Q183", "Germany", "instance of", "country"), ("Q183", "Germany", "continent", "Europe")]
    claims = _linked("Where was Bob Marley born and how did he die?", "He was diagnosed with melanoma in 1977.",
                     "After treatment in Germany with Dr Josef "
                     "Issels, he tried to return to Jamaica but died on 11 May 1981 at Cedars of Lebanon Hospital in "
                     "Miami, Florida, aged 36.", marley)
    assert claims["11 May 1981"] == "contradicted", claims


def test_a_country_is_no_ones_relative():
    # "after the Soviet invasion of Poland" had named Poland as its own relative (contradicted)
    witkacy = [("Q381238", "Stanisław Ignacy Witkiewicz", "spouse", "Jadwiga Unrug"),
               ("Q381238", "Stanisław Ignacy Witkiewicz", "instance of", "human"),
               ("Q381238", "Stanisław Ignacy Witkiewicz", "country of citizenship", "Poland"),
               ("Q381238", "Stanisław Ignacy Witkiewicz", "sex or gender", "male"),
               ("Q36", "Poland", "instance of", "country"), ("Q36", "Poland", "capital", "Warsaw")]
    # the sentence before it opens with Poland: "Back in Poland he developed the theory of Pure Form"
    claims = _linked("Who was Stanisław Ignacy Witkiewicz?", "Back in Poland he developed the theory of Pure Form.",
                     "He married Jadwiga Unrug in 1923, and on 18 September "
                     "1939, after the Soviet invasion of Poland, he committed suicide in the village of Jeziory in "
                     "Polesie.", witkacy)
    assert claims["Poland"] != "contradicted", claims


READINGS_V14 = [  # verifier 14's, on v6 chatbot sentences: (start, claim, status), read by `test_chatbot_readings`
    # Kim Il-sung's `child` is the name "Kim Jong-il"; the graph's entity of that name is an athlete born in 1962,
    # who names no parent: what the answer says of the son is not contradicted by the athlete's date
    ("His first wife was the guerrilla fighter Kim Jong-suk", "1941", "absent"),
    # "Song-ju" is no "son": "born Kim Song-ju … to Kim Hyong-jik" had inverted his father
    ("Kim Il-sung was born Kim Song-ju", "Kim Hyong-jik", "absent"),
    # the graph holds a father and a son named Raffaele Cadorna: "the son of" states the father, no inversion
    ("Luigi Cadorna was born on 4 September 1850", "General Raffaele Cadorna", "supported_uncited"),
    # "the first wife of Albert Einstein, born on V": her birth, not his (both were contradicted as Einstein's)
    ("Mileva Marić was a Serbian physicist", "19 December 1875", "supported_uncited"),
    ("Mileva Marić was a Serbian physicist", "Titel", "supported_uncited"),
    # "when Tughril died childless": said of Tughril, not of Alp Arslan, whose son the graph holds
    ("He succeeded his father as ruler of Khorasan", "childless", "absent"),
    # "died of the wound a few days later, in November 1072", where the graph holds 1072-12-15; "In late 1072"
    # earlier in the sentence no longer shields it
    ("In late 1072, while campaigning against the Karakhanids", "November 1072", "contradicted"),
]


def test_a_wider_cue_of_another_held_relation_only_partly_supports():
    # "doctoral students" is the cue of `doctoral student` (held for Leibniz), not of `student` (cited for Papin)
    sentence = check("Christiaan Huygens's doctoral students were", "v6")
    assert [(c.value, c.verdict) for c in sentence.citations] == [
        ("Denis Papin", "partial"), ("Gottfried Wilhelm Leibniz", "supported")]
    assert not sentence.fully_supported


def test_a_held_value_wider_than_the_cited_one_is_not_cited():
    # "a stage actor", citing `field of work: acting`: the graph holds `occupation: stage actor`, uncited
    sentence = check("Jean-Paul Belmondo was also a stage actor", "v6")
    assert {c.text: c.status for c in sentence.claims} == {"stage actor": "supported_uncited"}
    assert not sentence.fully_supported
    # the far side: "an ice hockey player", citing `sport: ice hockey`: "player" is the cue of `sport` (v5)
    gretzky = check("Wayne Gretzky is an ice hockey player who played for the Indianapolis Racers", "v5")
    assert gretzky.fully_supported, gretzky.claims


@pytest.mark.parametrize("word, kin", [
    ("son", "child"), ("sons", "child"), ("son-in-law", "child"), ("children", "child"), ("married", "spouse"),
    ("wedding", "spouse"), ("brotherhood", "sibling"), ("song-ju", None), ("song", None), ("sonata", None),
    ("mumbai", None), ("moment", None), ("kidnapped", None), ("wednesday", None),
])
def test_a_family_word_needs_a_family_words_ending(word, kin):
    assert load_lexicon().kin_class_of(word) == kin


# --- verifier 15, from the labelled set v7 after its one held-out scoring with verifier 14 -------------------------


READINGS_V15 = [  # verifier 15's, on v7 chatbot sentences: (start, claim, status), read by `test_chatbot_readings`
    # a date written month first keeps its comma inside the date: no such date had been contradicted (four of v7's
    # six contradicted sentences); Richard Fleischer died on 2006-03-24
    ("He died in Los Angeles on March 25, 2006", "March 25, 2006", "contradicted"),
    ("Quique Sánchez Flores is a Spanish football manager", "February 2, 1965", "contradicted"),
    # a value in another clause than the cue's: a relative's, the cue's object's, another verb's
    ("Salomon de Bray was the father of the painters", "1663", "absent"),
    ("Much of his family died in the plague", "1663", "absent"),
    ("She married Lionel Barrymore in 1904", "1923", "absent"),
    ("Roger Cicero had a son, born in 2009", "2009", "absent"),
    ("Some ancient sources claim Domitia Longina", "96", "absent"),
    ("Frederik Magle is a Danish composer", "Copenhagen", "absent"),
]


@pytest.mark.parametrize("start, word", [
    # "only" before a family word counts relatives, which the graph does not hold (both passes: not fully supported)
    ("Jim Walton's only child is Steuart Walton", "only"),
    ("Peter George Patmore's only known child is Coventry Patmore", "only"),
])
def test_only_before_a_family_word_is_a_claim(start, word):
    sentence = check(start, "v7")
    assert {c.text: c.status for c in sentence.claims}.get(word) == "absent", sentence.claims
    assert not sentence.fully_supported


def test_a_nation_after_another_value_and_of_is_not_citizenship():
    # "the monarch of French Annam" says where he ruled; citing `country of citizenship: French Annam`: partly
    sentence = check("Thành Thái was the monarch of French Annam", "v7")
    assert [(c.relation, c.verdict) for c in sentence.citations] == [
        ("occupation", "supported"), ("country of citizenship", "partial")]
    # the far side: "a composer of opera" states `genre: opera` (the rule is a nation's relation only)
    mozart = [GraphTriple(subject="Q254", label="occupation", value="composer"),
              GraphTriple(subject="Q254", label="genre", value="opera")]
    answer = AnswerInput(question="Who was Mozart?", shown=mozart,
                         entities=[GraphEntity(id="Q254", name="Wolfgang Amadeus Mozart")],
                         sentences=[("Wolfgang Amadeus Mozart was a composer of opera.",
                                     [CitedTriple(subject="Q254", relation="genre", value="opera")])])
    assert [c.verdict for c in Verifier().verify(answer).sentences[0].citations] == ["supported"]


def test_born_and_raised_in_is_still_the_birthplace():
    # the far side of "born in 1977 and raised in Copenhagen": "born and raised in V" states the birthplace
    shown = [("Q1", "Frederik Magle", "place of birth", "Frederiksberg"),
             ("Q1", "Frederik Magle", "instance of", "human")]
    claims = _linked("Who is Frederik Magle?", "He is a composer.", "He was born and raised in Odense.", shown)
    assert claims["Odense"] == "contradicted", claims


def test_no_place_is_born():
    # "a politician from Rhode Island, born on V": the participle had given Rhode Island (a U.S. state) the date
    chafee = [("Q44690", "Lincoln Chafee", "place of birth", "Warwick"),
              ("Q44690", "Lincoln Chafee", "date of birth", "1953-03-26"),
              ("Q44690", "Lincoln Chafee", "instance of", "human"),
              ("Q1387", "Rhode Island", "instance of", "U.S. state"),
              ("Q1387", "Rhode Island", "capital", "Providence")]
    claims = _linked("Who is Lincoln Chafee?", "He is a politician.", "Lincoln Chafee is an American politician from "
                     "Rhode Island, born on March 26, 1953, in Providence.", chafee)
    assert claims["March 26, 1953"] == "supported_uncited", claims
    assert claims["Providence"] == "contradicted", claims


# --- verifier 16, from the labelled set v8 after its one held-out scoring with verifier 15 -------------------------


READINGS_V16 = [  # verifier 16's, on v8 chatbot sentences: (start, claim, status), read by `test_chatbot_readings`
    # "his life ended/began" and ", where he was born" after the value are the relation's cues
    ("His life ended on 26 December 1945 in a plane crash", "26 December 1945", "contradicted"),
    ("His life began on 9 September 1778 in Ehrenbreitstein", "9 September 1778", "contradicted"),
    ("His story begins in Tabriz, where he was born on 21 June 1872", "Tabriz", "contradicted"),
    # "born around 601" where the graph holds 600: approximate, less than two years off (both passes: not contradicted)
    ("He was born around 601 into an artistic family", "601", "absent"),
]


@pytest.mark.parametrize("start, verdicts", [
    # "a sovereign of the Byzantine Empire": the nation after "of the" says where he ruled, not his citizenship
    ("Alexios III Angelos was a sovereign of the Byzantine Empire", ["supported", "partial"]),
    # "… father, Vikram Sarabhai, … earned his MBA": "his" fits none of the persons spoken of (Mallika is female) and
    # is the father named before it, not Mallika, whose alma mater and degree are cited
    ("Mallika Sarabhai's father, Vikram Sarabhai", ["unsupported", "unsupported", "supported"]),
])
def test_citation_readings_v16(start, verdicts):
    assert [c.verdict for c in check(start, "v8").citations] == verdicts


def test_a_son_or_daughter_is_a_claim_of_sex_again():
    # verifier 15 made "daughter" a claim where the graph shown does not hold the child's sex; both passes of v8 (and
    # those of v2 and v4) call such a sentence fully supported, those of v7 did not, so verifier 16 dropped it.
    # Verifier 23 makes it a claim again: both passes of v14 and of v16 call "X's son was Y" (citing `child`) not
    # fully supported, six passes each way, and the rules' "adds any fact they do not hold" reads it so
    # (`test_verifier_readings_v23.py`)
    assert not check("Nur Jahan's daughter was Ladli Begum", "v8").fully_supported


def test_a_given_name_before_von_is_another_persons_name():
    # v8: the grounded answer cited Karl von Friedeburg's triple (his father's) for "Hans-Georg von Friedeburg was a
    # military officer": a given name before "von" joins the surname into another's name
    karl = [GraphTriple(subject="Q1522291", label="occupation", value="military officer"),
            GraphTriple(subject="Q1522291", label="child", value="Hans-Georg von Friedeburg")]
    answer = AnswerInput(question="Who was Hans-Georg von Friedeburg?", shown=karl,
                         entities=[GraphEntity(id="Q1522291", name="Karl von Friedeburg")],
                         sentences=[("Hans-Georg von Friedeburg was a military officer.", [
                             CitedTriple(subject="Q1522291", relation="occupation", value="military officer")])])
    assert [c.verdict for c in Verifier().verify(answer).sentences[0].citations] == ["unsupported"]


@pytest.mark.parametrize("version, start, text, status", [("v6", *r) for r in READINGS_V14]
                         + [("v7", *r) for r in READINGS_V15] + [("v8", *r) for r in READINGS_V16])
def test_chatbot_readings(version, start, text, status):
    claims = statuses(start, version)
    assert claims.get(text) == status, claims
