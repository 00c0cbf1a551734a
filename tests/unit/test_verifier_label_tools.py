"""The labelled sets' tools in bench/ (issue 44): the export takes our own questions' ids but never a paper question
held out (index 500 and above), and the scoring reports the verifier's agreement with each annotation pass."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))
from verifier_eval_v2 import passes, verifier_kappa  # noqa: E402
from verifier_label_export_v2 import dev_only  # noqa: E402


@pytest.mark.parametrize("answer_id", ["complex_question_graph:3", "complex_question_graph:499", "natural19-01"])
def test_development_questions_are_exported(answer_id):
    assert dev_only(answer_id) == answer_id


@pytest.mark.parametrize("answer_id", ["complex_question_graph:500", "complex_question_graph:731",
                                       "complex_question_graph_x:12"])
def test_held_out_paper_questions_never_are(answer_id):
    with pytest.raises(AssertionError):
        dev_only(answer_id)


def test_the_verifiers_agreement_with_each_pass(tmp_path):
    rows = {"A": [("s1", 1), ("s2", 0), ("s3", 1), ("s4", 0)], "B": [("s1", 1), ("s2", 1), ("s3", 1), ("s4", 0)]}
    for name, labels in rows.items():
        (tmp_path / f"labels_{name}.csv").write_text(
            "item_id,citation,label\n" + "".join(f"{i},full,{v}\n{i},contradicted,0\n" for i, v in labels),
            encoding="utf-8")
    predicted = {(i, "full"): v for i, v in rows["A"]}  # the verifier says what pass A says
    agreement = verifier_kappa(predicted, *passes(tmp_path))
    assert agreement["full"]["A"] == 1.0
    assert agreement["full"]["B"] == 0.5  # 3 of 4 agree; chance agreement 0.5
    assert "contradicted" not in agreement  # no verdict given for it
