"""Evaluation functions (kalma_graph.nli.evaluate) and `nli eval`, on the real shared model."""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import pytest

from kalma_graph.nli.evaluate import best_threshold
from tests.conftest import NLI_MODEL as SHARED_MODEL

REPO = Path(__file__).resolve().parents[2]

NLI_ROWS = [
    {"source": "toy", "premise": "A man is playing a guitar on stage.", "hypothesis": "A man is playing an instrument.",
     "label": "entailment"},
    {"source": "toy", "premise": "A man is playing a guitar on stage.", "hypothesis": "A woman is sleeping in her bed.",
     "label": "contradiction"},
    {"source": "toy", "premise": "A man is playing a guitar on stage.", "hypothesis": "The man is a famous musician.",
     "label": "neutral"},
    {"source": "toy2", "premise": "The cat sat on the mat.", "hypothesis": "The cat is sitting on the mat.",
     "label": "entailment"},
    {"source": "toy2", "premise": "The cat sat on the mat.", "hypothesis": "No animal is on the mat.",
     "label": "contradiction"},
    {"source": "toy2", "premise": "Stephen Crane was born on November 1, 1871, in Newark.",
     "hypothesis": "place of birth: Newark", "label": "entailment"},
]
ATTR_ROWS = [  # AttributionBench format
    {"id": f"r{i}", "source": "toy", "question": "q", "claim": claim, "evidence": evidence, "label": label}
    for i, (claim, evidence, label) in enumerate([
        ("Stephen Crane was born in Newark.",
         "Stephen Crane was born on November 1, 1871, in Newark. He wrote novels.", "attributable"),
        ("Stephen Crane was born in Boston.", "Stephen Crane was born on November 1, 1871, in Newark. He wrote novels.",
         "not attributable"),
        ("A man is playing an instrument.", "Title: Concert\n\nA man is playing a guitar on stage.", "attributable"),
        ("A woman is asleep.", "Title: Concert\n\nA man is playing a guitar on stage.", "not attributable"),
        ("The cat is on the mat.", "The cat sat on the mat. It was a sunny day.", "attributable"),
        ("No animal is on the mat.", "The cat sat on the mat. It was a sunny day.", "not attributable"),
        ("Hertwig was employed by the University of Jena.",
         "Hertwig served as a professor at the University of Jena.", "attributable"),
        ("Hertwig was employed by the University of Vienna.",
         "Hertwig served as a professor at the University of Jena.", "not attributable"),
        ("Milira sings Go Outside in the Rain.",
         "\"Go Outside in the Rain\" is a R&B song by Milira released in 1990.", "attributable"),
        ("Prince sings Go Outside in the Rain.", "\"Go Outside in the Rain\" is a R&B song by Milira released in 1990.",
         "not attributable"),
    ])
]


@pytest.mark.parametrize("scores, labels, expected", [
    ([0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1], 0.5),
    ([0.1, 0.2, 0.3, 0.9], [0, 0, 0, 1], 0.5),  # any t in (0.3, 0.9] is perfect: 0.5 is kept
    ([0.1, 0.2, 0.6, 0.9], [0, 0, 0, 1], 0.75),
    ([0.9, 0.8], [1, 1], 0.5),  # everything positive: the tie closest to 0.5 wins
    ([0.9, 0.8], [0, 0], pytest.approx(0.9, abs=1e-6)),  # just above the top score
])
def test_best_threshold(scores, labels, expected):
    assert best_threshold(scores, labels) == expected


def test_macro_f1_is_scikit_learns_where_every_label_is_defined():
    from kalma_graph.nli.evaluate import THREE_WAY, label_f1, macro_f1

    metrics = pytest.importorskip("sklearn.metrics")
    gold = ["entailment", "neutral", "contradiction", "neutral", "entailment", "neutral"]
    pred = ["entailment", "entailment", "neutral", "neutral", "entailment", "entailment"]
    # contradiction is gold once and never predicted: F1 0.0, as scikit-learn has it
    expected = metrics.f1_score(gold, pred, labels=list(THREE_WAY), average="macro", zero_division=0)
    assert macro_f1(gold, pred, THREE_WAY) == pytest.approx(expected)
    assert label_f1(gold, pred, THREE_WAY)["contradiction"] == 0.0


def test_macro_f1_leaves_undefined_labels_out():
    from kalma_graph.nli.evaluate import THREE_WAY, label_f1, macro_f1

    gold, pred = ["entailment", "neutral"], ["entailment", "entailment"]
    # contradiction: no gold row, never predicted (0/0), so the mean is over the other two only
    assert (label_f1(gold, pred, THREE_WAY)
            == {"entailment": pytest.approx(2 / 3), "neutral": 0.0, "contradiction": None})
    assert macro_f1(gold, pred, THREE_WAY) == pytest.approx(1 / 3)
    assert macro_f1([], [], THREE_WAY) is None


@pytest.fixture(scope="module")
def nli():
    if not (SHARED_MODEL / "config.json").exists():
        pytest.skip(f"shared NLI model not found at {SHARED_MODEL}")
    from kalma_graph.models.nli import load_nli

    return load_nli(SHARED_MODEL, device="cpu", cache=None, max_length=128)


def test_eval_nli(nli):
    from kalma_graph.nli.evaluate import eval_nli

    r = eval_nli(nli, NLI_ROWS)
    assert r["n"] == 6 and r["mode"] == "3-way"
    assert r["accuracy"] == 1.0 and r["macro_f1"] == 1.0
    assert r["by_source"] == {"toy": {"n": 3, "accuracy": 1.0}, "toy2": {"n": 3, "accuracy": 1.0}}
    assert sum(sum(v.values()) for v in r["confusion"].values()) == 6
    binary = eval_nli(nli, [dict(row, label="entailment" if row["label"] == "entailment" else "not_entailment")
                            for row in NLI_ROWS])
    assert binary["mode"] == "2-way" and binary["accuracy"] == 1.0


def test_eval_attribution(nli, tmp_path):
    from kalma_graph.nli.data import load_attribution
    from kalma_graph.nli.evaluate import eval_attribution

    path = tmp_path / "attr.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ATTR_ROWS))
    rows = load_attribution(path)
    cv = eval_attribution(nli, rows, folds=5)
    assert cv["n"] == 10 and cv["roc_auc"] > 0.8
    assert len(cv["calibration"]["thresholds"]) == 5 and 0 <= cv["accuracy"] <= 1
    dev = eval_attribution(nli, rows, dev_ids={f"r{i}" for i in range(6)})
    assert dev["calibration"]["n_dev"] == 6 and dev["calibration"]["n_test"] == 4
    assert dev["roc_auc"] == cv["roc_auc"]  # same scores; only the calibration differs


def test_cli_eval_files(tmp_path):
    if not (SHARED_MODEL / "config.json").exists():
        pytest.skip("shared NLI model not found")
    from click.testing import CliRunner

    from kalma_graph.cli.nli_cmd import nli as nli_group

    nli_file, attr_file = tmp_path / "nli.jsonl", tmp_path / "attr.jsonl"
    nli_file.write_text("\n".join(json.dumps(r) for r in NLI_ROWS))
    attr_file.write_text("\n".join(json.dumps(r) for r in ATTR_ROWS))
    out = tmp_path / "report.json"
    result = CliRunner().invoke(nli_group, [
        "eval", "--nli", str(SHARED_MODEL), "--nli-file", str(nli_file), "--source", "toy2",
        "--attribution-file", str(attr_file), "--folds", "2", "--device", "cpu", "--max-length", "128",
        "--cache", str(tmp_path / "cache.sqlite"), "--json-out", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["nli"][str(nli_file)]["n"] == 3 and report["nli"][str(nli_file)]["accuracy"] == 1.0
    assert report["attribution"][str(attr_file)]["n"] == 10
    assert report["model"]["cache"] == str(tmp_path / "cache.sqlite")
    assert "nli eval" in result.output
    # --json means what it means in every command: the result on stdout, and nothing else there.
    printed = CliRunner().invoke(nli_group, [
        "eval", "--nli", str(SHARED_MODEL), "--nli-file", str(nli_file), "--device", "cpu", "--max-length", "128",
        "--cache", str(tmp_path / "cache.sqlite"), "--json"])
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.stdout)["nli"][str(nli_file)]["accuracy"] == 1.0
    bad = CliRunner().invoke(nli_group, ["eval", "--nli", str(SHARED_MODEL)])
    assert bad.exit_code != 0 and "give at least one" in bad.output
