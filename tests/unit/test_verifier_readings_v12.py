"""Verifier 12's readings (issue 44), each from a real sentence of the labelled set v4, after its one held-out
scoring with verifier 11: a participle after a name's comma, a place only after "in"/"at"/"near", a date of a
relative's event, a three-digit year, a capitalised word that joins a name, a relation's noun as a claim of its
own, a value's other form, a subject the graph does not hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kalma_graph.verification import Verifier
from kalma_graph.verification.lexicon import load_lexicon
from kalma_graph.verification.places import SaidPlaces, shown_lookup
from kalma_graph.verification.records import AnswerInput, CitedTriple, GraphEntity, GraphTriple

LABELS_V4 = Path(__file__).resolve().parents[2] / "bench" / "results" / "verifier" / "labels_v4"
ITEMS = [json.loads(line) for line in (LABELS_V4 / "items.jsonl").open(encoding="utf-8")]
QUESTIONS = {json.loads(line)["id"]: json.loads(line)["question"]
             for line in (LABELS_V4 / "chatbot_answers.jsonl").open(encoding="utf-8")}


def check(start: str):
    """The labelled item whose sentence starts with `start`, checked as the labels saw it: its shown triples, the
    persons (chatbot) or cited subjects linked, the sentences of its answer before it, its citations."""
    item = next(i for i in ITEMS if i["sentence"].startswith(start))
    shown = [GraphTriple(subject=t["qid"], label=t["relation"], value=t["value"]) for t in item["shown"]]
    if item["source"] == "chatbot":
        names = [GraphEntity(id=p["qid"], name=p["name"]) for p in item["persons"]]
        question = QUESTIONS[item["answer_id"]]
    else:
        names = list({t["qid"]: GraphEntity(id=t["qid"], name=t["subject"]) for t in item["shown"]}.values())
        question = item["question"]
    position = int(item["item_id"].rsplit("-", 1)[1])
    before = [i["sentence"] for i in ITEMS if i["answer_id"] == item["answer_id"] and i["source"] == item["source"]
              and int(i["item_id"].rsplit("-", 1)[1]) < position]
    cited = [CitedTriple(subject=c["qid"], relation=c["relation"], value=c["value"]) for c in item["citations"]]
    answer = AnswerInput(question=question, shown=shown, entities=names,
                         sentences=[*[(s, []) for s in before], (item["sentence"], cited)])
    return Verifier().verify(answer).sentences[-1]


def statuses(start: str) -> dict[str, str]:
    return {c.text: c.status for c in check(start).claims}


@pytest.mark.parametrize("start, text, status", [
    # ", born on" opens a clause about the name before it: the date is the brother's (it was contradicted as
    # Willow Smith's), and Joan Blaeu's own (1596, where the graph holds 1599: it named nobody, absent)
    ("Her full brother is the actor and musician Jaden Smith", "8 July 1998", "absent"),
    ("With Julia Domna he had two sons", "4 April 188", "absent"),
    ("Joan Blaeu, born on 23 September 1596", "23 September 1596", "contradicted"),
    # a place of death only after "in", "at", "near" or a copula: these were contradicted against Venosa, London
    ("In his first consulship he defeated the Insubrian Gauls", "Gallic chieftain Viridomarus", "absent"),
    ("He was killed in a cavalry ambush by Hannibal's forces", "Hannibal's", "absent"),
    ("After Paula's death Geldof gained custody", "Geldof", "absent"),
    # a date of a relative's event: the father's death, not Joan's
    ("Joan, who earned a doctorate in law at Leiden", "1638", "absent"),
    # a three-digit year is a year: 155 is Cao Cao's held year of birth, not another value
    ("Cao Cao was a Chinese warlord", "155", "supported_uncited"),
])
def test_chatbot_readings(start, text, status):
    claims = statuses(start)
    assert claims.get(text) == status, claims


def test_a_capitalised_word_inside_a_sentence_joins_a_name():
    # "One Bull" is Sitting Bull's nephew, not Sitting Bull: "names Sitting Bull as his own relative" (contradicted)
    claims = statuses("His nephews White Bull and One Bull fought alongside him")
    assert "contradicted" not in claims.values(), claims


def test_an_area_the_graph_cannot_place_may_hold_the_held_town():
    # Xi Zhongxun "born ... in Fuping County, Shaanxi" where the graph holds Zhonghe, neither located by the graph:
    # both annotators, not contradicted (the county may hold the village); a town against a town still is
    said = SaidPlaces(lambda name: [], shown_lookup([]), load_lexicon())
    assert said.contradicts("Fuping County", "Zhonghe") is False
    assert said.contradicts("Potosi", "Herculaneum") is True


@pytest.mark.parametrize("start, fully", [
    # a relation's noun states something unless the sentence states a value of that relation: both annotators 0
    ("Andy Murray received the Officer of the Order of the British Empire for his service", False),
    ("Petra Kvitová is a professional tennis player.", False),
    ("Tokugawa Ietsuna held the position of Naidaijin, which was a high-ranking", False),
    ("Wayne Gretzky received the Silver Olympic Order for his performance.", False),
    # ... and said of a held value across "of" it introduces the value; an acting award is for a role: both 1
    ("He was a member of the British Army.", True),
    ("Sally Field received an Academy Award for Best Actress for her role.", True),
])
def test_a_relation_noun_is_a_claim_unless_it_introduces_a_value(start, fully):
    result = check(start)
    assert result.fully_supported is fully, result.claims


@pytest.mark.parametrize("start, relation", [
    ("He was a communist.", "political ideology"),  # the value's other form names it as the person's own
    ("Patricia Heaton is an American actress", "occupation"),  # "actor": "actress" (five letters were too few)
    ("Egypt is a country located in Africa", "continent"),
    ("He was a member of the British Army.", "military branch"),
    ("Patricia Heaton speaks English as her native language", "languages spoken, written or signed"),  # "speaks"
])
def test_values_said_in_other_words_or_with_their_cue(start, relation):
    result = check(start)
    verdicts = {c.relation: c.verdict for c in result.citations}
    assert verdicts[relation] == "supported", result.citations


def test_a_sentence_about_a_person_the_graph_does_not_hold_supports_nothing_of_another():
    # attribute-first: "Marc Isambard Brunel is best known for his work on the Royal Albert Bridge", citing his son
    # Isambard Kingdom Brunel's notable work: "his" is Marc's, not the son's the answer is about (both annotators 0)
    result = check("Marc Isambard Brunel is best known for his work")
    assert result.citations[0].verdict != "supported", result.citations
