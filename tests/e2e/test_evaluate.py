"""`kalma-graph evaluate` end to end on answers built from real BioKaLMA records (tests/unit/test_evaluate_fixtures.py):
exact citation metrics, the report files, the options, bad input, and the run written to the graph."""

from __future__ import annotations

import csv
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kalma_graph.evaluation.answers_file import AnswersFileError, read_answers
from kalma_graph.evaluation.evaluate import EvaluateOptions, evaluate_file, evaluate_records
from kalma_graph.evaluation.gold import GoldError, load_gold, write_gold
from kalma_graph.evaluation_result import EvaluationResult
from tests.unit.test_evaluate_fixtures import (
    EXPECTED,
    HERTWIG,
    RECORDS,
    answer_records,
    gold_sets,
    write_answers,
)

REPO = Path(__file__).resolve().parents[2]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def answers_file(tmp_path) -> Path:
    return write_answers(tmp_path / "answers.jsonl")


@pytest.fixture
def gold_file(tmp_path) -> Path:
    path = tmp_path / "gold.jsonl"
    write_gold(path, gold_sets())
    return path


def test_exact_citation_metrics_end_to_end(answers_file, gold_file, tmp_path):
    """Table 19: 14 correct citations, 4 in the gold set; Table 20: 9 and 4; Hertwig: 5 citations, the
    employer is wrong (the graph says University of Jena), 2 in Table 1's set, 3 of whose 5 triples are
    about Oscar Hertwig and cannot be hit; the uncited answer hits nothing; the removal answer cites 3
    correct triples outside the gold set."""
    results = evaluate_file(answers_file, out_dir=tmp_path / "out", gold=gold_file, plots=False)
    q = results.metrics.citation_quality
    assert ((q["citations"], q["correct"], q["precise"])
            == (EXPECTED["citations"], EXPECTED["correct"], EXPECTED["precise"]))
    assert (q["gold_triples"], q["gold_hit"]) == (EXPECTED["gold_triples"], EXPECTED["gold_hit"])
    assert q["correctness"] == pytest.approx(30 / 31)
    assert q["precision_micro"] == pytest.approx(10 / 31)
    assert q["recall_micro"] == pytest.approx(10 / 25)
    assert q["precision_macro"] == pytest.approx(EXPECTED["precision_macro"])
    assert q["recall_macro"] == pytest.approx(EXPECTED["recall_macro"])
    p, r = 10 / 31, 10 / 25
    assert q["f1_micro"] == pytest.approx(2 * p * r / (p + r))

    rows = {row.id: row for row in results.per_answer}
    hertwig = rows["hertwig-907"]
    assert (hertwig.citations, hertwig.correct, hertwig.precise, hertwig.gold_hit, hertwig.sloppy) == (5, 4, 2, 2, 1)
    assert rows["crane-no-citation"].precision is None and rows["crane-no-citation"].recall == 0.0
    detail = {a.id: a for a in results.answers}["hertwig-907"]
    flags = [(c.prop, c.correct, c.precise) for s in detail.sentences for c in s.citations]
    assert flags == [("occupation", True, True), ("country of citizenship", True, False), ("employer", False, False),
                     ("doctoral student", True, True), ("alma mater", True, False)]

    d = results.metrics.answer_descriptives
    assert (d["answers_without_citation"], d["citations_per_answer"], d["sloppy_citations"]) == (1, 31 / 5, 1)
    assert results.summary.sloppy_share == pytest.approx(1 / 31)
    assert set(results.skipped) == {"na_quality", "geval"}  # alignment: the verifier, which needs no model
    assert results.metrics.alignment["choices"]["method"] == "verifier"
    assert results.metrics.alignment["pairs"] == 31

    header = results.header
    assert header.choices["citation_quality.matching"] == "strict"
    assert header.choices["evaluation.absent_set"] == "removed"
    assert header.choices["citation_quality.gold"] == "given"
    assert header.answers.records == 5 and len(header.answers.sha256) == 64
    assert header.answers.header["command"] == "fixture"  # the sidecar was read
    assert header.gold.questions == 5 and header.gold.path == str(gold_file)
    assert header.libraries["kalma-graph"] and header.libraries["python"]
    assert header.variants == ["specific"]


def test_reuse_reads_back_a_report_of_the_same_inputs_only(answers_file, gold_file, tmp_path):
    """An experiment re-run resumes: the report of the very answers file, gold and choices is read
    back, not scored again; another answers file, gold set or choice is scored anew."""
    from kalma_graph.evaluation.evaluate import EvaluateOptions

    out = tmp_path / "report"
    first = evaluate_file(answers_file, out_dir=out, gold=gold_file, plots=False)
    again = evaluate_file(answers_file, out_dir=out, gold=gold_file, plots=False, reuse=True)
    assert again.header.evaluated_at == first.header.evaluated_at and again.answers == []  # read back
    assert again.summary == first.summary and again.run_id == first.run_id
    normalized = evaluate_file(answers_file, out_dir=out, gold=gold_file, plots=False, reuse=True,
                          options=EvaluateOptions(matching="normalized"))
    assert normalized.answers and normalized.header.choices["evaluation.matching"] == "normalized"  # scored anew
    with answers_file.open("a", encoding="utf-8") as fh:  # the file changed: its sha256 too
        fh.write("\n")
    changed = evaluate_file(answers_file, out_dir=out, gold=gold_file, plots=False, reuse=True)
    assert changed.answers and changed.header.answers.sha256 != first.header.answers.sha256
    assert evaluate_file(answers_file, out_dir=out, gold=None, plots=False, reuse=True).answers  # other gold


def test_report_files_exist_and_parse(answers_file, gold_file, tmp_path):
    out = tmp_path / "report"
    results = evaluate_file(answers_file, out_dir=out, gold=gold_file)
    files = {k: Path(v) for k, v in results.files.items()}
    saved = json.loads(files["json"].read_text())
    assert saved == results.model_dump(mode="json")  # the file is the result, less the scored answers
    assert EvaluationResult.model_validate(saved).model_dump(mode="json") == saved
    assert "answers" not in saved and len(saved["per_answer"]) == 5
    with files["csv"].open() as handle:
        rows = list(csv.DictReader(handle))
    assert [r["id"] for r in rows] == [r["id"] for r in answer_records()]
    assert rows[2]["correct"] == "4" and rows[3]["precision"] == ""  # undefined is empty, never 0
    with files["citations_csv"].open() as handle:
        cited = list(csv.DictReader(handle))
    assert len(cited) == sum(int(r["citations"]) for r in rows)  # one row per citation
    assert sum(c["correct"] == "True" for c in cited) == sum(int(r["correct"]) for r in rows)
    assert {c["answer_id"] for c in cited} <= {r["id"] for r in rows}
    details = [json.loads(line) for line in files["details"].read_text().splitlines()]
    assert len(details) == 5 and details[0]["sentences"][0]["citations"][0]["qid"] == "Q206534"
    md = files["markdown"].read_text()
    assert "| citation_quality.matching | strict |" in md and "| 96.8 |" in md
    assert "Alignment (graph-grounded verifier)" in md and "no NLI model: no NLI column" in md
    assert {"support", "verdict", "reason"} <= set(cited[0]) and all(c["verdict"] for c in cited)
    with files["sentences_csv"].open() as handle:
        sentences = list(csv.DictReader(handle))
    assert sentences and {"fully_supported", "claims", "claims_contradicted"} <= set(sentences[0])
    pngs = [p for k, p in files.items() if k.startswith("plot_")]
    assert {p.name for p in pngs} == {"citation_quality.png", "citations_per_answer.png"}
    assert all(p.read_bytes()[:8] == PNG_MAGIC for p in pngs)
    assert not list(out.rglob("*.tmp"))


def test_without_gold_only_correctness_and_it_says_so(answers_file, tmp_path):
    results = evaluate_file(answers_file, out_dir=tmp_path / "out", plots=False)
    q = results.metrics.citation_quality
    assert q["correctness"] == pytest.approx(30 / 31)
    assert q["precision_micro"] is None and q["recall_macro"] is None and q["f1_micro"] is None
    assert results.header.choices["citation_quality.gold"] == "absent"
    assert any("no gold file" in n for n in results.notes)
    assert "**none**" in (tmp_path / "out" / "summary.md").read_text()


def test_matching_modes(tmp_path):
    records = answer_records()[:1]
    records[0]["answer"] = records[0]["answer"].replace("date of birth: 1871-11-01", "date of birth: November 1, 1871")
    strict = evaluate_records(records, options=EvaluateOptions(matching="strict"))
    normalized = evaluate_records(records, options=EvaluateOptions(matching="normalized"))
    assert strict.metrics.citation_quality["correct"] == 13
    assert normalized.metrics.citation_quality["correct"] == 14
    assert normalized.header.choices["evaluation.matching"] == "normalized"


def test_partial_gold_is_named(answers_file, tmp_path):
    gold = {k: v for k, v in gold_sets().items() if k != "hertwig-907"} | {"unknown-question": []}
    results = evaluate_file(answers_file, out_dir=tmp_path / "out", gold=gold, plots=False)
    assert results.header.choices["citation_quality.gold"] == "partial"
    assert any("1 of 5 answers have no gold set" in n for n in results.notes)
    assert any("not in the answers file" in n for n in results.notes)


def test_bad_answers_files_fail_with_file_and_line(tmp_path):
    path = tmp_path / "a.jsonl"
    good = json.dumps(answer_records()[0])
    path.write_text(good + "\n{broken\n")
    with pytest.raises(AnswersFileError, match=r"a\.jsonl:2: not JSON"):
        read_answers(path)
    path.write_text(good + "\n" + good + "\n")
    with pytest.raises(AnswersFileError, match=r":2: answer id 'crane-table19' appears twice"):
        read_answers(path)
    path.write_text(json.dumps({"id": "x", "answer": "A", "retrieved": [{"subject": "Q1"}]}) + "\n")
    with pytest.raises(AnswersFileError, match=r"a\.jsonl:1: retrieved\[0\]\.label: Field required"):
        read_answers(path)
    path.write_text(good + "\n" + json.dumps({"id": "y", "answer": 3}) + "\n")
    with pytest.raises(AnswersFileError, match=r"a\.jsonl:2: answer: Input should be a valid string \(got 3\)"):
        read_answers(path)
    path.write_text(json.dumps({"id": "z"}) + "\n")
    with pytest.raises(AnswersFileError, match=r"a\.jsonl:1: answer: Field required"):
        read_answers(path)
    path.write_text("[1, 2]\n")
    with pytest.raises(AnswersFileError, match=r"a\.jsonl:1: an answer record is a JSON object"):
        read_answers(path)


def test_compressed_answers_file(tmp_path):
    path = tmp_path / "answers.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for r in answer_records():
            handle.write(json.dumps(r) + "\n")
    assert len(read_answers(path).records) == 5


def test_gold_files(tmp_path):
    path = tmp_path / "gold.jsonl.gz"
    with gzip.open(path, "wt") as handle:
        handle.write(
            json.dumps({"id": "q1", "gold": [["Q1", "p", "v"], {"subject": "Q1", "label": "q", "value": "w"}]}) + "\n")
    assert load_gold(path) == {"q1": [("Q1", "p", "v"), ("Q1", "q", "w")]}
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "q1", "gold": [["Q1", "p"]]}\n')
    with pytest.raises(GoldError, match=r"bad\.jsonl:1: a gold triple must be three non-empty strings"):
        load_gold(bad)
    bad.write_text('{"id": "q1", "gold": []}\n{"id": "q1", "gold": []}\n')
    with pytest.raises(GoldError, match=r":2: question id 'q1' appears twice"):
        load_gold(bad)


# --- the run in the graph -----------------------------------------------------------------------------


def _load_two_people(store, tmp_path) -> None:
    """The real BioKaLMA records of Stephen Crane and Richard Hertwig, through the real ingest."""
    from kalma_graph.ingest.pipeline import ingest

    small = tmp_path / "two_people.jsonl"
    with gzip.open(RECORDS, "rt", encoding="utf-8") as source, small.open("w", encoding="utf-8") as target:
        for line in source:
            if json.loads(line)["qid"] in ("Q206534", HERTWIG):
                target.write(line)
    ingest(store, [small])


def _check_run_in_store(store, tmp_path, answers_file, gold_file) -> None:
    from kalma_graph.store.results import delete_run, list_runs, read_run

    _load_two_people(store, tmp_path)
    stats_before = store.stats()
    results = evaluate_file(answers_file, out_dir=tmp_path / "out", gold=gold_file, store=store, plots=False)
    assert results.store.answers == 5 and results.store.cites == 31
    assert results.store.citations_without_entity == 0
    again = evaluate_file(answers_file, out_dir=tmp_path / "out", gold=gold_file, store=store, plots=False)
    assert again.run_id == results.run_id  # same inputs and choices: the run is replaced, not added
    assert [r["id"] for r in list_runs(store)] == [results.run_id]
    assert store.stats() == stats_before  # the knowledge graph itself is untouched

    run = read_run(store, results.run_id)
    assert run["records"] == 5 and run["matching"] == "strict" and run["variants"] == ["specific"]
    assert run["correctness"] == pytest.approx(30 / 31) and run["recall_micro"] == pytest.approx(0.4)
    assert json.loads(run["header_json"])["gold"]["questions"] == 5
    answers = {a["question_id"]: a for a in run["answers"]}
    assert sorted(answers) == sorted(r["id"] for r in answer_records())
    hertwig = answers["hertwig-907"]
    assert (hertwig["citations"], hertwig["correct"], hertwig["precise"]) == (5, 4, 2)
    sentences = hertwig["sentences_list"]
    assert [s["position"] for s in sentences] == list(range(len(sentences))) and sentences[-1]["na"] is True
    cites = [c for s in sentences for c in s["cites"]]
    assert [(c["entity_id"], c["prop"], c["correct"]) for c in cites][2] == (HERTWIG, "employer", False)
    assert sentences[1]["citations"][0] == f"{HERTWIG} | employer | University of Munich"
    # the verifier's verdicts travel with the run: each CITES its verdict and reason, each sentence its claims
    assert all(c["verdict"] in ("supported", "partial", "unsupported") and c["reason"] for c in cites)
    assert all(isinstance(s["fully_supported"], bool) and isinstance(s["claims"], list) for s in sentences)
    assert run["alignment_method"] == "verifier" and run["alignment_micro"] is not None

    delete_run(store, results.run_id)
    assert read_run(store, results.run_id) is None and list_runs(store) == []
    assert store.stats() == stats_before


def test_run_written_to_the_embedded_store_reads_back(embedded_store, tmp_path, answers_file, gold_file):
    _check_run_in_store(embedded_store, tmp_path, answers_file, gold_file)


@pytest.mark.neo4j
def test_run_written_to_neo4j_reads_back(neo4j_store, tmp_path, answers_file, gold_file):
    _check_run_in_store(neo4j_store, tmp_path, answers_file, gold_file)


@pytest.mark.parametrize("backend", ["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def test_browse_run_on_a_written_run(backend, request, tmp_path, answers_file, gold_file):
    """Every saved query in cypher/browse/ runs unchanged against a written run."""
    store = request.getfixturevalue(f"{backend}_store")
    _load_two_people(store, tmp_path)
    results = evaluate_file(answers_file, out_dir=tmp_path / "out", gold=gold_file, store=store, plots=False)
    params = {"run_id": results.run_id, "question_id": "hertwig-907", "entity_id": HERTWIG}
    found = {}
    for path in sorted((REPO / "cypher" / "browse").glob("*.cypher")):
        text = path.read_text()
        assert text.startswith("// kalma-graph · "), path.name  # the name Neo4j Browser shows
        used = {k: v for k, v in params.items() if f"${k}" in text}
        if backend == "embedded":
            rows = store._execute(text, used)
        else:
            rows = store._driver.execute_query(text, used, database_=store.database).records
        found[path.stem] = len(rows)
    assert found["runs"] == 1 and found["run_answers"] == 5 and found["run_incorrect_citations"] == 1
    assert found["entity_citations"] == 5 and found["run_na_sentences"] == 5 and found["run_graph"] > 20


def test_cli_evaluate_and_its_errors(tmp_path, answers_file, gold_file):
    env = {**os.environ, "KALMA_STORE": ""}
    store = f"embedded:{tmp_path}/g.lbdb"
    proc = subprocess.run(
        [sys.executable, "-m", "kalma_graph.cli.main", "evaluate", "--answers", str(answers_file), "--gold",
         str(gold_file), "--no-nli", "--out", str(tmp_path / "out"), "--store", store, "--no-plots", "--json"],
        capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(proc.stdout)
    assert shown["summary"]["correctness"] == pytest.approx(30 / 31)
    assert shown["store"]["answers"] == 5 and shown["store"]["citations_without_entity"] == 31  # empty graph
    assert (tmp_path / "out" / "summary.md").is_file()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{nope\n")
    proc = subprocess.run(
        [sys.executable, "-m", "kalma_graph.cli.main", "evaluate", "--answers", str(broken), "--no-nli",
         "--out", str(tmp_path / "o2")], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 2 and "broken.jsonl:1: not JSON" in proc.stderr and "Traceback" not in proc.stderr


def test_plain_evaluate_runs_offline_without_an_nli_model(tmp_path, answers_file, gold_file):
    """No --nli, no $KALMA_NLI_MODEL, the default hub model absent (an empty Hugging Face cache, offline): the
    verifier's figures, the NLI column and [NA] quality skipped with how to add them; never an error (issue 44)."""
    env = {**os.environ, "KALMA_STORE": "", "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1"}
    env.pop("KALMA_NLI_MODEL", None)
    proc = subprocess.run(
        [sys.executable, "-m", "kalma_graph.cli.main", "evaluate", "--answers", str(answers_file), "--gold",
         str(gold_file), "--out", str(tmp_path / "out"), "--store", f"embedded:{tmp_path}/g.lbdb", "--no-plots",
         "--json"], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "NLI skipped" in proc.stderr and "--nli PATH" in proc.stderr
    shown = json.loads(proc.stdout)
    assert shown["summary"]["alignment_micro"] is not None  # the verifier's figure, no model needed
    assert "no NLI model" in shown["skipped"]["na_quality"]
