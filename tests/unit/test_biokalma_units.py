"""BioKaLMA construction, the parts without a graph or a model: eq. 1, templates, name completeness,
relations, cleaning of model output, prompts, file layout."""

from __future__ import annotations

import json
import math

import pytest

from kalma_graph.biokalma.build import read_entries, read_timings, side_paths, write_side_files
from kalma_graph.biokalma.evolve import (
    PROMPTS,
    EvolveConfig,
    call_seed,
    chat_messages,
    clean_question,
    clean_sentence,
    knowledge_text,
    mentions,
    parse_annotations,
    persons_named_in,
)
from kalma_graph.biokalma.pairs import PERSON_RELATIONS, is_complete_name, read_pairs, relation_of, seed_sentence
from kalma_graph.biokalma.pool import Pool
from kalma_graph.biokalma.scoring import (
    coherence,
    eq1_scores,
    perplexity_from_logprobs,
    rank,
    relation_counts,
    specificity,
)
from kalma_graph.files import CorruptJsonlError, TornLineWarning
from kalma_graph.kg.hypothesis import pos_sentence, relation_pos
from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.prompts import load_prompt

# --- eq. 1 -----------------------------------------------------------------------------------------


def test_eq1_as_written_with_fixed_counts_and_perplexities():
    # N = 10 entries → 2N = 20 persons; three candidates of relations held by 20, 5 and 1 persons.
    counts = [20, 5, 1]
    perps = [4.0, 8.0, 2.0]
    alpha = 0.3
    inv = [0.25, 0.125, 0.5]
    z = sum(math.exp(x) for x in inv)
    expected = [alpha * math.log(2 * 10 / c) + (1 - alpha) * math.exp(x) / z for c, x in zip(counts, inv)]
    got = eq1_scores(counts, perps, n=10, alpha=alpha)
    assert got == pytest.approx(expected, abs=1e-12)
    # The worked numbers, by hand: log(20/20)=0, log(20/5)=1.386294, log(20/1)=2.995732;
    # softmax(0.25, 0.125, 0.5) = (0.315804, 0.278696, 0.405500) (rounded).
    assert got == pytest.approx([0.7 * 0.315804, 0.3 * 1.386294 + 0.7 * 0.278696, 0.3 * 2.995732 + 0.7 * 0.4055],
                                abs=1e-5)


def test_eq1_extremes_of_alpha():
    counts, perps = [2, 1, 1], [10.0, 5.0, 20.0]
    # α = 1: specificity only; α = 0: coherence only (the lowest perplexity wins).
    assert eq1_scores(counts, perps, n=1, alpha=1.0) == pytest.approx([0.0, math.log(2), math.log(2)])
    only_coherence = eq1_scores(counts, perps, n=1, alpha=0.0)
    assert sum(only_coherence) == pytest.approx(1.0)
    assert max(range(3), key=only_coherence.__getitem__) == 1


def test_rank_breaks_ties_by_given_order():
    ranked = rank([1, 1, 1], [3.0, 3.0, 3.0], n=5, alpha=0.5)
    assert [r.index for r in ranked] == [0, 1, 2]
    assert ranked[0].specificity == pytest.approx(math.log(10))
    assert ranked[0].coherence == pytest.approx(1 / 3)


def test_specificity_and_coherence_guard_their_inputs():
    assert specificity(2, 1) == 0.0
    with pytest.raises(ValueError):
        specificity(0, 3)
    with pytest.raises(ValueError):
        specificity(7, 3)  # Count_r > 2N: counts from another dataset
    with pytest.raises(ValueError):
        coherence([1.0, float("inf")])
    with pytest.raises(ValueError):
        eq1_scores([1], [2.0, 3.0], n=1)
    with pytest.raises(ValueError):
        eq1_scores([1], [2.0], n=1, alpha=1.5)
    assert sum(coherence([1.5, 900.0, 2.0, 1.0001])) == pytest.approx(1.0)
    assert perplexity_from_logprobs([math.log(0.5)] * 4) == pytest.approx(2.0)


def test_relation_counts_are_per_person_document_frequencies():
    persons = [["P106", "P106", "P19"], ["P19"], ["P26", "P106"]]
    assert relation_counts(persons) == {"P106": 2, "P19": 2, "P26": 1}


# --- templates -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "label, pos, sentence",
    [
        ("place of birth", "noun", "Artemisia's place of birth is Rome."),
        ("influenced by", "participle", "Artemisia was influenced by Rome."),
        ("educated at", "participle", "Artemisia was educated at Rome."),
        ("alma mater", "noun", "Artemisia's alma mater is Rome."),
        ("participated in", "verb", "Artemisia participated in Rome."),
        ("nominated for", "participle", "Artemisia was nominated for Rome."),
        ("doctoral advisor", "noun", "Artemisia's doctoral advisor is Rome."),
    ],
)
def test_three_templates_by_part_of_speech(label, pos, sentence):
    assert relation_pos(label) == pos
    assert pos_sentence("Artemisia", label, "Rome") == sentence


def test_unknown_labels_fall_back_to_a_spelling_rule():
    assert relation_pos("headquartered in") == "participle"
    assert relation_pos("favourite colour") == "noun"
    assert relation_pos("Place  of BIRTH") == "noun"


# --- person selection ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, complete",
    [
        ("William Shakespeare", True),
        ("Anne Hathaway", True),
        ("Tokugawa Iemitsu", True),
        ("G. K. Chesterton", True),
        ("Ludwig van Beethoven", True),
        ("Yazdegerd II", False),
        ("Pelé", False),
        ("Alexander the Great", False),
        ("", False),
        (None, False),
        ("Louis XIV", False),
    ],
)
def test_name_completeness(name, complete):
    assert is_complete_name(name) is complete


def test_relations_by_pid_or_label_and_their_inverses():
    assert relation_of("P26").label == "spouse"
    assert relation_of("Spouse").pid == "P26"
    assert relation_of("wife").pid == "P26"
    assert PERSON_RELATIONS["P22"].inverse == ("P40",)
    assert set(PERSON_RELATIONS["P40"].inverse) == {"P22", "P25"}
    with pytest.raises(ValueError):
        relation_of("neighbour")
    assert seed_sentence("P22", "Mary Shelley", "William Godwin") == "William Godwin was the father of Mary Shelley."
    for pid in PERSON_RELATIONS:  # every relation has a seed sentence
        assert "{a}" not in seed_sentence(pid, "A B", "C D")


def test_read_pairs_keeps_complete_names_and_reports_bad_lines(tmp_path):
    path = tmp_path / "pairs.jsonl"
    rows = [
        {"a": "William Shakespeare", "relation": "Spouse", "b": "Anne Hathaway",
         "sentence": "Shakespeare married Anne Hathaway in 1582."},
        {"a": "Yazdegerd II", "relation": "father", "b": "Bahram V"},  # incomplete → dropped
        {"a": "Mary Shelley", "relation": "P22", "b": "William Godwin"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    pairs = read_pairs(path)
    assert [(p.a, p.relation, p.b, p.sentence_source) for p in pairs] == [
        ("William Shakespeare", "P26", "Anne Hathaway", "input"),
        ("Mary Shelley", "P22", "William Godwin", "template"),
    ]
    assert pairs[1].sentence == "William Godwin was the father of Mary Shelley."
    path.write_text(json.dumps({"a": "A B", "relation": "enemy", "b": "C D"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"pairs.jsonl:1: unknown person relation 'enemy'"):
        read_pairs(path)
    path.write_text(json.dumps({"a": "A B", "relation": "father"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"pairs.jsonl:1: .*missing b$"):
        read_pairs(path)
    path.write_text("\n" + json.dumps(rows[0]) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"pairs.jsonl:3: not JSON"):
        read_pairs(path)


# --- model output ----------------------------------------------------------------------------------


def test_clean_sentence():
    para = "Mary Shelley was the daughter of William Godwin."
    assert clean_sentence("Mary Shelley was born in London [Q47152, place of birth: London]. She wrote.", para) == \
        "Mary Shelley was born in London."
    assert clean_sentence(f"{para} She was born in London.", para) == "She was born in London."
    assert clean_sentence('New sentence: "Godwin wrote Political Justice"\nmore', para) == \
        "Godwin wrote Political Justice."
    assert clean_sentence("  \n [Q1, a: b] ", para) == ""
    # A repeated sentence of the paragraph is skipped, the next one kept.
    assert clean_sentence("Mary Shelley was the daughter of William Godwin. She wrote Frankenstein.", para) == \
        "She wrote Frankenstein."
    assert clean_sentence("mary shelley was the daughter of William Godwin", para) == ""
    assert clean_sentence("Godwin admired J. D. Salinger. Later more.", para) == "Godwin admired J. D. Salinger."


def test_names_both_persons():
    from kalma_graph.biokalma.evolve import names_both

    names = ["John Updike", "Henry James"]
    assert names_both("How did Henry James's novels shape John Updike?", names)
    assert not names_both("Who influenced John Updike?", names)


def test_mentions():
    assert mentions("She was born in London.", "London")
    assert mentions("He was born on 3 March 1756.", "1756-03-03")
    assert not mentions("He was born in 1757.", "1756-03-03")
    assert mentions("He studied in Paris.", "Paris (France)")
    assert not mentions("He studied in Lyon.", "Paris")
    assert not mentions("anything", "  ")
    # Word forms (acceptance v2): what the 1.5B model writes for group and demonym values.
    assert mentions("Friedrich Schiller was a German.", "Germans")
    assert mentions("Philip Roth, an American Jewish writer, wrote novels.", "American Jews")
    assert mentions("Fyodor Dostoyevsky was a Russian writer.", "Russians")
    assert not mentions("Philip Roth taught in Pennsylvania.", "University of Pennsylvania")  # every word counts
    assert not mentions("He was born in Newark.", "New York City")


def test_clean_question():
    assert clean_question("Generated Question: Who was Mary Shelley? And why?") == "Who was Mary Shelley?"
    assert clean_question("\n**What did Godwin write**") == "What did Godwin write?"
    assert clean_question("Why?") == ""
    assert clean_question("") == ""
    names = ("Kim Jong-un", "Kim Jong-il")
    assert persons_named_in("Who was Kim Jong-il's son?", names) >= 1
    assert persons_named_in("How did jong-un rule?", names) >= 1
    assert persons_named_in("What's the answer?", names) == 0
    assert persons_named_in("What was the interview about?", names) == 0


def _pool() -> Pool:
    a, b = Entity("Q47152", name="Mary Shelley"), Entity("Q188569", name="William Godwin")
    triples = (
        Triple("Q188569", "P106", "occupation", "philosopher", "Q4964182"),
        Triple("Q47152", "P19", "place of birth", "London", "Q84"),
        Triple("Q47152", "P22", "father", "William Godwin", "Q188569"),
        Triple("Q47152", "P569", "date of birth", "1797-08-30", None, "time"),
    )
    return Pool((a, b), triples)


def test_parse_annotations_keeps_pool_triples_only():
    text = ("Mary Shelley [qid: Q47152, name: Mary Shelley] was born in London [qid: Q47152, place of birth: London] "
            "to William Godwin [Q47152, father: William Godwin] [Q47152, mother: Mary Wollstonecraft] "
            "[Q188569, occupation: novelist]")
    found = parse_annotations(text, _pool())
    assert [(t.label, t.value) for t in found] == [("place of birth", "London"), ("father", "William Godwin")]


def test_pool_candidates_and_blocks():
    pool = _pool()
    taken = [pool.triples[2]]
    assert [t.label for t in pool.candidates(taken)] == ["occupation", "place of birth", "date of birth"]
    assert [t.label for t in pool.candidates(taken, excluded_pids=["P19"])] == ["occupation", "date of birth"]
    assert pool.knowledge_blocks().startswith("{qid: Q47152, name: Mary Shelley, place of birth: London")
    assert (knowledge_text(pool.triples[1], "Mary Shelley")
            == "{qid: Q47152, name: Mary Shelley, place of birth: London}")
    assert pool.relations_of("Q47152") == {"P19", "P22", "P569"}


def test_pool_never_offers_an_object_known_only_by_its_id():
    """Issue 33: `conflict: Q12182610` (a record that named the object by its id) and an entity without a label
    were gold triples no knowledge block shows; neither is a candidate any more."""
    a, b = _pool().persons
    triples = (Triple("Q47152", "P607", "conflict", "Q12182610"), Triple("Q47152", "P800", "notable work", "Q9351396",
               "Q9351396"), Triple("Q47152", "P1412", "languages spoken", "English", "Q1860"))
    assert [t.value for t in Pool((a, b), triples).candidates([])] == ["English"]


# --- prompts and files -----------------------------------------------------------------------------


def test_prompts_are_data_with_provenance():
    for name in PROMPTS:
        prompt = load_prompt(name)
        assert prompt["version"] and prompt["source"] and len(prompt["sha256"]) == 64
    extend = load_prompt("biokalma/extend")
    messages = chat_messages(extend, paragraph="P.", knowledge="{qid: Q1, name: X, a: b}", fact="X's a is b.")
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    assert messages[-1]["content"].startswith("paragraph: P.\n\nknowledge: {qid: Q1, name: X, a: b}\nfact: X's a is b.")
    assert "Judith Slaying Holofernes" in messages[1]["content"]  # Table 10's demonstration


def test_call_seeds_are_stable_and_distinct():
    assert call_seed(0, "e1", "extend-2") == call_seed(0, "e1", "extend-2")
    assert len({call_seed(s, "e1", step) for s in (0, 1) for step in ("a", "b")}) == 4


def test_evolve_config_validates():
    with pytest.raises(ValueError):
        EvolveConfig(alpha=2.0)
    with pytest.raises(ValueError):
        EvolveConfig(perplexity_scope="document")
    assert EvolveConfig().as_dict()["excluded_pids"] == ["P31", "P910", "P1424", "P1343", "P1455"]


def test_side_files_for_evaluate_and_answer(tmp_path):
    paths = side_paths(tmp_path / "bk.jsonl")
    assert paths["gold"].name == "bk.gold.jsonl" and paths["questions"].name == "bk.questions.jsonl"
    entry = {
        "id": "biokalma-Q1-P22-Q2",
        "qids": ["Q1", "Q2"],
        "general_question": "Who?",
        "specific_question": "Who exactly?",
        "minimum_knowledge_set": [{"qid": "Q1", "property": "father", "value": "B C", "round": 1}],
    }
    write_side_files([entry], paths)
    gold = [json.loads(line) for line in paths["gold"].read_text().splitlines()]
    questions = [json.loads(line) for line in paths["questions"].read_text().splitlines()]
    assert gold == [{"id": "biokalma-Q1-P22-Q2", "gold": [["Q1", "father", "B C"]]}]
    assert questions == [{"id": "biokalma-Q1-P22-Q2", "question": "Who?",
                          "variants": {"general": "Who?", "specific": "Who exactly?"}, "reference_qids": ["Q1", "Q2"]}]


def test_side_files_load_with_evaluate_and_answer_readers(tmp_path):
    gold_module = pytest.importorskip("kalma_graph.evaluation.gold")
    answer_module = pytest.importorskip("kalma_graph.pipeline.answer")
    paths = side_paths(tmp_path / "bk.jsonl")
    entry = {"id": "biokalma-Q1-P22-Q2", "qids": ["Q1", "Q2"], "general_question": "Who was B C?",
             "specific_question": "Who exactly was B C's child?",
             "minimum_knowledge_set": [{"qid": "Q1", "property": "father", "value": "B C"}]}
    write_side_files([entry], paths)
    assert gold_module.load_gold(paths["gold"]) == {"biokalma-Q1-P22-Q2": [("Q1", "father", "B C")]}
    [question] = answer_module.load_questions(paths["questions"])
    assert question.id == "biokalma-Q1-P22-Q2" and question.reference_qids == ("Q1", "Q2")
    assert ((question.text_for("general"), question.text_for("specific"))
            == ("Who was B C?", "Who exactly was B C's child?"))


def test_read_entries_cuts_a_torn_last_line(tmp_path):
    out = tmp_path / "bk.jsonl"
    assert read_entries(out) == []
    done = (json.dumps({"id": "e1"}) + "\n"
            + json.dumps({"id": "e2", "question": "Wer war Jürgen?"}, ensure_ascii=False) + "\n")
    out.write_text(done + '{"id": "e3", "quest', encoding="utf-8")
    with pytest.warns(TornLineWarning, match="bk.jsonl:3"):
        assert [e["id"] for e in read_entries(out)] == ["e1", "e2"]
    assert out.read_text(encoding="utf-8") == done  # e3 is built again, on a line of its own


def test_read_entries_refuses_a_corrupt_line_inside(tmp_path):
    out = tmp_path / "bk.jsonl"
    out.write_text(json.dumps({"id": "e1"}) + "\n" + '{"id": "e2", "que\n' + json.dumps({"id": "e3"}) + "\n")
    before = out.read_bytes()
    with pytest.raises(CorruptJsonlError, match="bk.jsonl:2: not valid JSON"):
        read_entries(out)
    assert out.read_bytes() == before  # e3 is not lost


def test_read_timings_skips_a_torn_line_and_keeps_the_last_seconds_of_each_entry(tmp_path):
    timings = side_paths(tmp_path / "bk.jsonl")["timings"]
    timings.write_text(json.dumps({"id": "e1", "seconds": 3.0, "round1_s": 1.0}) + "\n"
                       + json.dumps({"id": "e1", "seconds": 4.0}) + "\n" + '{"id": "e2", "sec')
    assert read_timings(timings, {"e1", "e2"}) == [{"id": "e1", "seconds": 4.0}]


@pytest.mark.parametrize("module", ["kalma_graph.biokalma.scoring", "kalma_graph.biokalma.templates",
                                    "kalma_graph.biokalma.pairs", "kalma_graph.biokalma.evolve",
                                    "kalma_graph.biokalma.consistency"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_persons_named_counts_each_questions_persons():
    from kalma_graph.biokalma.checks import persons_named

    entries = [
        {"names": ["Mary Shelley", "William Godwin"], "general_question": "Who were Mary Shelley and Godwin?",
         "specific_question": "What did Shelley write?"},
        {"names": ["Oscar Hertwig", "Ernst Haeckel"], "general_question": "What's the answer?",
         "specific_question": "Who influenced Oscar Hertwig, and how did Haeckel teach?"},
    ]
    assert persons_named(entries) == {
        "general": {"both": 1, "one": 0, "none": 1, "both_share": 0.5},
        "specific": {"both": 1, "one": 1, "none": 0, "both_share": 0.5},
    }


def test_question_attempts_follow_the_prompt_file():
    from kalma_graph.biokalma.evolve import naming_grammar, question_attempts
    from kalma_graph.prompts import load_prompt

    names = ["John Updike", "Henry James"]
    prompt = load_prompt("biokalma/question_general")
    tries = prompt["second_tries"]
    attempts = question_attempts(prompt, names)
    assert attempts[0] == ("llm", None, None)
    assert attempts[1:] == [("llm-sampled", tries["temperature"], None)] * tries["samples"]  # no grammar since v7
    with_grammar = {"second_tries": {"samples": 1, "temperature": 0.5, "grammar": True}}
    assert question_attempts(with_grammar, names) == [("llm", None, None), ("llm-sampled", 0.5, None),
                                                      ("llm-constrained", None, naming_grammar(names))]
    assert question_attempts({}, names) == [("llm", None, None)]
    assert question_attempts(load_prompt("biokalma/question_specific"), names) == []  # the template only (v9)


def test_keeps_question_truth_table():
    """Each rule of acceptance v5 refuses on its own; a question meeting all is kept."""
    from types import SimpleNamespace

    from kalma_graph.biokalma.evolve import keeps_question
    from kalma_graph.prompts import load_prompt

    names = ["John Updike", "Henry James"]
    prompt = load_prompt("biokalma/question_specific")
    stop, cut = SimpleNamespace(finish_reason="stop"), SimpleNamespace(finish_reason="length")
    good = "Which genre did Henry James write in, and how did it shape John Updike's novels?"
    assert keeps_question(good, stop, names, prompt)
    assert not keeps_question(good, cut, names, prompt)  # cut off at the token limit
    assert not keeps_question("Which genre did Henry James write in?", stop, names, prompt)  # one person
    assert not keeps_question("", stop, names, prompt)
    long = good[:-1] + " and " + " and ".join(["why"] * prompt["max_words"]) + "?"
    assert not keeps_question(long, stop, names, prompt)  # over max_words
    echo = "What was John Updike's genre, and where was his son Henry James born?"  # "and where was his son"
    assert not keeps_question(echo, stop, names, prompt)  # repeats the demonstration's question
