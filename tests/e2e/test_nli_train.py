"""Training (kalma_graph.nli.train) and the `nli` CLI on a small slice, from the shared model.

Slow: they train for real on the CPU (about a minute each on 2 cores).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import pytest

from tests.conftest import NLI_MODEL as SHARED_MODEL

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
BIOKALMA = SHARED / "data" / "biokalma" / "dataset" / "simple_question_graph.json"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (SHARED_MODEL / "config.json").exists() or not BIOKALMA.exists(),
                       reason="shared model or BioKaLMA data not found beside the checkout"),
]


def _tiny_rows():
    from kalma_graph.nli.kg_pairs import generate_kg_pairs, records_from_biokalma

    pairs = generate_kg_pairs(records_from_biokalma(BIOKALMA)[:6], per_entity=6, seed=0)
    return [{"premise": p["premise"], "hypothesis": p["hypothesis"], "label": p["label"]} for p in pairs][:24]


def _tiny_model(path: Path) -> Path:
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, num_labels=3, id2label=labels, label2id={v: k for k, v in labels.items()})
    BertForSequenceClassification(config).save_pretrained(path)
    AutoTokenizer.from_pretrained(SHARED_MODEL).save_pretrained(path)
    return path


def test_resume_gives_the_same_model_as_an_uninterrupted_run(tmp_path):
    torch = pytest.importorskip("torch")
    from safetensors.torch import load_file

    from kalma_graph.nli.train import TrainConfig, latest_checkpoint, train_nli

    rows = _tiny_rows()
    init = _tiny_model(tmp_path / "tiny")  # resumption is about state, not quality: a tiny random BERT
    # a large learning rate, so that a step lost or replayed on resumption would show
    common = dict(init=str(init), batch_size=4, max_length=64, lr=1e-2, seed=3, save_every=3, device="cpu")
    straight = train_nli(TrainConfig(output_dir=str(tmp_path / "a"), **common), rows)
    assert straight["completed"] and straight["steps"] == 6

    # stop after the first step (time limit), then re-run the same command: it resumes
    first = train_nli(TrainConfig(output_dir=str(tmp_path / "b"), time_limit_s=1e-9, **common), rows)
    assert first["stopped"] == "time_limit" and first["steps"] == 1 and not first["completed"]
    assert latest_checkpoint(tmp_path / "b").name == "step-0000001"
    for part in latest_checkpoint(tmp_path / "b").glob("*.pt"):  # what resuming loads: plain data only
        torch.load(part, weights_only=True)
    second = train_nli(TrainConfig(output_dir=str(tmp_path / "b"), **common), rows)
    assert second["resumed_from_step"] == 1 and second["completed"] and second["steps"] == 6

    # full-precision weights after the last step: identical
    a = load_file(latest_checkpoint(tmp_path / "a") / "model.safetensors")
    b = load_file(latest_checkpoint(tmp_path / "b") / "model.safetensors")
    start = load_file(init / "model.safetensors")
    assert a.keys() == b.keys()
    moved = max(float((a[k].float() - start[k].float()).abs().max()) for k in a if k in start)
    assert moved > 1e-2  # training did change the weights
    for key in a:
        torch.testing.assert_close(a[key], b[key], atol=1e-6, rtol=0)
    final = load_file(tmp_path / "b" / "model.safetensors")
    assert all(t.dtype == torch.float16 for t in final.values())  # the saved model is fp16
    with open(tmp_path / "b" / "config.json") as fh:
        assert json.load(fh)["id2label"] == {"0": "entailment", "1": "neutral", "2": "contradiction"}
    assert len(list((tmp_path / "b" / "checkpoints").iterdir())) <= 2  # keep_checkpoints

    # a different training set in the same directory is refused, not mixed
    with pytest.raises(RuntimeError, match="different run"):
        train_nli(TrainConfig(output_dir=str(tmp_path / "b"), **common), rows[:-1])


def test_cli_train_small_slice_beats_chance_and_the_start(tmp_path):
    from click.testing import CliRunner

    from kalma_graph.cli.nli_cmd import nli
    from kalma_graph.models.nli import load_nli
    from kalma_graph.nli.evaluate import eval_nli
    from kalma_graph.nli.kg_pairs import kg_pairs_by_split, records_from_biokalma
    from kalma_graph.nli.train import mix_training_rows

    out = tmp_path / "model"
    result = CliRunner().invoke(nli, [
        "train", "--init", str(SHARED_MODEL), "--out", str(out), "--kg-records", str(BIOKALMA),
        "--size", "kg=400", "--batch-size", "16", "--max-length", "128", "--save-every", "10",
        "--device", "cpu", "--json-out", str(tmp_path / "train.json"),
    ])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "train.json").read_text())
    assert report["completed"] and report["steps"] == 25 and report["data"]["train_by_part"] == {"kg": 400}
    trained = report["heldout"]["accuracy"]
    assert report["heldout"]["n"] == 300

    # the same held-out slice (pairs of test entities, never trained on) scored with the start model
    split = kg_pairs_by_split(records_from_biokalma(BIOKALMA), seed=0)
    heldout = mix_training_rows({"kg": split["test"]}, {"kg": 300}, seed=0)
    train_entities = {p["entity"] for p in split["train"]}
    assert not train_entities & {p["entity"] for p in split["test"]}
    start = eval_nli(load_nli(SHARED_MODEL, device="cpu", cache=None, max_length=128), heldout)["accuracy"]
    assert trained > 0.5  # chance is 1/3
    assert trained > start + 0.02

    # and the eval command reads the model back offline
    pairs = tmp_path / "kg_test.jsonl"
    pairs.write_text("\n".join(json.dumps(p) for p in split["test"][:60]))
    result = CliRunner().invoke(nli, ["eval", "--nli", str(out), "--kg-pairs", str(pairs), "--cache", "none",
                                      "--device", "cpu", "--json-out", str(tmp_path / "eval.json")])
    assert result.exit_code == 0, result.output
    ev = json.loads((tmp_path / "eval.json").read_text())
    assert ev["kg"][str(pairs)]["n"] == 60 and ev["model"]["labels"] == ["entailment", "neutral", "contradiction"]
