"""The BioKaLMA build's question-against-gold check (issue 33): what the specific question asks, in its
direction, has a gold triple; each person is named once; the share of gold triples the question asks."""

from __future__ import annotations

from kalma_graph.biokalma.checks import question_gold_consistency
from kalma_graph.biokalma.consistency import gold_triples, question_gold
from kalma_graph.kg.triples import Triple


def _entry(question: str, qids: list[str], names: list[str], gold: list[tuple[str, str, str]]) -> dict:
    return {"id": "e", "specific_question": question, "qids": qids, "names": names,
            "minimum_knowledge_set": [{"qid": s, "property": p, "value": v, "pid": "", "object_id": None}
                                      for s, p, v in gold]}


BRADBURY = _entry("Who was Ray Bradbury influenced by, and where was Jules Verne born?", ["Q1", "Q2"],
                  ["Ray Bradbury", "Jules Verne"],
                  [("Q1", "influenced by", "Jules Verne"), ("Q2", "place of birth", "Nantes"),
                   ("Q2", "genre", "science fiction")])


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


def test_a_pronoun_clause_asks_of_the_person_named_last():
    """"…, and in which period did Kafka live, and what was his medical condition?" asks Kafka's, not both."""
    kafka = _entry("What were Charles Bukowski's influences, and in which time period did Franz Kafka live, "
                   "and what was his medical condition?", ["Q1", "Q2"], ["Charles Bukowski", "Franz Kafka"],
                   [("Q1", "influenced by", "Franz Kafka"), ("Q2", "time period", "modernism"),
                    ("Q2", "medical condition", "tuberculosis")])
    row = question_gold(kafka, [*gold_triples(kafka), Triple("Q1", "", "medical condition", "alcoholism")])
    assert row["consistent"] and row["gold_asked"] == 3
    # without a pronoun, a clause naming nobody (a list after a colon) still asks of everyone
    listed = kafka | {"specific_question": "What is known about Charles Bukowski and Franz Kafka: medical condition?"}
    assert ["Q1", "medical condition", None] in question_gold(listed)["unheld"]


def test_a_possessive_noun_of_influence_asks_the_person_s_own():
    """"Bukowski's religion and influences" asks whom Bukowski was influenced by, not whom he influenced."""
    entry = _entry("What was Charles Bukowski's religion and influences, and what was Fyodor Dostoyevsky's "
                   "ethnic group?", ["Q1", "Q2"], ["Charles Bukowski", "Fyodor Dostoyevsky"],
                   [("Q1", "influenced by", "Fyodor Dostoyevsky"), ("Q1", "religion", "agnosticism"),
                    ("Q2", "ethnic group", "Russians")])
    row = question_gold(entry)
    assert row["consistent"] and row["gold_asked"] == 3


def test_a_name_inside_the_other_s_is_not_counted():
    entry = _entry("What was Gaius Laelius Sapiens's father, and who was Gaius Laelius?", ["Q1", "Q2"],
                   ["Gaius Laelius Sapiens", "Gaius Laelius"], [("Q1", "father", "Gaius Laelius")])
    assert question_gold(entry)["named"] == {"Gaius Laelius Sapiens": 1, "Gaius Laelius": 1}


def test_the_template_question_asks_the_whole_set_by_nouns():
    """The fallback names the link relation by its noun ("influences") and passes the build's check."""
    from kalma_graph.biokalma.evolve import question_rejection
    from kalma_graph.biokalma.templates import fallback_question
    from kalma_graph.prompts import load_prompt

    prompt = load_prompt("biokalma/question_specific")
    facts = [(g["qid"], g["property"]) for g in BRADBURY["minimum_knowledge_set"]]
    question = fallback_question(prompt, dict(zip(BRADBURY["qids"], BRADBURY["names"])), facts)
    assert question == "What were Ray Bradbury's influences, and Jules Verne's place of birth and genre?"
    assert question_rejection(question, None, BRADBURY["names"], prompt, BRADBURY, (), "specific") is None
    row = question_gold(BRADBURY | {"specific_question": question})
    assert row["gold_asked"] == row["gold"] == 3


def test_question_rejection_truth_table():
    """Acceptance v6: each rule refuses on its own, with a reason the build records; a general question
    is held to the form rules only."""
    from types import SimpleNamespace

    from kalma_graph.biokalma.evolve import question_rejection
    from kalma_graph.prompts import load_prompt

    prompt = load_prompt("biokalma/question_specific")
    stop = SimpleNamespace(finish_reason="stop")

    def why(question: str, kind: str = "specific") -> str | None:
        return question_rejection(question, stop, BRADBURY["names"], prompt, BRADBURY, (), kind)

    assert why("Who was Ray Bradbury influenced by, and what were Jules Verne's place of birth and genre?") is None
    assert why("Where was Jules Verne born?") == "form: names one person or none"
    assert why("How did Jules Verne influence Ray Bradbury, and what did Jules Verne write?").startswith(
        "gold: names a person not once")
    assert why("How were Ray Bradbury and Jules Verne connected?") == "gold: asks nothing of the graph"
    assert why("Where was Ray Bradbury born, and what was Jules Verne's genre?").startswith(
        "gold: asks what its gold set lacks")
    assert why("Who was Ray Bradbury influenced by, and is Jules Verne famous?") == "gold: asks 1 of 3 gold triples"
    assert why("Who was Ray Bradbury's primary influence, and what were Jules Verne's place of birth and genre?") == (
        "gold: asks a judgement no triple holds: primary")
    assert why("How were Ray Bradbury and Jules Verne connected?", "general") is None


def test_a_judgement_word_inside_a_label_or_a_name_judges_nothing():
    """"Sima Zhao's significant event" names a relation; "Francis Scott Key's spouse" names a person."""
    sima = _entry("What were Sima Yi's child, and Sima Zhao's ancestral home and significant event?", ["Q1", "Q2"],
                  ["Sima Yi", "Sima Zhao"], [("Q1", "child", "Sima Zhao"), ("Q2", "ancestral home", "Wen Xian"),
                                             ("Q2", "significant event", "Coup of Cao Mao")])
    assert question_gold(sima)["judging"] == [] and question_gold(sima)["consistent"]
    key = _entry("What was Francis Scott Key's spouse, and how was Mary Tayloe Lloyd connected to this person?",
                 ["Q1", "Q2"], ["Francis Scott Key", "Mary Tayloe Lloyd"], [("Q1", "spouse", "Mary Tayloe Lloyd")])
    assert question_gold(key)["judging"] == [] and question_gold(key)["consistent"]


def test_a_name_inside_the_other_s_asks_nothing_of_its_own():
    """"Gaius Laelius Sapiens's father" asks the son's father, not Gaius Laelius's too."""
    entry = _entry("What were Gaius Laelius Sapiens's father and date of death, and Gaius Laelius's child?",
                   ["Q1", "Q2"], ["Gaius Laelius Sapiens", "Gaius Laelius"],
                   [("Q1", "father", "Gaius Laelius"), ("Q1", "date of death", "-0147"),
                    ("Q2", "child", "Gaius Laelius Sapiens")])
    row = question_gold(entry)
    assert row["consistent"] and row["unheld"] == [] and row["gold_asked"] == 3


def test_a_general_question_against_its_gold_set_is_refused():
    """General prompt v8 (`check_gold`): the annotators' four incoherent general questions all asked against the
    set; a question asking nothing it lacks, naming each person once, is kept."""
    from types import SimpleNamespace

    from kalma_graph.biokalma.evolve import question_rejection
    from kalma_graph.prompts import load_prompt

    prompt = load_prompt("biokalma/question_general")
    stop = SimpleNamespace(finish_reason="stop")
    pushkin = _entry("", ["Q1", "Q2"], ["Alexander Pushkin", "John Keats"],
                     [("Q1", "influenced by", "John Keats"), ("Q2", "medical condition", "tuberculosis")])

    def why(question: str) -> str | None:
        return question_rejection(question, stop, pushkin["names"], prompt, pushkin, (), "general")

    assert why("How did Alexander Pushkin's romanticism influence John Keats's struggles with tuberculosis?") == (
        "gold: asks what its gold set lacks: Q2 influenced by")
    assert why("Which two individuals were influenced by Keats and Pushkin?").startswith(
        "gold: names a person not once")
    assert why("What is the relationship between Alexander Pushkin and John Keats?") is None
    assert why("How was Alexander Pushkin influenced by John Keats?") is None


def test_a_shared_value_the_gold_set_lacks_is_refused():
    """Issue 33, the annotators' check of the rebuild (entries 31-95): both passes marked incoherent the general
    questions presupposing a value the two persons share where their gold values differ."""
    from kalma_graph.biokalma.consistency import question_gold

    entry = {"id": "e", "qids": ["Q4235", "Q229379"], "names": ["Miley Cyrus", "Lil' Kim"],
             "minimum_knowledge_set": [
                 {"qid": "Q4235", "property": "influenced by", "value": "Lil' Kim", "object_id": "Q229379"},
                 {"qid": "Q229379", "property": "record label", "value": "Atlantic Records"},
                 {"qid": "Q4235", "property": "record label", "value": "RCA Records"}],
             "general_question": "Which record label influenced the careers of both Miley Cyrus and Lil' Kim?"}
    row = question_gold(entry, kind="general")
    assert row["unshared"] == ["record label"] and not row["consistent"]
    entry["minimum_knowledge_set"][2]["value"] = "Atlantic Records"
    assert question_gold(entry, kind="general")["unshared"] == []
    entry["general_question"] = "Which record labels did Miley Cyrus and Lil' Kim sign with?"
    entry["minimum_knowledge_set"][2]["value"] = "RCA Records"
    assert question_gold(entry, kind="general")["unshared"] == []  # no sharing presupposed
