"""The BioKaLMA build's question-against-gold check (issue 33): what the specific question asks, in its
direction, has a gold triple; each person is named once; the share of gold triples the question asks."""

from __future__ import annotations

from kalma_graph.biokalma.checks import question_gold, question_gold_consistency


def _entry(question: str, qids: list[str], names: list[str], gold: list[tuple[str, str, str]]) -> dict:
    return {"id": "e", "specific_question": question, "qids": qids, "names": names,
            "minimum_knowledge_set": [{"qid": s, "property": p, "value": v, "pid": "", "object_id": None}
                                      for s, p, v in gold]}


BRADBURY = _entry("Who was Ray Bradbury influenced by, and where was Jules Verne born?", ["Q1", "Q2"],
                  ["Ray Bradbury", "Jules Verne"],
                  [("Q1", "influenced by", "Jules Verne"), ("Q2", "place of birth", "Nantes"), ("Q2", "genre", "science fiction")])


def test_a_question_that_asks_what_its_gold_set_holds_is_consistent():
    row = question_gold(BRADBURY)
    assert row["consistent"] and row["unheld"] == [] and row["gold_asked"] == 2 and row["gold"] == 3
    assert row["named"] == {"Ray Bradbury": 1, "Jules Verne": 1}


def test_an_inverted_relation_or_another_person_s_fact_is_not():
    adorno = _entry("Which philosopher did Theodor W. Adorno influence, and how did Walter Benjamin die?",
                    ["Q1", "Q2"], ["Theodor W. Adorno", "Walter Benjamin"],
                    [("Q1", "influenced by", "Walter Benjamin"), ("Q2", "cause of death", "drug overdose")])
    row = question_gold(adorno)
    assert not row["consistent"] and ["Q2", "influenced by", "Theodor W. Adorno"] in row["unheld"]
    jarre = _entry("Who was Maurice Jarre's cohabitant, and who was Jean-Michel Jarre's father?", ["Q1", "Q2"],
                   ["Maurice Jarre", "Jean-Michel Jarre"],
                   [("Q2", "cohabitant", "Charlotte Rampling"), ("Q2", "father", "Maurice Jarre")])
    row = question_gold(jarre)
    assert not row["consistent"] and row["unheld"] == [["Q1", "cohabitant", None]]


def test_each_person_is_named_once():
    yan = _entry("What is the relationship between Yan Lide and Yan Pi, and who is Yan Pi's wife?", ["Q1", "Q2"],
                 ["Yan Lide", "Yan Pi"], [("Q2", "spouse", "Lady Zhen"), ("Q2", "father", "Yan Lide")])
    row = question_gold(yan)
    assert row["unheld"] == [] and row["named"]["Yan Pi"] == 2 and not row["consistent"]


def test_the_dataset_figures():
    report = question_gold_consistency(None, [BRADBURY, BRADBURY | {"specific_question": "Tell me a story."}])
    assert report["question_gold_consistent_share"] == 0.5 and report["asks_nothing_known"] == 1
    assert report["gold_asked_share"] == 2 / 6 and len(report["failing"]) == 1
