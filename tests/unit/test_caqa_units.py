"""CAQA pieces that need no graph and no model: query semantics, label parsing, the CoT rule,
metrics, FActScore, templates, KGQA line parsing. Each table row is (input, expected)."""

from __future__ import annotations

import doctest
import json

import pytest

from kalma_graph.caqa import evaluators, factscore, metrics, model, verbalise
from kalma_graph.caqa.bench import open_predictions
from kalma_graph.caqa.evaluators import base, cot
from kalma_graph.caqa.kgqa import _freebase_id
from kalma_graph.caqa.model import (
    CATEGORIES,
    CONTRADICTORY,
    IRRELEVANT,
    PARTIAL,
    SUPPORTIVE,
    Branch,
    Fact,
    Hop,
    Query,
    evaluate,
)
from kalma_graph.files import CorruptJsonlError, TornLineWarning, read_jsonl

# Real facts (Appendix B's Rick Scott example uses the same shapes): Cambridge (Q350) is in the
# United Kingdom (Q145), whose capital is London (Q84); Cambridge, Massachusetts (Q49111) is in the USA.
F_UK = Fact("Q350", "P17", "Q145", "Cambridge", "country", "United Kingdom", ("s1",))
F_CAP = Fact("Q145", "P36", "Q84", "United Kingdom", "capital", "London", ("s2",))
F_US = Fact("Q49111", "P17", "Q30", "Cambridge", "country", "United States of America", ("s3",))
F_LON = Fact("Q84", "P17", "Q145", "London", "country", "United Kingdom", ("s4",))

PATH = Query((Branch("Q350", "Cambridge", (Hop("P17", "country"), Hop("P36", "capital"))),))
TREE = Query((Branch("Q350", "Cambridge", (Hop("P17", "country"),)), Branch("Q84", "London", (Hop("P17", "country"),))))
UNION = Query(
    (Branch("Q350", "Cambridge", (Hop("P17", "country"),)), Branch("Q49111", "Cambridge", (Hop("P17", "country"),))),
    op="or")
REVERSE = Query((Branch("Q145", "United Kingdom", (Hop("P17", "country", reverse=True),)),))


@pytest.mark.parametrize("query, facts, expected", [
    (PATH, [F_UK, F_CAP], {"Q84"}),
    (PATH, [F_UK], set()),                       # partial: the chain is broken
    (TREE, [F_UK, F_LON], {"Q145"}),
    (TREE, [F_UK], set()),                       # one branch deleted: the intersection is empty
    (UNION, [F_UK, F_US], {"Q145", "Q30"}),
    (UNION, [F_UK], {"Q145"}),                   # one namesake's path deleted
    (REVERSE, [F_UK, F_LON, F_US], {"Q350", "Q84"}),
])
def test_query_evaluation_over_a_subgraph(query, facts, expected):
    assert evaluate(query, facts) == expected


def test_query_structures_and_round_trip():
    assert [q.structure for q in (PATH, TREE, UNION, REVERSE)] == ["path", "tree", "union", "single"]
    assert [q.complexity for q in (PATH, TREE, UNION, REVERSE)] == ["concatenation", "intersection", "union", "single"]
    for q in (PATH, TREE, UNION, REVERSE):
        assert Query.from_dict(json.loads(json.dumps(q.as_dict()))) == q
    assert Fact.from_dict(F_UK.as_dict()) == F_UK and Fact.from_dict(F_UK.as_dict()).sids == ("s1",)


@pytest.mark.parametrize("text, expected", [
    ("Supportive", SUPPORTIVE),
    ("supportive.", SUPPORTIVE),
    ("Insufficient", PARTIAL),
    ("Partially Supportive", PARTIAL),
    ("partially_supportive", PARTIAL),
    ("Relationship Category: 3. Contradictory", CONTRADICTORY),
    ("Irrelevant\nThe reference is about another actor.", IRRELEVANT),
    ("Extrapolatory", IRRELEVANT),  # AttrScore's name for irrelevant
    ("Attributable", SUPPORTIVE),   # AutoIS wording
    ("2.", PARTIAL),                # a bare option number, Table 12's numbering
    ("The citation does not support the answer: irrelevant.", IRRELEVANT),
    ("The reference contradicts the answer because it names another director.", CONTRADICTORY),
    ("Supportive, Insufficient, Contradictory or Irrelevant", None),  # the options echoed back
    ("1. Supportive: it says so.\n2. Insufficient: no.\n3. Contradictory: no.", None),  # ... as a list
    ("Supportive\nThe reference is not insufficient or contradictory.", SUPPORTIVE),
    ("", None),
    ("I am not sure.", None),
    ("unsupported", None),
])
def test_judge_labels_are_parsed_or_refused(text, expected):
    assert base.parse_label(text) == expected


@pytest.mark.parametrize("facts, expected", [
    ([SUPPORTIVE, SUPPORTIVE], SUPPORTIVE),
    ([SUPPORTIVE, IRRELEVANT], PARTIAL),
    ([SUPPORTIVE, CONTRADICTORY], CONTRADICTORY),
    ([IRRELEVANT, IRRELEVANT], IRRELEVANT),
    ([SUPPORTIVE, None], None),
    ([], None),
])
def test_cot_final_label_rule(facts, expected):
    assert base.final_label(facts) == expected


@pytest.mark.parametrize("statement, expected", [
    ("The capital of the country of Cambridge is London.", ["The capital of the country of Cambridge is London"]),
    ("United Kingdom is the country of Cambridge and the country of London.",
     ["United Kingdom is the country of Cambridge", "United Kingdom is the country of London"]),
    ("The country of Cambridge is United Kingdom and United States of America.",
     ["The country of Cambridge is United Kingdom", "The country of Cambridge is United States of America"]),
    ("Ann is a painter. She was born in Rome.", ["Ann is a painter", "She was born in Rome"]),
])
def test_rule_based_decomposition(statement, expected):
    assert cot.decompose(statement) == expected


def test_metrics_table5_row():
    gold = [SUPPORTIVE, PARTIAL, CONTRADICTORY, IRRELEVANT, SUPPORTIVE, PARTIAL]
    pred = [SUPPORTIVE, SUPPORTIVE, CONTRADICTORY, None, SUPPORTIVE, PARTIAL]
    comp = ["single", "concatenation", "single", "union", "intersection", "intersection"]
    row = metrics.scores(gold, pred, comp, CATEGORIES)
    assert row["category"] == {SUPPORTIVE: 0.8, PARTIAL: 0.6667, CONTRADICTORY: 1.0, IRRELEVANT: 0.0}
    # micro: TP 4, FP 1 (partial called supportive), FN 2 (that one + the unparsed) -> 8/11
    assert row["overall"] == round(8 / 11, 4) and row["accuracy"] == round(4 / 6, 4) and row["unparsed"] == 1
    assert row["complexity"] == {"single": 1.0, "concatenation": 0.0, "intersection": 1.0, "union": 0.0}
    three = metrics.scores(gold, [SUPPORTIVE, IRRELEVANT, CONTRADICTORY, IRRELEVANT, SUPPORTIVE, IRRELEVANT],
                           comp, (SUPPORTIVE, CONTRADICTORY, IRRELEVANT))
    assert three["category"][PARTIAL] is None and three["overall"] == 0.6667
    two = metrics.scores(gold, [SUPPORTIVE, "not_supportive", "not_supportive", None, SUPPORTIVE, SUPPORTIVE],
                         comp, (SUPPORTIVE, "not_supportive"))
    assert two["overall"] is None and two["category"][SUPPORTIVE] == 0.8 and two["category"][PARTIAL] is None
    conf = metrics.confusion(gold, pred, CATEGORIES)
    assert conf["columns"][-1] == "unparsed" and sum(map(sum, conf["matrix"])) == len(gold)
    assert "| Evaluator | Sup. | Par. | Con. | Irr. | Overall | Single |" in metrics.table5_markdown({"x": row})


def test_metrics_undefined_f1_is_none_and_a_real_zero_stays_zero():
    # No irrelevant sample and none predicted: its F1 is 0/0. Partial is gold but never predicted,
    # contradictory predicted but never gold: both are real zeros.
    gold = [SUPPORTIVE, PARTIAL, SUPPORTIVE]
    pred = [SUPPORTIVE, SUPPORTIVE, CONTRADICTORY]
    row = metrics.scores(gold, pred, ["single", "single", "union"], CATEGORIES)
    assert row["category"] == {SUPPORTIVE: 0.5, PARTIAL: 0.0, CONTRADICTORY: 0.0, IRRELEVANT: None}
    assert row["complexity"]["concatenation"] is None and row["complexity"]["union"] == 0.0
    assert metrics.category_f1([], [], SUPPORTIVE) is None and metrics.micro_f1([], []) is None
    assert metrics.scores([], [], [], CATEGORIES)["accuracy"] is None
    line = metrics.table5_markdown({"x": row}).splitlines()[-1]
    assert line.startswith("| x | 0.500 | 0.000 | 0.000 | - | ")


def test_caqa_factscore_from_triples_before_and_after_deletion():
    partial = {"facts": [F_UK.as_dict()], "supportive_facts": [F_UK.as_dict(), F_CAP.as_dict()]}
    assert factscore.caqa_factscore(partial) == 0.5


def test_template_verbalisation():
    assert verbalise.template_question(PATH) == "What is the capital of the country of Cambridge?"
    assert (verbalise.template_question(TREE)
            == "Which entity is both the country of Cambridge and the country of London?")
    assert verbalise.template_question(UNION) == "What is the country of Cambridge?"  # namesakes share the question
    assert verbalise.template_question(REVERSE) == "What is the entity whose country is United Kingdom?"
    assert verbalise.template_answer_statement(PATH, ["London"]) == "The capital of the country of Cambridge is London."
    assert verbalise.template_answer_statement(UNION, ["United Kingdom", "United States of America"]) == \
        "The country of Cambridge is United Kingdom and United States of America."
    assert verbalise.fact_sentence(F_UK) == "The country of Cambridge is United Kingdom."
    educated = Fact("Q1", "P69", "Q2", "Rick Scott", "educated at", "Southern Methodist University")
    assert verbalise.fact_sentence(educated) == "Rick Scott is educated at Southern Methodist University."
    assert verbalise.triples_text([F_UK]) == '[("Cambridge", "country", "United Kingdom")]'


def test_kgqa_freebase_ids():
    assert _freebase_id("www.freebase.com/m/090s_0") == "m.090s_0"
    assert _freebase_id("www.freebase.com/film/film/story_by") == "film.film.story_by"


def test_prompts_are_data_with_the_papers_wording():
    from kalma_graph.prompts import load_prompt

    assert "convert a specific subgraph" in load_prompt("caqa/verbalise_subgraph")["instruction"]
    assert "Insufficient" in load_prompt("caqa/judge_zero_shot")["instruction"]
    few = load_prompt("caqa/judge_few_shot")
    assert [d["category"] for d in few["demos"]] == list(CATEGORIES)
    assert "True or False?" in load_prompt("caqa/factscore_fact")["template"]
    with pytest.raises(ValueError, match="needs an NLI model"):
        evaluators.make_evaluator("nli-3way")


@pytest.mark.parametrize("module", [base, cot, metrics, factscore, model])
def test_docstring_examples(module):
    assert doctest.testmod(module).failed == 0


# --- bench predictions: resumable judgements ------------------------------------------------------

DESCRIPTION = {"evaluator": "nli-3way", "model_hash": "abc123", "threshold": 0.5}


def _judgement(sample_id: str, label: str = "supportive") -> str:
    return json.dumps({"id": sample_id, "label": label, "rationale": None, "raw": None, "detail": {}}) + "\n"


def test_bench_predictions_trim_a_torn_judgement_which_is_judged_again(tmp_path):
    path = tmp_path / "nli-3way.jsonl"
    header = json.dumps({"evaluator": DESCRIPTION}) + "\n"
    path.write_text(header + _judgement("q1#supportive") + _judgement("q2#partially_supportive", "partially_supportive")
                    + '{"id": "q3#irrelevant", "lab')
    with pytest.warns(TornLineWarning, match="nli-3way.jsonl:4"):
        out, done = open_predictions(path, DESCRIPTION)
    with out:
        assert set(done) == {"q1#supportive", "q2#partially_supportive"}
        assert done["q2#partially_supportive"].label == "partially_supportive"
        out.append({"id": "q3#irrelevant", "label": "irrelevant", "rationale": None, "raw": None, "detail": {}})
    content = read_jsonl(path)
    assert content.torn is None and content.records[0] == {"evaluator": DESCRIPTION}
    assert [r["id"] for r in content.records[1:]] == ["q1#supportive", "q2#partially_supportive", "q3#irrelevant"]


def test_bench_predictions_refuse_a_corrupt_judgement_inside(tmp_path):
    path = tmp_path / "nli-3way.jsonl"
    path.write_text(json.dumps({"evaluator": DESCRIPTION}) + "\n" + _judgement("q1") + '{"id": "q2", "la\n'
                    + _judgement("q3"))
    before = path.read_bytes()
    with pytest.raises(CorruptJsonlError, match="nli-3way.jsonl:3: not valid JSON"):
        open_predictions(path, DESCRIPTION)
    assert path.read_bytes() == before


@pytest.mark.parametrize("text", [
    json.dumps({"evaluator": {**DESCRIPTION, "model_hash": "other"}}) + "\n" + _judgement("q1"),  # not comparable
    json.dumps({"evaluator": DESCRIPTION}),  # the header itself was cut by a crash
])
def test_bench_predictions_start_afresh_for_another_evaluator_or_a_torn_header(tmp_path, text):
    path = tmp_path / "nli-3way.jsonl"
    path.write_text(text)
    out, done = open_predictions(path, DESCRIPTION)
    out.close()
    assert done == {} and read_jsonl(path).records == [{"evaluator": DESCRIPTION}]
