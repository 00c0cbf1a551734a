"""The settings both fine-tuning loops share, and their rule for another run's checkpoint."""

import pytest

from kalma_graph.caqa.train import CAQATrainConfig
from kalma_graph.models.finetune import DifferentRunError, FineTuneConfig, refuse_other_run
from kalma_graph.nli.train import TrainConfig


def test_each_loop_keeps_its_own_defaults_over_the_shared_ones():
    nli = TrainConfig(init="m", output_dir="o")
    caqa = CAQATrainConfig(samples="s", output_dir="o", init="m")
    assert (nli.lr, nli.max_length) == (3e-5, 128)
    assert (caqa.lr, caqa.max_length) == (5e-5, 192)
    assert isinstance(nli, FineTuneConfig) and isinstance(caqa, FineTuneConfig)
    assert nli.batch_size == caqa.batch_size == 16


def test_settings_are_keyword_only():
    with pytest.raises(TypeError):
        TrainConfig("m", "o")  # type: ignore[misc]


def test_identity_ignores_what_a_resumed_run_may_change_and_nothing_else():
    base = CAQATrainConfig(samples="s", output_dir="o", init="m")
    resumed = CAQATrainConfig(samples="s", output_dir="o", init="m", time_limit_s=5, threads=1, save_every=7,
                              device="cpu")
    assert base.identity() == resumed.identity()
    assert base.identity() != CAQATrainConfig(samples="s", output_dir="o", init="m", lr=1e-3).identity()
    nli = TrainConfig(init="m", output_dir="o")
    assert nli.identity() == TrainConfig(init="m", output_dir="o", keep_checkpoints=9, notes={"a": 1}).identity()
    assert "grad_clip" in nli.identity() and "notes" not in nli.identity()


def test_another_run_is_refused_naming_the_directory():
    refuse_other_run("runs/x", ("fp", {"lr": 1}), ("fp", {"lr": 1}))
    with pytest.raises(DifferentRunError, match="runs/x holds checkpoints of a different run"):
        refuse_other_run("runs/x", ("fp", {"lr": 1}), ("fp", {"lr": 2}))
