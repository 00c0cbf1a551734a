"""Training checkpoints load with `torch.load(weights_only=True)` (kalma_graph.models.checkpoints): the
files the NLI trainer writes hold only tensors and plain data, RNG states survive the round trip, and
a checkpoint that needs the full unpickler is refused with the file named."""

from __future__ import annotations

import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from kalma_graph.models.checkpoints import CheckpointError, load_checkpoint, rng_state, set_rng_state  # noqa: E402


def _draws() -> tuple:
    return random.random(), float(np.random.rand()), float(torch.rand(1))


def test_rng_state_round_trips_through_a_weights_only_load(tmp_path):
    random.seed(1)
    np.random.seed(2)
    torch.manual_seed(3)
    _draws()
    torch.save({"rng": rng_state()}, tmp_path / "rng.pt")
    expected = [_draws() for _ in range(3)]
    random.seed(99)
    np.random.seed(99)
    torch.manual_seed(99)
    set_rng_state(load_checkpoint(tmp_path / "rng.pt")["rng"])
    assert [_draws() for _ in range(3)] == expected


def test_a_checkpoint_needing_the_full_unpickler_is_refused(tmp_path):
    old = tmp_path / "rng.pt"
    torch.save({"numpy": np.random.get_state()}, old)  # an ndarray: what the trainers used to write
    with pytest.raises(CheckpointError, match=rf"{old}: refused by torch.load\(weights_only=True\)"):
        load_checkpoint(old)


def test_nli_trainer_checkpoint_loads_with_weights_only(tmp_path):
    """The files `_save_checkpoint` writes (after a real optimizer and scheduler step) load with
    weights_only=True, and resume the same state."""
    from transformers import BertConfig, BertForSequenceClassification, get_linear_schedule_with_warmup

    from kalma_graph.nli.train import _save_checkpoint, latest_checkpoint

    torch.manual_seed(0)
    config = BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, num_labels=3)
    model = BertForSequenceClassification(config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = get_linear_schedule_with_warmup(optimizer, 1, 10)
    scaler = torch.amp.GradScaler("cpu")
    model(input_ids=torch.tensor([[1, 2, 3]]), labels=torch.tensor([0])).loss.backward()
    optimizer.step()
    scheduler.step()
    state = {"step": 1, "fingerprint": "f", "config": {}, "history": []}
    saved = _save_checkpoint(tmp_path, 1, model, optimizer, scheduler, scaler, state, keep=2)
    assert saved == latest_checkpoint(tmp_path)
    assert sorted(p.name for p in saved.iterdir() if p.suffix == ".pt") == [
        "optimizer.pt", "rng.pt", "scaler.pt", "scheduler.pt"]
    expected_draws = _draws()
    loaded = {p.name: torch.load(p, weights_only=True) for p in saved.glob("*.pt")}  # no exception: plain data
    fresh = torch.optim.AdamW(model.parameters(), lr=1e-3)
    fresh.load_state_dict(loaded["optimizer.pt"])
    assert fresh.state_dict()["state"][0]["step"] == optimizer.state_dict()["state"][0]["step"]
    assert loaded["scheduler.pt"]["last_epoch"] == 1
    set_rng_state(loaded["rng.pt"])
    assert _draws() == expected_draws
    assert not list(saved.glob(".*"))  # no temporary files left in a finished checkpoint
