"""The experiments: knowledge filters on real BioKaLMA graphs (and a real embedded store), the question
loader on the real BioKaLMA files, and the drivers evaluating answers already on disk.

The answer pipeline (`kalma-graph answer`, issue #4) is not exercised here: the drivers are run with
`reuse_answers=True` on answers files derived from the fixture answers by the filters themselves."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from kalma_graph.evaluation.gold import write_gold
from kalma_graph.experiments import (
    Components,
    ExperimentError,
    ExperimentSettings,
    IrrelevantGraphFilter,
    RemovalFilter,
    choose_replaced,
    conscious,
    load_questions,
    merge_variants,
    variants,
)
from kalma_graph.experiments.filters import FilterError
from kalma_graph.experiments.runner import default_answer_fn
from kalma_graph.kg.triples import Triple
from kalma_graph.pipeline.answer import Question
from tests.unit.test_evaluate_fixtures import (
    COMPLEX,
    CRANE,
    CRANE_GOLD,
    HERTWIG,
    HERTWIG_GOLD,
    RECORDS,
    SIMPLE,
    answer_records,
    retrieved_triples,
)

GOLD = {"crane": CRANE_GOLD, "hertwig": HERTWIG_GOLD}


def labels(triples) -> list[str]:
    return sorted(t["label"] if isinstance(t, dict) else t.label for t in triples)


# --- knowledge removal ------------------------------------------------------------------------------


def test_removal_rounds_are_nested_and_follow_the_gold_order():
    crane = retrieved_triples(CRANE)
    removed_by_round = []
    for n in range(4):
        shown, removed = RemovalFilter(GOLD, n)({"id": "crane"}, crane)
        assert len(shown) + len(removed) == len(crane) and not {id(t) for t in shown} & {id(t) for t in removed}
        removed_by_round.append(labels(removed))
    assert removed_by_round == [[], ["notable works"], ["notable works", "religion"],
                                ["alma mater", "notable works", "religion"]]


def test_removal_takes_only_gold_triples_the_graph_holds():
    flt = RemovalFilter(GOLD, 3)
    shown, removed = flt({"id": "hertwig"}, retrieved_triples(HERTWIG))  # 3 of Table 1's 5 are Oscar Hertwig's
    assert labels(removed) == ["doctoral student", "occupation"]
    assert (flt.log["hertwig"]
            == {"gold": 5, "gold_in_graph": 2, "requested": 3, "removed_gold": 2, "removed_triples": 2})
    assert flt.summary()["questions_short"] == 1


def test_removal_keeps_the_triple_kind_and_passes_unknown_questions():
    as_triples = [Triple(t["subject"], t["pid"], t["label"], t["value"], t["object_id"], t["datatype"])
                  for t in retrieved_triples(CRANE)]
    flt = RemovalFilter(GOLD, 1, by_text={"Who was Stephen Crane?": "crane"})
    assert flt.name == "remove_gold_1"  # recorded by the pipeline with every answer
    shown, removed = flt(Question(id="crane", text="Who was Stephen Crane?"), as_triples)
    assert [t.label for t in removed] == ["notable works"]
    shown, removed = flt("Who was Stephen Crane?", as_triples)
    assert removed == [t for t in as_triples if t.label == "notable works"] and isinstance(shown[0], Triple)
    shown, removed = flt({"id": "nobody"}, as_triples)
    assert shown == as_triples and removed == [] and flt.summary()["questions_without_gold"] == 1
    with pytest.raises(FilterError):
        flt("an unknown question", as_triples)


def test_seeded_removal_order_is_deterministic_and_nested():
    crane = retrieved_triples(CRANE)
    rounds = [labels(RemovalFilter(GOLD, n, seed=7)({"id": "crane"}, crane)[1]) for n in range(1, 4)]
    assert rounds == [labels(RemovalFilter(GOLD, n, seed=7)({"id": "crane"}, crane)[1]) for n in range(1, 4)]
    assert set(rounds[0]) < set(rounds[1]) < set(rounds[2])


# --- retrieval ablation -----------------------------------------------------------------------------


def test_choose_replaced_is_seeded_exact_and_nested():
    ids = [f"q{i:03d}" for i in range(50)]
    sets = [choose_replaced(ids, share, seed=1) for share in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)]
    assert [len(s) for s in sets] == [0, 10, 20, 30, 40, 50]
    assert all(a <= b for a, b in zip(sets, sets[1:]))
    assert sets[2] == choose_replaced(list(reversed(ids)), 0.4, seed=1)
    assert sets[2] != choose_replaced(ids, 0.4, seed=2)
    with pytest.raises(ValueError):
        choose_replaced(ids, 1.5)


@pytest.fixture
def four_people_store(embedded_store, tmp_path):
    """Four real BioKaLMA persons through the real ingest."""
    from kalma_graph.ingest.pipeline import ingest

    wanted = {CRANE, HERTWIG, "Q254", "Q58051"}  # + Mozart, Ernst Hanfstaengl
    path = tmp_path / "people.jsonl"
    with gzip.open(RECORDS, "rt", encoding="utf-8") as source, path.open("w") as target:
        for line in source:
            if json.loads(line)["qid"] in wanted:
                target.write(line)
    ingest(embedded_store, [path])
    return embedded_store


def test_irrelevant_graphs_come_from_other_entities(four_people_store):
    store = four_people_store
    pool = store.entity_ids_of_type("Q5")
    assert sorted(pool) == sorted({CRANE, HERTWIG, "Q254", "Q58051"})
    crane = [asdict(t) for t in store.one_hop(CRANE)]
    flt = IrrelevantGraphFilter(store, {"crane"}, pool, seed=3)
    shown, removed = flt(Question(id="crane", text="Who was Stephen Crane?", reference_qids=(CRANE,)), crane)
    assert removed == crane and shown and isinstance(shown[0], dict)
    subjects = {t["subject"] for t in shown}
    assert len(subjects) == 1 and CRANE not in subjects and subjects <= set(pool)
    assert flt.log["crane"]["with"] == sorted(subjects)
    again, _ = IrrelevantGraphFilter(store, {"crane"}, pool, seed=3)({"id": "crane"}, crane)
    assert again == shown  # seeded per question
    untouched, nothing = flt({"id": "other"}, crane)
    assert untouched == crane and nothing == []


# --- questions ----------------------------------------------------------------------------------------


def test_question_files_are_the_pipelines():
    specific = load_questions(COMPLEX)
    assert len(specific) == 1085 and specific[907].id == "complex_question_graph:907"
    assert specific[907].reference_qids == (HERTWIG,) and "Hertwig" in specific[907].text
    assert [q.id for q in load_questions(COMPLEX, limit=2)] == ["complex_question_graph:0", "complex_question_graph:1"]
    assert [q.id for q in load_questions(COMPLEX, ids={"complex_question_graph:907"})] == ["complex_question_graph:907"]


def test_general_and_specific_wordings_merge_under_one_id():
    merged = merge_variants(load_questions(SIMPLE), load_questions(COMPLEX))
    q = merged[907]
    assert q.id == "complex_question_graph:907" and q.reference_qids == (HERTWIG,)
    assert q.text_for("specific") == load_questions(COMPLEX)[907].text
    assert q.text_for("general") == load_questions(SIMPLE)[907].text != q.text_for("specific")
    with pytest.raises(ValueError, match="differ in length"):
        merge_variants(load_questions(SIMPLE)[:3], load_questions(COMPLEX)[:2])
    with pytest.raises(ValueError, match="different entities"):
        merge_variants(load_questions(SIMPLE)[1:3], load_questions(COMPLEX)[:2])


# --- the drivers on answers on disk --------------------------------------------------------------------


def _filtered_answers(out: Path, n: int) -> None:
    """`removed_<n>/answers.jsonl`: the Table 20 and Hertwig answers with round n's filter applied to
    their graphs, as the pipeline would record them."""
    records = {r["id"]: r for r in answer_records()}
    rows = []
    for rid, gold_id in (("crane-table20", "crane"), ("hertwig-907", "hertwig")):
        r = dict(records[rid])
        _, removed = RemovalFilter(GOLD, n)({"id": gold_id}, r["retrieved"])
        rows.append(r | {"id": gold_id, "removed": removed})  # `retrieved` stays the whole retrieval
    path = out / f"removed_{n}" / "answers.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_conscious_driver_reports_table5_on_answers_on_disk(tmp_path):
    """The same answers against graphs with 0..3 gold triples withheld: a citation of a withheld
    triple is no longer correct, so correctness, precision and recall fall as in Table 5.
    Crane: 9 citations, 4 precise, gold hits 4/5 → round 1 loses notable works, 2 religion, 3 alma mater.
    Hertwig: 5 citations, 4 correct, 2 precise → round 1 loses occupation, 2 doctoral student."""
    for n in range(4):
        _filtered_answers(tmp_path, n)
    settings = ExperimentSettings(out_dir=tmp_path, reuse_answers=True)
    result = conscious([{"id": "crane", "question": "q1"}, {"id": "hertwig", "question": "q2"}], GOLD,
                       components=Components(store=None), settings=settings, nli=None)
    rows = result["rows"]
    assert [r["setting"] for r in rows] == [0, 1, 2, 3]
    assert [r["correctness"] for r in rows] == pytest.approx([13 / 14, 11 / 14, 9 / 14, 8 / 14])
    assert [r["recall_micro"] for r in rows] == pytest.approx([6 / 10, 4 / 10, 2 / 10, 1 / 10])
    assert [r["precision_micro"] for r in rows] == pytest.approx([6 / 14, 4 / 14, 2 / 14, 1 / 14])
    assert all(r["na_precision"] is None for r in rows)  # no NLI model given
    files = {k: Path(v) for k, v in result["files"].items()}
    assert json.loads(files["json"].read_text())["rows"][3]["setting"] == 3
    md = files["markdown"].read_text()
    # alignment by the verifier: no NLI needed
    assert ("| Removed | answers | Align. (verifier) | Corr. | Prec. | Rec. | F1 |" in md
            and "| 3 | 2 | 85.7 | 57.1 |" in md)
    # (11 of 14 since verifier 4 reads "his notable work, The Red Badge of Courage" as the records' notable works;
    # 12 since verifier 6 reads a sport said of its player: "a member of the Syracuse Orange baseball team")
    assert files["plot_citation_quality"].read_bytes()[:4] == b"\x89PNG" and files["plot_na"].is_file()
    assert (tmp_path / "removed_2" / "evaluation" / "results.json").is_file()


def test_drivers_say_what_is_missing(tmp_path):
    settings = ExperimentSettings(out_dir=tmp_path, reuse_answers=True)
    with pytest.raises(ExperimentError, match="needs --gold"):
        conscious([{"id": "a", "question": "q"}], {}, components=Components(store=None), settings=settings, nli=None)
    with pytest.raises(ExperimentError, match="does not exist"):
        conscious([{"id": "a", "question": "q"}], GOLD, components=Components(store=None), settings=settings, nli=None)


def test_variants_driver(tmp_path):
    records = answer_records()
    for variant, rows in (("general", records[3:4]), ("specific", records[1:2])):
        path = tmp_path / variant / "answers.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text("".join(json.dumps(r | {"variant": variant}) + "\n" for r in rows))
    result = variants([], components=Components(store=None), nli=None,
                      settings=ExperimentSettings(out_dir=tmp_path, reuse_answers=True),
                      gold={"crane-no-citation": CRANE_GOLD, "crane-table20": CRANE_GOLD})
    assert [(r["setting"], r["citations"], r["recall_micro"]) for r in result["rows"]] == [
        ("general", 0, 0.0), ("specific", 9, 0.8)]
    assert "General vs specific" in Path(result["files"]["markdown"]).read_text()


def test_missing_pipeline_is_a_clear_error():
    try:
        import kalma_graph.pipeline.answer  # noqa: F401
    except ImportError:
        with pytest.raises(ExperimentError, match="--reuse-answers"):
            default_answer_fn()
    else:
        assert callable(default_answer_fn())


def test_cli_experiment_conscious_on_answers_on_disk(tmp_path):
    for n in range(4):
        _filtered_answers(tmp_path / "exp", n)
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "crane", "question": "q1"}\n{"id": "hertwig", "question": "q2"}\n')
    gold = tmp_path / "gold.jsonl"
    write_gold(gold, GOLD)
    proc = subprocess.run(
        [sys.executable, "-m", "kalma_graph.cli.main", "experiment", "conscious", "--questions", str(questions),
         "--gold", str(gold), "--out", str(tmp_path / "exp"), "--reuse-answers", "--no-nli", "--no-plots", "--json"],
        capture_output=True, text=True, env={**os.environ, "KALMA_STORE": ""}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert [round(r["recall_micro"], 2) for r in result["rows"]] == [0.6, 0.4, 0.2, 0.1]
    assert (tmp_path / "exp" / "experiment.md").is_file()


# --- through the real answer pipeline (slow; needs llama.cpp to run here) -------------------------------

_PROBE = """
from kalma_graph.models.llm import load_llm
print(load_llm(None, n_ctx=512).next_token_logprobs("1, 2, 3,", ["4"]))
"""


@pytest.mark.slow
def test_conscious_rounds_through_the_real_pipeline(four_people_store, tmp_path):
    """Rounds 0 and 1 for Stephen Crane's BioKaLMA question with the packaged SmolLM2 and spaCy NER:
    the pipeline applies our filter, records what it withheld, and the evaluation checks citations
    against the graph shown (retrieved minus removed)."""
    probe = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=300)
    if probe.returncode != 0:
        pytest.skip(f"llama.cpp cannot run here (exit {probe.returncode})")
    from kalma_graph.models.llm import GenerationParams, load_llm
    from kalma_graph.models.ner import load_ner

    question = load_questions(COMPLEX, limit=1)  # complex_question_graph:0, about Stephen Crane
    gold = {question[0].id: CRANE_GOLD}
    llm = load_llm(None, n_ctx=4096, seed=0)
    try:
        settings = ExperimentSettings(out_dir=tmp_path, params=GenerationParams(max_tokens=96, seed=0), plots=False)
        result = conscious(question, gold, components=Components(four_people_store, llm, load_ner()),
                           settings=settings, nli=None, rounds=(0, 1))
    finally:
        llm.close()
    records = [json.loads((tmp_path / f"removed_{n}" / "answers.jsonl").read_text().splitlines()[0]) for n in (0, 1)]
    # round 0 withholds nothing: it runs unfiltered, so a plain run's answers serve it
    assert records[0]["removed"] == [] and records[0]["params"]["knowledge_filter"] is None
    assert records[1]["params"]["knowledge_filter"] == "remove_gold_1"
    assert [(t["subject"], t["label"]) for t in records[1]["removed"]] == [(CRANE, "notable works")]
    assert records[1]["removed"][0] in records[1]["retrieved"]
    assert [r["setting"] for r in result["rows"]] == [0, 1] and all(r["answers"] == 1 for r in result["rows"])
    assert all(r["recall_micro"] is not None for r in result["rows"])  # the gold set was used
    assert (tmp_path / "removed_1" / "evaluation" / "results.json").is_file()
