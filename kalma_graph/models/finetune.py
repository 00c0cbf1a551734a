"""What the two fine-tuning loops (`nli train`, `caqa train`) share: their settings, their rule for a directory
that already holds another run's checkpoint, and every step's seeding, optimizer, schedule and update.

Each loop's config subclasses `FineTuneConfig` and adds its own fields (its data, its start model)
or its own defaults. Every field is keyword-only, so a subclass may add required fields after these
defaulted ones.

    @dataclass(kw_only=True)
    class MyConfig(FineTuneConfig):
        init: str
        lr: float = 5e-5   # a default of its own

A run is identified by `identity()` (every setting that changes the result) and a fingerprint of
its training rows; a checkpoint of another identity in the same output directory is refused with
`DifferentRunError`, never silently deleted or mixed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from kalma_graph.errors import BadInputError

if TYPE_CHECKING:
    import torch
    from torch.optim.lr_scheduler import LambdaLR, LRScheduler


class DifferentRunError(BadInputError, RuntimeError):
    """The output directory holds checkpoints of a run with other rows or settings."""


@dataclass(kw_only=True)
class FineTuneConfig:
    output_dir: str
    epochs: float = 1.0
    batch_size: int = 16
    lr: float = 3e-5
    warmup: float = 0.06  # fraction of total steps
    weight_decay: float = 0.01
    max_length: int = 128  # tokens per pair
    seed: int = 0
    save_every: int = 200  # steps between checkpoints
    max_steps: int | None = None
    time_limit_s: float | None = None  # stop cleanly at a checkpoint; a re-run continues
    device: str | None = None  # None -> auto (CUDA when present)
    threads: int | None = None  # torch CPU threads

    # Fields that may change between a run and its resumption without changing the result.
    RESUMABLE_CHANGES: ClassVar[tuple[str, ...]] = ("time_limit_s", "threads", "save_every", "device")

    def identity(self) -> dict[str, Any]:
        """Every setting that changes the trained model (what a resumed run must match)."""
        d = asdict(self)
        for key in self.RESUMABLE_CHANGES:
            d.pop(key, None)
        return d


def refuse_other_run(out_dir: str | Path, stored: object, expected: object) -> None:
    """Raise `DifferentRunError` naming `out_dir` unless the stored run identity equals this run's."""
    if stored != expected:
        raise DifferentRunError(
            f"{out_dir} holds checkpoints of a different run (training rows or config differ); "
            "use another output directory or delete its checkpoints"
        )


# --- what both loops do at every step (torch imported by the caller's process already) -----------------------


def seed_all(seed: int) -> None:
    """Python's, numpy's and torch's generators, before a model is built (its new head is drawn from them)."""
    import random

    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def adamw_with_warmup(model: torch.nn.Module, *, lr: float, weight_decay: float, warmup: float, total_steps: int,
                      no_decay: Callable[[str], bool]) -> tuple[torch.optim.AdamW, LambdaLR]:
    """AdamW without weight decay on the parameters `no_decay` names (biases, norms), and a linear schedule that
    warms up over the first `warmup` share of `total_steps`."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    groups = [
        {"params": [p for name, p in model.named_parameters() if not no_decay(name)], "weight_decay": weight_decay},
        {"params": [p for name, p in model.named_parameters() if no_decay(name)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=lr)
    return optimizer, get_linear_schedule_with_warmup(optimizer, int(warmup * total_steps), total_steps)


def optimizer_step(loss: torch.Tensor, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
                   scheduler: LRScheduler, scaler: torch.amp.GradScaler | None, grad_clip: float) -> float:
    """One update: backward (scaled under mixed precision), gradients clipped to `grad_clip`, optimizer and
    schedule stepped. Returns the loss as a float."""
    import torch

    optimizer.zero_grad(set_to_none=True)
    if scaler is not None:
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        scaler.step(optimizer)
        scaler.update()
    else:
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        optimizer.step()
    scheduler.step()
    return float(loss.detach())
