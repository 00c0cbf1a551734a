"""Verifier 10's and 11's readings (issue 44), each from a real sentence: verifier 10's from the labelled sets v2 (dev
split) and committed runs (a namesake the question does not ask of, a family relation held by the other person's
triple, a value written with its own comma, a first name two persons share, a value in other words, a place the
graph cannot locate said where it holds an area); verifier 11's from the chatbot sentences of the labelled set v3,
after its one held-out scoring (a verb after "and" sharing the sentence's subject, a cue before a date, another
date in the held year, a common noun that names no place, causes of death that contradict nothing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kalma_graph.verification import Verifier
from kalma_graph.verification.lexicon import load_lexicon
from kalma_graph.verification.places import SaidPlaces, shown_lookup
from kalma_graph.verification.records import AnswerInput, CitedTriple, GraphEntity, GraphTriple

LABELS_V3 = Path(__file__).resolve().parents[2] / "bench" / "results" / "verifier" / "labels_v3"

CLELAND = [GraphTriple(subject="Q44931654", label="occupation", value="researcher", object_id="Q1650915"),
           GraphTriple(subject="Q44931654", label="employer", value="University of Hull", object_id="Q1474019"),
           GraphTriple(subject="Q44931654", label="sex or gender", value="male", object_id="Q6581097")]
CLELAND_NAME = [GraphEntity(id="Q44931654", name="John Cleland")]
CLELAND_Q = ("Who was John Cleland, what was his career, and where did he receive his education that honed his "
             "literary prowess?")


def cited(question: str, shown: list[GraphTriple], names: list[GraphEntity], sentence: str,
          *triples: tuple[str, str, str], previous: str = ""):
    sentences = ([(previous, [])] if previous else []) + [
        (sentence, [CitedTriple(subject=s, relation=r, value=v) for s, r, v in triples])]
    answer = AnswerInput(question=question, shown=shown, entities=names, sentences=sentences)
    return Verifier().verify(answer).sentences[-1]


def test_a_namesake_the_question_does_not_ask_of_supports_nothing():
    # grounded, dev question 95: the graph's only John Cleland is a researcher at Hull; the question asks of the
    # novelist ("literary prowess"). Both annotators: every citation 0. Verifier 9 called them supported.
    result = cited(CLELAND_Q, CLELAND, CLELAND_NAME, "John Cleland worked at the University of Hull.",
                   ("Q44931654", "employer", "University of Hull"))
    assert result.citations[0].verdict == "unsupported" and not result.fully_supported
    assert "namesake" in result.citations[0].reason and "researcher" in result.citations[0].reason
    assert result.claims and all(c.status == "absent" for c in result.claims), result.claims  # nor held uncited
    # asked with no field, or with one the researcher has, he is the one asked of
    for question in ("Who was John Cleland?", "What research did John Cleland do?"):
        result = cited(question, CLELAND, CLELAND_NAME, "John Cleland worked at the University of Hull.",
                       ("Q44931654", "employer", "University of Hull"))
        assert result.citations[0].verdict == "supported", (question, result.citations)


SIMEONE = [GraphTriple(subject="Q6439494", label="occupation", value="association football player"),
           GraphTriple(subject="Q6439494", label="father", value="Diego Simeone", object_id="Q258115"),
           GraphTriple(subject="Q231004", label="occupation", value="actor"),
           GraphTriple(subject="Q231004", label="member of political party", value="Republican Party"),
           GraphTriple(subject="Q3070885", label="occupation", value="film director"),
           GraphTriple(subject="Q2", label="place of birth", value="Paris")]
SIMEONE_NAMES = [GraphEntity(id="Q6439494", name="Giovanni Simeone"), GraphEntity(id="Q258115", name="Diego Simeone"),
                 GraphEntity(id="Q231004", name="Patricia Heaton"), GraphEntity(id="Q3070885", name="Zoya Akhtar"),
                 GraphEntity(id="Q2", name="Cai Yan")]


@pytest.mark.parametrize("question, person", [
    # dev questions: the field goes to the person named last before it ...
    ("How did the career and life of Diego Simeone influence his son, Giovanni Simeone's, path in football?",
     "Q6439494"),
    # ... who fits when any field the question gives them fits (an actor with a party: "political affiliations")
    ("Can you provide a brief biography of Patricia Heaton, including her early life, career in the entertainment "
     "industry, political affiliations, and current residence?", "Q231004"),
    # ... not when a family word stands between: the father's career is the father's
    ("Who are Zoya Akhtar's parents and how did her father's literary career shape her own?", "Q3070885"),
    # a person the graph says nothing of that kind about is never judged
    ("Who was Cai Yan and how did her poetry contribute to her recognition?", "Q2"),
])
def test_a_person_who_fits_a_field_the_question_gives_is_the_one_asked_of(question, person):
    from kalma_graph.verification.namesakes import namesakes
    from kalma_graph.verification.structure import GraphView, entity_mentions
    from kalma_graph.verification.text import tokenize

    lexicon = load_lexicon()
    view = GraphView.build(SIMEONE, SIMEONE_NAMES, lexicon)
    tokens = tokenize(question)
    found = namesakes(tokens, entity_mentions(tokens, view), view, lexicon)
    assert person not in found, found
    # the same questions with a field the person does not fit make them a namesake
    odd = question.replace("football", "tennis").replace("entertainment industry, political affiliations",
                                                           "military service").replace("father's ", "")
    if odd != question and person != "Q2":
        tokens = tokenize(odd)
        assert person in namesakes(tokens, entity_mentions(tokens, view), view, lexicon), odd


TAKELOT = [GraphTriple(subject="Q459153", label="father", value="Takelot I", object_id="Q1"),
           GraphTriple(subject="Q459153", label="spouse", value="Karomama", object_id="Q3"),
           GraphTriple(subject="Q560026", label="father", value="Osorkon II", object_id="Q459153"),
           GraphTriple(subject="Q560026", label="country of citizenship", value="Ancient Egypt", object_id="Q11768"),
           GraphTriple(subject="Q879176", label="father", value="Osorkon III", object_id="Q4")]
TAKELOT_NAMES = [GraphEntity(id="Q459153", name="Osorkon II"), GraphEntity(id="Q560026", name="Takelot II"),
                 GraphEntity(id="Q879176", name="Takelot III")]
TAKELOT_Q = ("How did Osorkon II's reign influence Takelot II's rise to power and what was the nature of Takelot II's "
             "rule in relation to his son, Takelot III?")


@pytest.mark.parametrize("sentence, status", [
    # attribute-first, dev: no claim at all was read (both names were the question's own: "restating the premise")
    ("Osorkon II was the father of Takelot II.", "supported_uncited"),  # Takelot II's own `father` holds it
    ("Osorkon II was the father of Takelot III.", "absent"),  # the graph gives Takelot III another father
])
def test_a_family_relation_to_a_person_the_question_names_is_a_claim(sentence, status):
    result = cited(TAKELOT_Q, TAKELOT, TAKELOT_NAMES, sentence, ("Q459153", "spouse", "Karomama"))
    named = {c.text: c.status for c in result.claims}
    assert named[sentence.split(" of ")[1].rstrip(".")] == status, result.claims
    assert not result.fully_supported  # the spouse cited does not hold it


def test_a_value_is_named_with_its_own_comma_and_an_alias_with_a_region_is_not_one_value():
    krasnov = [GraphTriple(subject="Q35448", label="award received", value="Order of Saint Anna, 2nd class"),
               GraphTriple(subject="Q35448", label="place of birth", value="Memphis", object_id="Q16563")]
    names = [GraphEntity(id="Q35448", name="Pyotr Krasnov"),
             GraphEntity(id="Q16563", name="Memphis", aliases=("Memphis, Tennessee",))]
    # attribute-first, dev: "a vaguer value" (partial) and two absent claims, both annotators: supported
    result = cited("", krasnov, names, "Pyotr Krasnov received the Order of Saint Anna, 2nd class.",
                   ("Q35448", "award received", "Order of Saint Anna, 2nd class"))
    assert result.citations[0].verdict == "supported" and result.fully_supported, result
    assert [c.text for c in result.claims] == ["Order of Saint Anna, 2nd class"]
    # chatbot, dev: "born in Memphis, Tennessee": the alias's region is a claim of its own (annotators: not full)
    result = cited("", krasnov, names, "Pyotr Krasnov was born in Memphis, Tennessee.",
                   ("Q35448", "place of birth", "Memphis"))
    assert not result.fully_supported and "Tennessee" in {c.text for c in result.claims}, result.claims


def test_a_first_name_two_persons_share_names_the_one_the_answer_is_about():
    # chatbot, dev: "Chiang studied at the Baoding Military Academy." after sentences naming Chiang Kai-shek and
    # Chiang Ching-kuo: "Chiang" named nobody, the academy was absent
    shown = [GraphTriple(subject="Q16574", label="alma mater", value="Baoding Military Academy"),
             GraphTriple(subject="Q16574", label="child", value="Chiang Ching-kuo", object_id="Q313598"),
             GraphTriple(subject="Q313598", label="place of birth", value="Fenghua District")]
    names = [GraphEntity(id="Q16574", name="Chiang Kai-shek"), GraphEntity(id="Q313598", name="Chiang Ching-kuo")]
    answer = AnswerInput(question="Who was Chiang Kai-shek?", shown=shown, entities=names, sentences=[
        ("Chiang Kai-shek was the father of Chiang Ching-kuo.", []),
        ("Chiang studied at the Baoding Military Academy.", [])])
    last = Verifier().verify(answer).sentences[-1]
    assert [(c.text, c.status, c.about) for c in last.claims] == [
        ("Baoding Military Academy", "supported_uncited", "Q16574")]
    # a place the graph cannot locate, said where it holds an area: absent, not contradicted (chatbot, dev)
    answer = AnswerInput(question="", shown=shown, entities=names, sentences=[
        ("Chiang Ching-kuo was born in Xikou in 1910.", [])])
    claims = {c.text: c.status for c in Verifier().verify(answer).sentences[0].claims}
    assert claims["Xikou"] == "absent", claims


@pytest.mark.parametrize("sentence, triple", [
    # attribute-first, dev: "pianist" in a list of occupations (both annotators: instrument supported)
    ("Whitney Houston was a singer and pianist.", ("Q34389", "instrument", "piano")),
    # attribute-first, dev: "an Egyptian pharaoh" states citizenship of Ancient Egypt (both: supported)
    ("Takelot II was an Egyptian pharaoh.", ("Q560026", "country of citizenship", "Ancient Egypt")),
    # chatbot, dev: "a French actor" for `field of work: acting` (both: held)
    ("Claude Brasseur was a French actor.", ("Q106544", "field of work", "acting")),
])
def test_values_said_by_the_person_who_does_them(sentence, triple):
    shown = [GraphTriple(subject=triple[0], label=triple[1], value=triple[2])]
    names = [GraphEntity(id=triple[0], name=sentence.split(" was ")[0])]
    result = cited("", shown, names, sentence, triple)
    assert result.citations[0].verdict == "supported", result.citations


def test_where_a_place_the_graph_knows_lies_decides_a_contradiction():
    # chatbot, dev: "She was born in Oxford" where the graph holds England was contradicted; the store knows
    # Oxford as "city in Oxfordshire, England" (its description), so it lies inside the held place
    lexicon = load_lexicon()
    known = {"oxford": [(GraphEntity(id="Q34217", name="Oxford"), "city in Oxfordshire, England")],
             "paris": [(GraphEntity(id="Q90", name="Paris"), "capital city of France")],
             "memphis": [(GraphEntity(id="Q16563", name="Memphis"), "county seat of Shelby County, Tennessee, "
                                                                     "United States")],
             "tennessee": [(GraphEntity(id="Q1509", name="Tennessee"), "state of the United States of America")]}
    said = SaidPlaces(lambda name: known.get(name.casefold(), []), shown_lookup([]), lexicon)
    assert said.contradicts("Oxford", "England") is False
    assert said.contradicts("Paris", "England") is True
    assert said.contradicts("Bruree", "Manhattan") is True  # not located: against a borough, another place
    assert said.contradicts("Xikou", "Fenghua District") is False  # not located: an area may hold it
    assert said.contradicts("Oxford", "Oxfordshire") is False
    # the place the graph holds lies in the one said: vaguer, never another place ("born in Tennessee" for Memphis)
    assert said.contradicts("Tennessee", "Memphis") is False
    assert said.contradicts("Paris", "Memphis") is True


# verifier 11: from chatbot sentences of the labelled set v3 (scored once with verifier 10 first, then used to develop)
ANGELA = [GraphTriple(subject="Q78643", label="place of death", value="Hanover", datatype="string"),
          GraphTriple(subject="Q78643", label="date of death", value="1949-10-30"),
          GraphTriple(subject="Q78643", label="cause of death", value="stroke", object_id="Q12202"),
          GraphTriple(subject="Q78643", label="place of burial", value="Stadtfriedhof Engesohde", datatype="string"),
          GraphTriple(subject="Q352", label="date of death", value="1945-04-30"),
          GraphTriple(subject="Q352", label="place of death", value="Berlin", object_id="Q64"),
          GraphTriple(subject="Q35448", label="date of death", value="1947-01-17"),
          GraphTriple(subject="Q35448", label="place of death", value="Moscow", object_id="Q649"),
          GraphTriple(subject="Q155691", label="place of death", value="Braine-l'Alleud", datatype="string"),
          GraphTriple(subject="Q155691", label="date of death", value="1972-07-31"),
          # `verify` links every name it finds: Hanover is then a subject of the graph too
          GraphTriple(subject="Q1715", label="country", value="Germany", object_id="Q183")]
ANGELA_NAMES = [GraphEntity(id="Q78643", name="Angela Hitler"), GraphEntity(id="Q352", name="Adolf Hitler"),
                GraphEntity(id="Q35448", name="Pyotr Krasnov"), GraphEntity(id="Q155691", name="Paul-Henri Spaak"),
                GraphEntity(id="Q1715", name="Hanover")]


def said(sentence: str, previous: str = "") -> dict[str, str]:
    sentences = ([(previous, [])] if previous else []) + [(sentence, [])]
    answer = AnswerInput(question="", shown=ANGELA, entities=ANGELA_NAMES, sentences=sentences)
    return {c.text: c.status for c in Verifier().verify(answer).sentences[-1].claims}


def test_a_verb_after_and_shares_the_sentence_subject():
    # labelled set v3, chatbot3-23, as `verify` checked it (the item's shown triples, the answer's sentences before
    # it): "and died in Hanover on 30 October 1949" was said of Adolf Hitler ("his"), both contradicted
    items = [json.loads(line) for line in (LABELS_V3 / "items.jsonl").open(encoding="utf-8")]
    item = next(i for i in items if i["sentence"].startswith("Angela kept house for Hitler"))
    answer = next(json.loads(line) for line in (LABELS_V3 / "chatbot_answers.jsonl").open(encoding="utf-8")
                  if json.loads(line)["id"] == item["answer_id"])
    shown = [GraphTriple(subject=t["qid"], label=t["relation"], value=t["value"]) for t in item["shown"]]
    names = [GraphEntity(id=p["qid"], name=p["name"]) for p in item["persons"]]
    before = [s["sentence"] for s in items if s["answer_id"] == item["answer_id"]
              and int(s["item_id"].rsplit("-", 1)[1]) < int(item["item_id"].rsplit("-", 1)[1])]
    check = Verifier().verify(AnswerInput(question=answer["question"], shown=shown, entities=names,
                                          sentences=[(s, []) for s in [*before, item["sentence"]]]))
    claims = {c.text: (c.status, c.about) for c in check.sentences[-1].claims}
    assert claims["Hanover"] == ("supported_uncited", "Q78643"), claims
    assert claims["30 October 1949"] == ("supported_uncited", "Q78643"), claims


@pytest.mark.parametrize("sentence, previous, text, status", [
    # the cue six words back, the date between not counted: both were absent
    ("He died on 31 July 1972 in Brussels.", "Paul-Henri Spaak was a Belgian politician.", "Brussels",
     "contradicted"),
    ("Pyotr Krasnov was executed by hanging in Moscow on 16 January 1947.", "", "16 January 1947", "contradicted"),
    # a common noun names no other place; a second cause of death contradicts nothing
    ("Angela Hitler was buried in the cathedral of Hanover.", "", "cathedral", "absent"),
    ("Angela Hitler died of heart failure.", "", "heart failure", "absent"),
])
def test_verifier_11_readings(sentence, previous, text, status):
    claims = said(sentence, previous)
    assert claims.get(text) == status, claims
