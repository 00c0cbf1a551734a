"""What natural questions ask (issue 43): topics, "Who was X?", grouped sentences and the [NA] parts.

The questions are the BioKaLMA release's own (complex_question_graph, indices below 500: the development side;
500 and above are held out), with the facts of their own records."""

from __future__ import annotations

import pytest

from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.pipeline.grounded import plan_answer
from kalma_graph.verification.topics import load_topics, question_asks, question_persons, unanswered_parts

AKSHARA = [Entity("Q16200469", name="Akshara Haasan")]
AKSHARA_FACTS = [Triple("Q16200469", "", label, value) for label, value in (
    ("instance of", "human"), ("occupation", "actor"), ("country of citizenship", "India"),
    ("place of birth", "Chennai"), ("mother", "Sarika"), ("father", "Kamal Haasan"), ("residence", "Mumbai"),
    ("date of birth", "1991-10-12"))]


def asked_of(question: str, entities=AKSHARA, shown=AKSHARA_FACTS, tier: int = 2) -> set[str]:
    return {a.relation for a in question_asks(question, entities, shown) if a.tier == tier}


@pytest.mark.parametrize("question, asked", [
    # complex_question_graph:3
    ("How have Akshara Haasan's family members, particularly her father Kamal Haasan and his cohabitant Gautami "
     "Tadimalla, influenced her career in the film industry?", {"father", "mother", "spouse", "occupation"}),
    ("Who were Akshara Haasan's parents?", {"father", "mother"}),
    ("Where was Akshara Haasan educated, and whom did she marry?", {"alma mater", "spouse"}),
    ("What recognition did Akshara Haasan receive?", {"award received"}),
    ("How did Akshara Haasan die?", {"date of death", "place of death", "cause of death"}),
    ("Who succeeded Akshara Haasan?", {"succeeded by", "replaced by"}),
])
def test_a_topic_asks_its_relations(question, asked):
    assert asked <= asked_of(question)


@pytest.mark.parametrize("question, not_asked", [
    # a verb "influence" is no question about the person's influences; "roles she played" asks no sport
    ("How did her father influence Akshara Haasan's career?", {"influenced by", "sport"}),
    ("What significant roles did Akshara Haasan play?", {"notable works", "sport"}),
    ("What is Akshara Haasan's native language?", {"date of birth", "place of birth"}),
])
def test_words_that_belong_to_no_topic_ask_nothing_of_it(question, not_asked):
    assert not (not_asked & asked_of(question))


@pytest.mark.parametrize("question, asked, not_asked", [
    # natural questions of our own (bench/results/natural_own_v2): each part was answered with nothing, not [NA]
    ("Where was Akshara Haasan born, and what did she do for a living?", {"place of birth", "occupation"}, set()),
    ("Is Akshara Haasan left-handed, and where was she born?", {"handedness", "place of birth"}, set()),
    # "parents" asks the parents; her spouse and children were asked too and filled the answer
    ("Who were Akshara Haasan's parents?", {"father", "mother"}, {"spouse", "child"}),
])
def test_everyday_wordings_of_a_part(question, asked, not_asked):
    assert asked <= asked_of(question) and not (not_asked & asked_of(question))


@pytest.mark.parametrize("sentence, fragment", [
    ("Zoya Akhtar follows Islam.", False),  # the religion part was planned, and every wording rejected as a fragment
    ("Zoya Akhtar practices Islam.", False),
    ("Zoya Akhtar's parents, Javed Akhtar and Honey Irani.", True),
    # a clause trim of a dev answer (complex_question_graph:140) dropped the main verb and was kept
    ("Sun Quan's son, Sun Kuangti, which is the ancestral home of his family.", True),
    ("Sun Quan's son, Sun Kuangti, was born in Changsha, which is the ancestral home of his family.", False),
    ("Goethe, who was a poet, was born in Frankfurt.", False),
    ("The book that he wrote was famous.", False),
])
def test_a_present_tense_verb_makes_a_sentence(sentence, fragment):
    from kalma_graph.pipeline.grounded import prose_problem

    assert (prose_problem(sentence, []) == "a fragment") is fragment


def test_who_was_x_asks_a_biographys_core_but_who_was_his_father_does_not():
    core = asked_of("Who was Akshara Haasan?", tier=1)
    assert {"occupation", "country of citizenship", "date of birth", "place of birth"} <= core
    assert asked_of("Who was the father of Akshara Haasan?", tier=1) == set()


def test_a_pronoun_clause_asks_of_the_person_named_before_it():
    entities = [Entity("Q1", name="Ann Lee"), Entity("Q2", name="Bob Ray")]
    asks = question_asks("What did Ann Lee write, and where was Bob Ray born, and how did he die?", entities, [])
    assert {(a.subject, a.relation) for a in asks if a.topic == "death"} >= {("Q2", "date of death")}
    assert not any(a.subject == "Q1" and a.topic == "death" for a in asks)


def test_the_persons_a_question_names_come_in_its_order():
    entities = [Entity("Q1", name="Ann Lee"), Entity("Q2", name="Bob Ray"), Entity("Q3", name="Rome")]
    assert question_persons("How did Bob Ray meet Ann Lee?", entities) == ["Q2", "Q1"]


def test_a_topic_the_graph_holds_nothing_for_is_an_unanswered_part():
    # "Tell me about Virginia Woolf's family": the graph shows her birthplace and citizenship, no family
    woolf = [Entity("Q40909", name="Virginia Woolf")]
    shown = [Triple("Q40909", "", "place of birth", "London"), Triple("Q40909", "", "country of citizenship", "UK")]
    asks = question_asks("Tell me about Virginia Woolf's family.", woolf, shown)
    parts = unanswered_parts(asks, shown, {"Q40909": "Virginia Woolf"})
    assert [(p["topic"], p["lead"]) for p in parts] == [("family", "Virginia Woolf's family")]
    # a family the graph holds is no unanswered part
    shown.append(Triple("Q40909", "", "father", "Leslie Stephen"))
    assert unanswered_parts(question_asks("Tell me about Virginia Woolf's family.", woolf, shown), shown,
                            {"Q40909": "Virginia Woolf"}) == []


def test_an_event_the_graph_holds_none_of_is_an_unanswered_part():
    # complex_question_graph:436 (dev): "what event deeply affected him" was read by nothing, so the one
    # unanswerable dev question without an [NA] part had none; the graph holds no event of his
    azai = [Entity("Q1", name="Azai Nagamasa")]
    shown = [Triple("Q1", "", "occupation", "daimyo"), Triple("Q1", "", "noble family", "Azai clan")]
    question = ("How did Azai Nagamasa become the head of the Azai clan and what event deeply affected him during "
                "this transition?")
    parts = unanswered_parts(question_asks(question, azai, shown), shown, {"Q1": "Azai Nagamasa"})
    assert ("events", "Azai Nagamasa's life events") in [(p["topic"], p["lead"]) for p in parts]
    shown.append(Triple("Q1", "", "significant event", "Siege of Odani Castle"))
    assert "significant event" in asked_of(question, azai, shown)


def test_the_plan_groups_facts_of_one_kind_and_puts_asked_before_relevant():
    plan = plan_answer("Who was Akshara Haasan, and how did her family shape her career?", AKSHARA, AKSHARA_FACTS)
    asked = [[t.label for t in target] for target in plan.asked]
    assert ["father", "mother"] in asked  # parents in one sentence, not one fact a sentence
    assert any("occupation" in target for target in asked)
    relevant = [t.label for target in plan.relevant for t in target]
    assert {"date of birth", "place of birth"} <= set(relevant)  # "Who was X?": born when and where
    assert not {"father", "mother", "occupation"} & set(relevant)  # said once, as asked
    assert plan.unanswered == []  # family and career are held


def test_the_plan_marks_what_the_graph_lacks():
    plan = plan_answer("What awards did Akshara Haasan win, and where is she buried?", AKSHARA, AKSHARA_FACTS)
    # "where is she buried" asks the place of burial itself (`wh_asks`), not the whole death topic: its [NA]
    # sentence starts "Akshara Haasan's place of burial", not "Akshara Haasan died" (she is alive)
    assert [p["topic"] for p in plan.unanswered] == ["recognition", "place of burial"]
    assert [p["lead"] for p in plan.unanswered][1] == "Akshara Haasan's place of burial"
    assert plan.asked == []


def test_when_or_where_with_a_life_event_asks_its_date_or_place():
    # the graph holds Joan Rivers's cause of death and burial, no date of death: the death topic alone counted the
    # question answered and `grounded` left the date unsaid; now the date is a part to mark [NA]
    rivers = [Entity("Q240933", name="Joan Rivers")]
    facts = [Triple("Q240933", "P31", "instance of", "human"),
             Triple("Q240933", "P509", "cause of death", "cardiac arrest"),
             Triple("Q240933", "P119", "place of burial", "Forest Lawn Memorial Park"),
             Triple("Q240933", "P19", "place of birth", "Brooklyn")]
    names = {"Q240933": "Joan Rivers"}

    def lacking(question: str) -> list[str]:
        return [p["lead"] for p in unanswered_parts(question_asks(question, rivers, facts), facts, names)]

    assert lacking("Who was Joan Rivers, and when did she die?") == ["Joan Rivers's date of death"]
    # "…, and where?": the word alone asks the place of the event the clause before named
    assert lacking("When did Joan Rivers die, and where?") == ["Joan Rivers's date of death",
                                                              "Joan Rivers's place of death"]
    assert lacking("Where was Joan Rivers born?") == []  # held


def test_every_topic_relation_is_a_wikidata_or_biokalma_label():
    import gzip
    import json
    from importlib import resources
    from pathlib import Path

    with gzip.open(resources.files("kalma_graph").joinpath("data/wikidata_properties.tsv.gz"), "rt") as f:
        labels = {line.split("\t")[1] for line in f.read().splitlines()[1:]}
    # the BioKaLMA records' own labels ("alma mater", "noble family"), beside Wikidata's: no invented label
    release = Path(__file__).resolve().parents[2] / "dumps" / "biokalma" / "complex_question_graph.json.gz"
    with gzip.open(release, "rt", encoding="utf-8") as f:
        labels |= {key.replace("_", " ") for _, records in json.load(f) for record in records for key in record}
    table = load_topics()
    named = {r for t in table.topics for r in (*t.asks, *t.relevant)} | set(table.biography)
    named |= {r for group in table.groups for r in group}
    assert named <= labels, named - labels
    assert all("{name}" in t.lead for t in table.topics)


@pytest.mark.parametrize("question, english", [
    ("Wer war Stephen Crane und wo wurde er geboren?", False),
    ("Qui était Victor Hugo et où est-il né ?", False),
    ("¿Quién fue Pablo Picasso y dónde nació?", False),
    ("Who was Stephen Crane?", True),
    ("Tell me about Virginia Woolf's family.", True),
    ("Crane?", True),  # too short to tell: read as asked
])
def test_a_question_in_another_language_is_told_apart(question, english):
    from kalma_graph.verification.topics import looks_english

    assert looks_english(question) is english


def test_a_question_in_another_language_asks_a_biography_of_whom_it_names():
    asks = question_asks("Wer war Akshara Haasan und wo wurde sie geboren?", AKSHARA, AKSHARA_FACTS)
    assert {a.relation for a in asks} >= {"occupation", "date of birth", "place of birth"}
    assert {a.tier for a in asks} == {1}
    plan = plan_answer("Wer war Akshara Haasan und wo wurde sie geboren?", AKSHARA, AKSHARA_FACTS)
    assert plan.note and "English" in plan.note and plan.relevant


def test_a_family_link_is_planned_once_not_both_ways():
    entities = [Entity("Q1", name="Diego Simeone"), Entity("Q2", name="Giovanni Simeone")]
    shown = [Triple("Q1", "", "instance of", "human"), Triple("Q2", "", "instance of", "human"),
             Triple("Q1", "", "child", "Giovanni Simeone", "Q2"), Triple("Q2", "", "father", "Diego Simeone", "Q1")]
    plan = plan_answer("How did Diego Simeone's career shape Giovanni Simeone's path?", entities, shown)
    links = [(t.subject, t.label) for target in plan.asked + plan.links for t in target]
    assert len([link for link in links if link[1] in ("child", "father")]) == 1, links


def test_a_relation_named_by_its_label_that_the_graph_lacks_is_an_unanswered_part():
    entities = [Entity("Q1", name="Henry James"), Entity("Q2", name="John Updike")]
    shown = [Triple("Q1", "", "instance of", "human"), Triple("Q2", "", "instance of", "human"),
             Triple("Q2", "", "influenced by", "Henry James", "Q1"),
             Triple("Q2", "", "member of", "American Academy of Arts and Letters")]
    names = {"Q1": "Henry James", "Q2": "John Updike"}
    # the built questions' style: relations by label; James's employer was withheld from the graph shown
    asks = question_asks(
        "What were John Updike's influences and memberships, and Henry James's employer?", entities, shown)
    assert [p["lead"] for p in unanswered_parts(asks, shown, names)] == ["Henry James's employer"]
    # the verb "influence" names no relation: nothing to mark [NA] ("influences" would)
    asks = question_asks("How did Henry James influence John Updike's writing?", entities, shown)
    assert unanswered_parts(asks, shown, names) == []
    # "family" is the topic, not Wikidata's relation of that name
    asks = question_asks("Tell me about Henry James's family.", entities, shown)
    assert [p["topic"] for p in unanswered_parts(asks, shown, names)] == ["family"]


def test_a_word_that_names_a_relation_is_not_read_as_a_topic():
    # the built questions name their relations: "employer" asks the employer, not a career; "noble family" and
    # "place of burial" ask themselves, not the family or the death (Table 3's F1 fell to 58.4 without this)
    asked = asked_of("What were Akshara Haasan's employer, noble family and place of burial?")
    assert not {"occupation", "position held", "father", "mother", "spouse", "date of death"} & asked, asked
    assert {"father", "mother"} <= asked_of("Tell me about Akshara Haasan's family.")


WALTON = [Entity("Q741784", name="Jim Walton")]
WALTON_FACTS = [Triple("Q741784", "", label, value) for label, value in (
    ("instance of", "human"), ("employer", "Walmart"), ("surname", "Walton"), ("given name", "Jim"),
    ("residence", "Bentonville"), ("country of citizenship", "United States of America"))]


def test_a_value_the_question_names_is_asked_but_not_a_part_of_the_persons_name():
    # complex_question_graph:319
    question = "Who is Jim Walton, and what is his connection to the multinational retail corporation, Walmart?"
    assert "employer" in asked_of(question, WALTON, WALTON_FACTS)
    assert not {"surname", "given name"} & asked_of(question, WALTON, WALTON_FACTS)
    # "American" names no citizenship asked
    assert "country of citizenship" not in asked_of("What did Jim Walton do for United States of America?",
                                                     WALTON, WALTON_FACTS)


@pytest.mark.parametrize("question, asked, relevant", [
    # complex_question_graph:386, :306, :305 (development indices)
    ("What were some significant aspects of Akshara Haasan's personal life?", {"spouse", "child"},
     {"medical condition", "residence"}),
    ("What was the tragic end of Akshara Haasan's life?", {"cause of death", "manner of death"}, set()),
    ("Where are Akshara Haasan's works and records preserved?", {"archives at"}, set()),
    ("Who were the significant figures in Akshara Haasan's life?", {"father", "mother", "student of"}, set()),
])
def test_life_topics_of_natural_questions(question, asked, relevant):
    assert asked <= asked_of(question)
    assert relevant <= asked_of(question, tier=1)


@pytest.mark.parametrize("question", [
    # complex_question_graph:192, :222: "life" as in "the influences in his life" asks no dates (both annotation
    # passes labelled the dates of such questions not relevant: 1 of 21 planned said relevant)
    "Who were the key influences in Akshara Haasan's life and artistic career?",
    "Who were the significant figures in Akshara Haasan's life?",
])
def test_life_as_a_word_asks_no_dates(question):
    assert not {"date of birth", "date of death", "place of birth"} & asked_of(question, tier=1)


def test_a_lifetime_still_makes_the_dates_relevant():
    assert {"date of birth", "date of death"} <= asked_of("What did Akshara Haasan do during her lifetime?", tier=1)


SERETSE = [Entity("Q219962", name="Seretse Khama")]
SERETSE_FACTS = [Triple("Q219962", "", label, value) for label, value in (
    ("instance of", "human"), ("child", "Ian Khama"), ("occupation", "politician"),
    ("alma mater", "University of Fort Hare"), ("position held", "President of Botswana"))]


def test_a_person_reached_through_a_relative_known_only_by_name():
    # complex_question_graph:29: the graph holds Ian Khama only as Seretse Khama's child (linking brings
    # Seretse Khama); "Ian Khama's father" is he, and "his career and education" are his
    question = ("Who was Ian Khama's father and how did his career and education influence Ian's path to "
                "military leadership?")
    plan = plan_answer(question, SERETSE, SERETSE_FACTS)
    planned = {t.label for target in plan.asked for t in target}
    assert {"child", "occupation", "alma mater"} <= planned
    # the military path is Ian's, of whom the graph knows no facts: no [NA] part for his father
    assert plan.unanswered == []


SCHILLER = [Entity("Q22670", name="Friedrich Schiller")]
SCHILLER_FACTS = [Triple("Q22670", "", label, value) for label, value in (
    ("instance of", "human"), ("occupation", "playwright"), ("occupation", "poet"),
    ("educated at", "University of Jena"),
    ("influenced by", "Immanuel Kant"), ("religion", "Lutheranism"))]


def test_a_question_no_reading_knows_is_one_na_part_in_its_own_words():
    # before: an empty plan, and the model wrote eight sentences of its choosing, none about food, some false
    # ("He wrote plays such as 'Don Quixote'"), and nothing said the graph lacks what was asked
    plan = plan_answer("What was Friedrich Schiller's favourite food?", SCHILLER, SCHILLER_FACTS)
    assert [p["lead"] for p in plan.unanswered] == ["Friedrich Schiller's favourite food"]
    assert plan.unread and plan.asked == []
    assert [t.value for target in plan.relevant for t in target] == ["playwright", "poet"]  # who he was
    # no possessive: the lead is the name, the model says the rest under [NA]
    plan = plan_answer("Did Friedrich Schiller ever visit Japan?", SCHILLER, SCHILLER_FACTS)
    assert [p["lead"] for p in plan.unanswered] == ["Friedrich Schiller"]


@pytest.mark.parametrize("question", [
    "What was Friedrich Schiller's religion?",  # a label: asked and held
    "Who was Friedrich Schiller?",  # a biography
    "Tell me about Friedrich Schiller's family.",  # a topic the graph lacks: its own [NA] part
])
def test_a_question_a_reading_knows_has_no_unread_part(question):
    plan = plan_answer(question, SCHILLER, SCHILLER_FACTS)
    assert not plan.unread
    assert all(p["topic"] != "asked, not read" for p in plan.unanswered)


def test_a_question_naming_nobody_the_graph_holds_has_no_unread_part():
    assert plan_answer("What was Georg Sars's favourite food?", SCHILLER, SCHILLER_FACTS).unanswered == []


def test_two_persons_the_question_names_and_the_graph_does_not_link_are_an_na_part():
    # Table 5 (conscious incompetence) withholds the fact that links the persons a built question names:
    # "… and how was James Joyce connected to this person?" with `influenced by: James Joyce` withheld
    entities = [Entity("Q187019", name="Philip Roth"), Entity("Q6882", name="James Joyce")]
    shown = [Triple("Q187019", "", "instance of", "human"), Triple("Q6882", "", "instance of", "human"),
             Triple("Q187019", "", "residence", "Newark"), Triple("Q6882", "", "occupation", "novelist"),
             Triple("Q187019", "", "influenced by", "Franz Kafka")]
    question = ("What were Philip Roth's influences and residence, and how was James Joyce connected to this "
                "person?")
    parts = plan_answer(question, entities, shown).unanswered
    assert [(p["topic"], p["lead"]) for p in parts] == [("connection", "Philip Roth's connection to James Joyce")]
    # linked either way, they are no such part
    for link in (Triple("Q187019", "", "influenced by", "James Joyce", "Q6882"),
                 Triple("Q6882", "", "influenced", "Philip Roth")):
        assert plan_answer(question, entities, [*shown, link]).unanswered == []


def test_a_person_another_names_as_kin_has_a_family_in_the_graph():
    # "How did Kamal Haasan's family shape Akshara Haasan's career?" once wrote "[NA] Kamal Haasan's family …"
    # although the graph shows him as her father
    entities = [Entity("Q381477", name="Kamal Haasan"), *AKSHARA]
    shown = [*AKSHARA_FACTS, Triple("Q381477", "", "instance of", "human"),
             Triple("Q381477", "", "occupation", "actor")]
    shown = [t if t.label != "father" else Triple(t.subject, "", "father", "Kamal Haasan", "Q381477") for t in shown]
    parts = plan_answer("How did Kamal Haasan's family shape Akshara Haasan's career?", entities, shown).unanswered
    assert not any(p["lead"] == "Kamal Haasan's family" for p in parts), parts
    # without that link his family is an asked part the graph does not hold
    unlinked = [t for t in shown if t.label not in ("father",)]
    parts = plan_answer("How did Kamal Haasan's family shape Akshara Haasan's career?", entities, unlinked).unanswered
    assert any(p["lead"] == "Kamal Haasan's family" for p in parts), parts


def test_son_of_asks_of_the_parent_not_the_son():
    # complex_question_graph:4 (the quick start's paper questions): "Andreas Pereira, son of … Marcos Pereira"
    # once planned "[NA] Andreas Pereira's children"
    entities = [Entity("Q17619350", name="Andreas Pereira")]
    shown = [Triple("Q17619350", "", "instance of", "human"), Triple("Q17619350", "", "father", "Marcos Pereira"),
             Triple("Q17619350", "", "occupation", "association football player")]
    question = ("How did Andreas Pereira, son of former Brazilian professional footballer Marcos Pereira, establish "
                "his own career in football despite his father's position as a forward?")
    plan = plan_answer(question, entities, shown)
    assert not any("children" in p["lead"] for p in plan.unanswered), plan.unanswered
    # "the children of X" still asks X's children
    asks = question_asks("Who were the children of Andreas Pereira?", entities, shown)
    assert "child" in {a.relation for a in asks if a.tier == 2}


def test_the_relationship_between_two_linked_persons_is_answered_by_their_link():
    # Table 7's general question "What is the relationship between John Updike and Henry James?" once got an
    # unread [NA] part ("John Updike was … known for his work in the Gothic literature genre [NA]") after the link
    entities = [Entity("Q105756", name="John Updike"), Entity("Q170509", name="Henry James")]
    shown = [Triple("Q105756", "", "instance of", "human"), Triple("Q170509", "", "instance of", "human"),
             Triple("Q105756", "", "influenced by", "Henry James", "Q170509"),
             Triple("Q105756", "", "occupation", "playwright")]
    plan = plan_answer("What is the relationship between John Updike and Henry James?", entities, shown)
    assert [[t.label for t in link] for link in plan.links] == [["influenced by"]]
    assert not plan.unread and plan.unanswered == [] and plan.relevant == []
    # unlinked, the connection is the asked part the graph lacks (one [NA] sentence, not an unread one beside it)
    plan = plan_answer("What is the relationship between John Updike and Henry James?", entities, shown[:2] + shown[3:])
    assert [(p["topic"], p["lead"]) for p in plan.unanswered] == [
        ("connection", "John Updike's connection to Henry James")]


def test_persons_a_question_names_unlinked_are_a_part_only_when_it_asks_their_connection():
    entities = [Entity("Q187019", name="Philip Roth"), Entity("Q6882", name="James Joyce")]
    shown = [Triple("Q187019", "", "instance of", "human"), Triple("Q6882", "", "instance of", "human"),
             Triple("Q187019", "", "place of birth", "Newark"), Triple("Q6882", "", "place of birth", "Dublin")]
    # "Where were Mozart and Beethoven born?" asks no link between them: no [NA] sentence about one
    assert plan_answer("Where were Philip Roth and James Joyce born?", entities, shown).unanswered == []
    parts = plan_answer("How were Philip Roth and James Joyce related?", entities, shown).unanswered
    assert [p["topic"] for p in parts] == ["connection"]


def test_a_person_held_only_by_a_namesake_is_an_na_part_and_nothing_of_them_is_planned():
    # complex_question_graph:95 (dev): the graph's only John Cleland is a researcher at Hull; grounded answered
    # "John Cleland is a researcher. John Cleland worked at the University of Hull." (both annotators: 0)
    cleland = [Entity("Q44931654", name="John Cleland")]
    facts = [Triple("Q44931654", "", label, value) for label, value in (
        ("instance of", "human"), ("occupation", "researcher"), ("employer", "University of Hull"))]
    question = ("Who was John Cleland, what was his career, and where did he receive his education that honed his "
                "literary prowess?")
    plan = plan_answer(question, cleland, facts)
    assert not plan.asked and not plan.relevant and not plan.links and plan.namesakes
    assert [(p["topic"], p["lead"], p["does"]) for p in plan.unanswered] == [("namesake", "John Cleland",
                                                                             "a researcher")]
    assert "namesake" in plan.unanswered[0]["label"]
    # asked of without a field he does not fit, he is the one asked of
    plan = plan_answer("Who was John Cleland, and what was his career?", cleland, facts)
    assert plan.asked and not plan.namesakes


def test_siblings_the_graph_lacks_are_an_unanswered_part():
    # asked of the product this session: "Who were Emily Brontë's siblings and parents?" answered the parents and
    # stopped ("the question's asked facts are covered"): "siblings", the label's plural, named no relation
    bronte = [Entity("Q80137", name="Emily Brontë")]
    shown = [Triple("Q80137", "", "father", "Patrick Brontë"), Triple("Q80137", "", "mother", "Maria Branwell")]
    question = "Who were Emily Brontë's siblings and parents?"
    parts = unanswered_parts(question_asks(question, bronte, shown), shown, {"Q80137": "Emily Brontë"})
    assert "Emily Brontë's siblings" in [p["lead"] for p in parts], parts
    shown.append(Triple("Q80137", "", "sibling", "Anne Brontë"))
    assert unanswered_parts(question_asks(question, bronte, shown), shown, {"Q80137": "Emily Brontë"}) == []
