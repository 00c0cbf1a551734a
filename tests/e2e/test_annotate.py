"""`kalma-graph annotate export / compare` (KaLMA §5.4): pairs sampled from a real evaluate run
(the fixture answers of test_evaluate_fixtures scored with the real offline NLI model), filled copies
with hand-checked figures, malformed labels reported with their CSV lines, CLI exit codes."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kalma_graph.cli.main import cli
from kalma_graph.evaluation.annotate import (
    PAIRS_COLUMNS,
    AnnotateError,
    allocate,
    compare_labels,
    export_pairs,
    parse_label,
    sample_pairs,
)
from tests.conftest import NLI_MODEL as SHARED_MODEL, needs_nli
from tests.unit.test_evaluate_fixtures import write_answers

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def scored_dir(tmp_path_factory) -> Path:
    """A real `evaluate --out` directory: the fixture answers, alignment by the local MiniLM NLI model."""
    if not (SHARED_MODEL / "config.json").exists():
        pytest.skip(f"no NLI model at {SHARED_MODEL}")
    import torch

    from kalma_graph.evaluation.evaluate import evaluate_file
    from kalma_graph.models.nli import load_nli

    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("annotate")
    nli = load_nli(SHARED_MODEL, device="cpu", cache=root / "nli.sqlite")
    try:
        evaluate_file(write_answers(root / "answers.jsonl"), out_dir=root / "eval", nli=nli, plots=False)
    finally:
        nli.close()
    return root / "eval"


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def write_csv(path: Path, rows: list[dict], columns=PAIRS_COLUMNS) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


# --- export ------------------------------------------------------------------------------------------


@needs_nli
def test_export_is_deterministic_for_a_seed(scored_dir, tmp_path):
    first = export_pairs(scored_dir, tmp_path / "a" / "pairs.csv", n=12, seed=0)
    again = export_pairs(scored_dir, tmp_path / "b" / "pairs.csv", n=12, seed=0)
    other = export_pairs(scored_dir, tmp_path / "c" / "pairs.csv", n=12, seed=1)
    for name in ("pairs.csv", "pairs.key.csv", "pairs.instructions.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert (tmp_path / "a" / "pairs.csv").read_bytes() != (tmp_path / "c" / "pairs.csv").read_bytes()
    # The pool: every citation of the 5 fixture answers that the NLI model judged (31 pairs).
    assert first["pool"]["pairs"] == 31 and first["pool"]["without_verdict"] == 0
    assert first["pool"]["aligned"] + first["pool"]["not_aligned"] == 31
    assert first["pairs"] == 12 and again["sampled"] == first["sampled"]
    # Stratified, proportional: both automatic labels appear; the sample rate follows the pool's.
    assert first["sampled"]["aligned"] >= 1 and first["sampled"]["not_aligned"] >= 1
    assert first["sampled"] == allocate({k: first["pool"][k] for k in ("aligned", "not_aligned")}, 12)
    assert other["sampled"] == first["sampled"]


@needs_nli
def test_the_csv_holds_no_automatic_label(scored_dir, tmp_path):
    result = export_pairs(scored_dir, tmp_path / "pairs.csv", n=100, seed=0)
    text = (tmp_path / "pairs.csv").read_text(encoding="utf-8")
    rows = read_csv(tmp_path / "pairs.csv")
    assert list(rows[0]) == list(PAIRS_COLUMNS)
    assert len(rows) == result["pairs"] == 31  # n above the pool: every pair once
    assert all(row["human_label"] == "" for row in rows)
    assert "entail" not in text and "not_aligned" not in text and "auto" not in text
    assert [row["pair_id"] for row in rows] == [f"p{i:03d}" for i in range(1, 32)]
    # sentences without citation marks; citations as `qid, property: value`
    assert not any("[" in row["sentence"] for row in rows)
    assert all(row["citation"].startswith("Q") and ": " in row["citation"] for row in rows)
    assert {"Q206534, date of birth: 1871-11-01", "Q85907, employer: University of Munich"} <= {
        row["citation"] for row in rows}
    key = read_csv(tmp_path / "pairs.key.csv")
    assert [k["pair_id"] for k in key] == [row["pair_id"] for row in rows]
    assert {k["auto_label"] for k in key} == {"aligned", "not_aligned"}
    assert all((float(k["entailment"]) >= 0.5) == (k["auto_label"] == "aligned") for k in key)
    # the evaluate run's own verdicts, carried over unchanged
    scored = [json.loads(line) for line in (scored_dir / "answers_scored.jsonl").read_text().splitlines()]
    verdicts = {(a["id"], s["position"], i): c["entailed"]
                for a in scored for s in a["sentences"] for i, c in enumerate(s["citations"])}
    assert all(verdicts[(k["answer_id"], int(k["sentence_position"]), int(k["citation_position"]))]
               == (k["auto_label"] == "aligned") for k in key)
    instructions = (tmp_path / "pairs.instructions.md").read_text(encoding="utf-8")
    assert "human_label" in instructions and "Merton" in instructions and "not_aligned" in instructions
    assert result["instructions"]["name"] == "annotate/alignment"


@needs_nli
def test_export_refuses_to_overwrite_and_accepts_the_jsonl_file(scored_dir, tmp_path):
    export_pairs(scored_dir, tmp_path / "pairs.csv", n=5)
    with pytest.raises(AnnotateError, match="exists"):
        export_pairs(scored_dir, tmp_path / "pairs.csv", n=5)
    again = export_pairs(scored_dir / "answers_scored.jsonl", tmp_path / "pairs.csv", n=5, force=True)
    assert again["pairs"] == 5 and again["run_id"]


def test_sampling_and_allocation_units():
    pairs = [{"auto_label": "aligned", "i": i} for i in range(50)] + [{"auto_label": "not_aligned", "i": i}
                                                                       for i in range(2)]
    picked = sample_pairs(pairs, 10, seed=3)
    assert picked == sample_pairs(pairs, 10, seed=3)
    assert sum(p["auto_label"] == "not_aligned" for p in picked) == 1  # 10·2/52 rounds to 0; one kept
    assert allocate({"aligned": 3, "not_aligned": 3}, 1) in ({"aligned": 1, "not_aligned": 0},
                                                              {"aligned": 0, "not_aligned": 1})
    assert allocate({"aligned": 0, "not_aligned": 0}, 5) == {"aligned": 0, "not_aligned": 0}
    assert allocate({"aligned": 60, "not_aligned": 40}, 100) == {"aligned": 60, "not_aligned": 40}


@pytest.mark.parametrize("raw,label", [("aligned", "aligned"), ("ALIGNED", "aligned"), ("1", "aligned"),
                                       ("Yes", "aligned"), ("not_aligned", "not_aligned"),
                                       ("Not Aligned", "not_aligned"), ("0", "not_aligned"), (" NO ", "not_aligned"),
                                       ("maybe", None), ("2", None), ("", None), ("10", None)])
def test_label_spellings(raw, label):
    assert parse_label(raw) == label


# --- compare -----------------------------------------------------------------------------------------


def fill(pairs: Path, key: Path, out: Path) -> Path:
    """A filled copy with a known confusion matrix: the human agrees with the automatic label except on
    the first aligned and the first not-aligned pair (flipped); the second and third aligned pairs are
    left empty and written `maybe`; labels in mixed spellings."""
    auto = {k["pair_id"]: k["auto_label"] for k in read_csv(key)}
    rows = read_csv(pairs)
    aligned = [r["pair_id"] for r in rows if auto[r["pair_id"]] == "aligned"]
    not_aligned = [r["pair_id"] for r in rows if auto[r["pair_id"]] == "not_aligned"]
    spelled = {"aligned": ["Yes", "1", "ALIGNED"], "not_aligned": ["no", "0", "Not_Aligned"]}
    for i, row in enumerate(rows):
        pid = row["pair_id"]
        label = auto[pid]
        if pid in (aligned[0], not_aligned[0]):
            label = "not_aligned" if label == "aligned" else "aligned"
        row["human_label"] = spelled[label][i % 3]
        if pid == aligned[1]:
            row["human_label"] = "   "
        if pid == aligned[2]:
            row["human_label"] = "maybe"
    return write_csv(out, rows)


@needs_nli
def test_compare_on_a_filled_copy_gives_the_hand_checked_figures(scored_dir, tmp_path):
    exported = export_pairs(scored_dir, tmp_path / "pairs.csv", n=12, seed=0)
    # The real NLI verdicts on the fixture: 23 of 31 pairs entailed, so 9 aligned + 3 not aligned sampled.
    assert exported["pool"]["aligned"] == 23 and exported["sampled"] == {"aligned": 9, "not_aligned": 3}
    filled = fill(tmp_path / "pairs.csv", tmp_path / "pairs.key.csv", tmp_path / "pairs.csv")
    report = compare_labels(filled)  # key found next to it
    # Used: 10 (2 excluded). auto aligned 7 → human aligned 6 (tp), not 1 (fp); auto not 3 → fn 1, tn 2.
    m = report["overall"]
    assert (m["tp"], m["fp"], m["fn"], m["tn"]) == (6, 1, 1, 2)
    assert report["n"] == 10
    assert report["accuracy"] == pytest.approx(0.8)
    assert report["precision"] == pytest.approx(6 / 7)
    assert report["recall"] == pytest.approx(6 / 7)
    assert report["f1"] == pytest.approx(6 / 7)
    # p_e = .7·.7 + .3·.3 = .58; κ = (.8 − .58) / (1 − .58) = 11/21
    assert report["cohen_kappa"] == pytest.approx(11 / 21)
    t6 = report["table6"]
    # the run's alignment is the verifier's: 24 of 31 since verifier 4 reads "his notable work, The Red Badge of
    # Courage" as the records' `notable works` (it had no cue for that BioKaLMA label: partial before); 25 since
    # verifier 6 reads a sport said of its player ("a member of the Syracuse Orange baseball team" states
    # `sport: baseball`: the rules count a more specific statement that implies the value); 26 since verifier 9
    # reads a value's last word in its other form ("a prominent literary realist writer" states `movement:
    # literary realism`)
    assert t6["alignment_run"] == pytest.approx(26 / 31, abs=1e-6)
    assert t6["alignment_sample"] == pytest.approx(0.7) and t6["human_avg"] == pytest.approx(0.7)
    assert t6["gap"] == pytest.approx(0.0) and t6["system"] == exported["run_id"]
    # the two unusable rows, by CSV line (header = line 1, pair p00k on line k + 1)
    assert [(i["kind"], i["excluded"]) for i in report["issues"]] == [("empty", True), ("unreadable", True)]
    rows = read_csv(filled)
    lines = {row["pair_id"]: n for n, row in enumerate(rows, start=2)}
    for issue in report["issues"]:
        assert issue["where"] == f"{filled}:{lines[issue['pair_id']]}"
    assert f"| {exported['run_id']} | 83.9 | 70.0 | 70.0 | 0.0 |" in report["markdown"]  # Table 6 row
    assert "| pairs | 10 | 80.0 | 85.7 | 85.7 | 85.7 | 0.52 | 1 | 1 |" in report["markdown"]  # annotator = file stem
    assert report["inter_annotator"] is None


@needs_nli
def test_two_annotators_and_inter_annotator_agreement(scored_dir, tmp_path):
    export_pairs(scored_dir, tmp_path / "pairs.csv", n=12, seed=0)
    key = tmp_path / "pairs.key.csv"
    auto = {k["pair_id"]: k["auto_label"] for k in read_csv(key)}
    rows = read_csv(tmp_path / "pairs.csv")
    alice = write_csv(tmp_path / "alice.csv", [{**r, "human_label": auto[r["pair_id"]]} for r in rows])
    bob_rows = [{**r, "human_label": auto[r["pair_id"]]} for r in rows]
    bob_rows[0]["human_label"] = "not_aligned" if auto[bob_rows[0]["pair_id"]] == "aligned" else "aligned"
    bob = write_csv(tmp_path / "bob.csv", bob_rows)
    report = compare_labels([alice, bob], key=key)
    a, b = report["annotators"]
    assert a["annotator"] == "alice" and a["metrics"]["agreement"] == 1.0 and a["metrics"]["cohen_kappa"] == 1.0
    assert b["metrics"]["agreement"] == pytest.approx(11 / 12)
    assert report["n"] == 24 and report["accuracy"] == pytest.approx(23 / 24)
    assert report["inter_annotator"]["agreement"] == pytest.approx(11 / 12)
    assert report["table6"]["human_avg"] == pytest.approx((9 / 12 + b["human_alignment"]) / 2)


def test_malformed_rows_are_reported_with_lines_and_excluded(tmp_path):
    """A hand-made key and pairs file (no model needed): every kind of unusable row, and a sentence with
    a line break inside its quotes, so CSV records and physical lines differ."""
    key_rows = [{"pair_id": f"p{i}", "auto_label": "aligned" if i % 2 else "not_aligned"} for i in range(1, 8)]
    write_csv(tmp_path / "pairs.key.csv", key_rows, columns=("pair_id", "auto_label"))
    pairs = [
        {"pair_id": "p1", "answer_id": "a", "sentence": "Two\nlines.", "citation": "Q1, x: y", "human_label": "yes"},
        {"pair_id": "p2", "answer_id": "a", "sentence": "s", "citation": "c", "human_label": ""},
        {"pair_id": "p3", "answer_id": "a", "sentence": "s", "citation": "c", "human_label": "perhaps"},
        {"pair_id": "p9", "answer_id": "a", "sentence": "s", "citation": "c", "human_label": "1"},
        {"pair_id": "p4", "answer_id": "a", "sentence": "s", "citation": "c", "human_label": "1"},
        {"pair_id": "p4", "answer_id": "a", "sentence": "s", "citation": "c", "human_label": "0"},
        {"pair_id": "p5", "answer_id": "a", "sentence": "s", "citation": "c", "human_label": "NO"},
    ]
    path = write_csv(tmp_path / "pairs.csv", pairs)
    report = compare_labels(path)
    where = {(i["where"], i["kind"]) for i in report["issues"]}
    assert where == {(f"{path}:4", "empty"), (f"{path}:5", "unreadable"), (f"{path}:6", "unknown_pair_id"),
                     (f"{path}:7", "duplicate"), (f"{path}:8", "duplicate")}
    ann = report["annotators"][0]
    assert ann["labelled"] == 2 and ann["missing_rows"] == 2 and ann["rows"] == 7  # p6, p7 not in the file
    assert report["n"] == 2 and report["excluded"] == 5
    # p1: human yes, auto aligned (tp); p5: human NO, auto aligned (fp)
    assert (report["overall"]["tp"], report["overall"]["fp"], report["overall"]["fn"]) == (1, 1, 0)


def test_semicolon_sheets_and_bom_are_read(tmp_path):
    key = write_csv(tmp_path / "pairs.key.csv", [{"pair_id": "p1", "auto_label": "aligned"}],
                    columns=("pair_id", "auto_label"))
    path = tmp_path / "pairs.csv"
    path.write_text("\ufeffpair_id;answer_id;sentence;citation;human_label\np1;a;He was, at last, born.;Q1, x: y;Yes\n",
                    encoding="utf-8")
    report = compare_labels(path, key=key)
    assert report["n"] == 1 and report["accuracy"] == 1.0 and report["cohen_kappa"] is None  # one class: undefined


# --- CLI ---------------------------------------------------------------------------------------------


@needs_nli
def test_cli_export_and_compare(scored_dir, tmp_path):
    out = tmp_path / "pairs.csv"
    result = run("annotate", "export", "--scored", str(scored_dir), "--out", str(out), "--n", "12", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["pairs"] == 12
    fill(out, tmp_path / "pairs.key.csv", out)
    result = run("annotate", "compare", "--pairs", str(out), "--out", str(tmp_path / "report.json"))
    assert result.exit_code == 0, result.output
    assert "Table 6" in result.output and "Cohen" in result.output and f"{out}:" in result.output
    saved = json.loads((tmp_path / "report.json").read_text())
    assert saved["n"] == 10 and saved["cohen_kappa"] == pytest.approx(11 / 21)
    assert "Human Avg." in (tmp_path / "report.md").read_text()
    again = run("annotate", "compare", "--pairs", str(out), "--json")
    assert again.exit_code == 0 and json.loads(again.output[again.output.index("{"):])["n"] == 10


def test_cli_bad_input_exits_2_with_an_error_line(tmp_path):
    empty = tmp_path / "not-an-eval"
    empty.mkdir()
    result = run("annotate", "export", "--scored", str(empty), "--out", str(tmp_path / "p.csv"))
    assert result.exit_code == 2 and "error:" in result.output and "answers_scored.jsonl" in result.output
    no_nli = tmp_path / "no-nli"
    no_nli.mkdir()
    (no_nli / "answers_scored.jsonl").write_text(json.dumps({"id": "a", "sentences": [{"position": 0, "clean_text": "x",
        "citations": [{"qid": "Q1", "prop": "p", "value": "v", "entailment": None, "entailed": None}]}]}) + "\n")
    result = run("annotate", "export", "--scored", str(no_nli), "--out", str(tmp_path / "p.csv"))
    assert result.exit_code == 2 and "--nli" in result.output
    lonely = write_csv(tmp_path / "lonely.csv", [{"pair_id": "p1", "human_label": "1"}])
    result = run("annotate", "compare", "--pairs", str(lonely))
    assert result.exit_code == 2 and "--key" in result.output
    key = write_csv(tmp_path / "k.csv", [{"pair_id": "p1", "auto_label": "aligned"}], columns=("pair_id", "auto_label"))
    unfilled = write_csv(tmp_path / "unfilled.csv", [{"pair_id": "p1", "human_label": ""}])
    result = run("annotate", "compare", "--pairs", str(unfilled), "--key", str(key))
    assert result.exit_code == 2 and f"{unfilled}:2: human_label is empty" in result.output
    assert "no usable human label" in result.output
    no_column = tmp_path / "no-column.csv"
    no_column.write_text("pair_id,label\np1,1\n")
    result = run("annotate", "compare", "--pairs", str(no_column), "--key", str(key))
    assert result.exit_code == 2 and "human_label" in result.output


def test_cli_error_goes_to_stderr_without_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "kalma_graph.cli.main", "annotate", "compare", "--pairs",
                           str(tmp_path / "missing.csv"), "--key", str(tmp_path / "missing.key.csv")],
                          capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert proc.returncode == 2
    assert "error:" in proc.stderr and "missing.key.csv" in proc.stderr and "Traceback" not in proc.stderr
