"""Fine-tune an NLI cross-encoder: a plain torch loop, deterministic and resumable.

    result = train_nli(TrainConfig(init=".../nli-minilm-l6-v1", output_dir="runs/nli"), rows)

- `init` is a local checkpoint (or hub id). If its `id2label` is already 3-way NLI, its head is kept
  and our labels are mapped onto it; otherwise (a bare encoder such as all-MiniLM-L6-v2) a new
  3-way head is created.
- Data order is a seeded permutation per epoch, so a given step always sees the same batch.
- Every `save_every` steps a checkpoint is written atomically under `output_dir/checkpoints/`:
  model weights (safetensors), optimizer, scheduler, RNG states (python, numpy, torch, cuda; as
  tensors and plain data, see `kalma_graph.models.checkpoints`), step and a fingerprint of the
  training rows. Resuming loads every file with `torch.load(weights_only=True)`: a checkpoint can
  carry no pickled code. Re-running with the same `output_dir` resumes from the latest
  one; a different training set or config is refused rather than silently mixed.
- `time_limit_s` stops cleanly (checkpoint + model) so a later run continues.
- The final model is written to `output_dir` as fp16 safetensors with its tokenizer and
  `train_metrics.json`; it loads offline with `load_nli(output_dir)`.
- GPU when present (`pick_device`): fp16 autocast with a gradient scaler; CPU otherwise (fp32).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, Sequence

import numpy as np

from kalma_graph.files import atomic_path, atomic_write_text
from kalma_graph.models.checkpoints import load_checkpoint, rng_state, set_rng_state
from kalma_graph.models.device import pick_device
from kalma_graph.models.finetune import FineTuneConfig, adamw_with_warmup, optimizer_step, refuse_other_run, seed_all
from kalma_graph.models.nli import resolve_labels

if TYPE_CHECKING:
    import torch
    from torch.optim.lr_scheduler import LRScheduler
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

LABELS = ("entailment", "neutral", "contradiction")
ProgressFn = Callable[[int, int, float], None]  # (step, total_steps, running loss)


@dataclass(kw_only=True)
class TrainConfig(FineTuneConfig):
    init: str
    keep_checkpoints: int = 2
    grad_clip: float = 1.0
    length_buckets: int = 50  # batches per length-sorted pool (less padding); 0 = plain shuffle
    notes: dict[str, Any] = field(default_factory=dict)  # provenance recorded with the model

    RESUMABLE_CHANGES: ClassVar[tuple[str, ...]] = FineTuneConfig.RESUMABLE_CHANGES + ("keep_checkpoints", "notes")


def rows_fingerprint(rows: Sequence[dict[str, Any]]) -> str:
    h = hashlib.sha256()
    for r in rows:
        h.update(f"{r['premise']}\x1f{r['hypothesis']}\x1f{r['label']}\n".encode("utf-8"))
    return h.hexdigest()


def mix_training_rows(
    parts: Mapping[str, Sequence[dict[str, Any]]],
    sizes: dict[str, int | None],
    *,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """A deterministic sample of each part (`sizes[name]` rows, None = all), concatenated and
    shuffled. Only premise / hypothesis / label / source are kept."""
    rng = random.Random(f"mix:{seed}")
    out: list[dict[str, Any]] = []
    for name in sorted(parts):
        rows = list(parts[name])
        k = sizes.get(name)
        if k is not None and k < len(rows):
            rows = rng.sample(rows, k)
        out.extend({"premise": r["premise"], "hypothesis": r["hypothesis"], "label": r["label"],
                    "source": r.get("source", name)} for r in rows)
    rng.shuffle(out)
    return out


def epoch_batches(n: int, lengths: Sequence[int], batch_size: int, seed: int, pool_batches: int) -> list[list[int]]:
    """The batches of one epoch: a seeded permutation cut into pools of `pool_batches` batches,
    each pool sorted by text length and cut into batches (so a batch holds pairs of similar length),
    then the batch order shuffled. Deterministic for a seed; every row appears exactly once."""
    import torch

    g = torch.Generator().manual_seed(seed)
    perm = torch.randperm(n, generator=g).tolist()
    if pool_batches <= 0:
        return [perm[i : i + batch_size] for i in range(0, n, batch_size)]
    pool = batch_size * pool_batches
    batches: list[list[int]] = []
    for start in range(0, n, pool):
        chunk = sorted(perm[start : start + pool], key=lambda i: lengths[i])
        batches.extend(chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size))
    order = torch.randperm(len(batches), generator=g).tolist()
    return [batches[i] for i in order]


# --- checkpoints --------------------------------------------------------------------------------


def _checkpoint_dirs(output_dir: Path) -> list[Path]:
    root = output_dir / "checkpoints"
    if not root.is_dir():
        return []
    done = [p for p in root.iterdir() if p.is_dir() and p.name.startswith("step-") and (p / "state.json").exists()]
    return sorted(done, key=lambda p: int(p.name.split("-")[1]))


def latest_checkpoint(output_dir: str | Path) -> Path | None:
    dirs = _checkpoint_dirs(Path(output_dir))
    return dirs[-1] if dirs else None


def _save_checkpoint(output_dir: Path, step: int, model: PreTrainedModel, optimizer: torch.optim.Optimizer,
                     scheduler: LRScheduler, scaler: torch.amp.GradScaler | None, state: dict[str, Any],
                     keep: int) -> Path:
    import torch

    root = output_dir / "checkpoints"
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"step-{step:07d}"
    tmp = root / f".tmp-step-{step:07d}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir()
    model.save_pretrained(tmp, safe_serialization=True)
    parts = {"optimizer.pt": optimizer.state_dict(), "scheduler.pt": scheduler.state_dict(), "rng.pt": rng_state()}
    if scaler is not None:
        parts["scaler.pt"] = scaler.state_dict()
    for name, value in parts.items():
        with atomic_path(tmp / name) as path:  # fsynced before state.json marks the checkpoint complete
            torch.save(value, path)
    atomic_write_text(tmp / "state.json", json.dumps(state, indent=1))  # written last: marks it complete
    if final.exists():
        shutil.rmtree(final)
    os.replace(tmp, final)
    for old in _checkpoint_dirs(output_dir)[:-keep] if keep > 0 else []:
        shutil.rmtree(old, ignore_errors=True)
    return final


# --- the loop -----------------------------------------------------------------------------------


def _load_model(init: str, max_length: int) -> tuple[Any, Any, dict[str, int], bool]:
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(init)
    config = AutoConfig.from_pretrained(init)
    try:
        labels = resolve_labels(config.id2label)
        reuse = set(labels) == set(LABELS)
    except ValueError:
        labels, reuse = (), False
    if reuse:
        model = AutoModelForSequenceClassification.from_pretrained(init, use_safetensors=True)
        label2id = {name: i for i, name in enumerate(labels)}
    else:
        label2id = {name: i for i, name in enumerate(LABELS)}
        model = AutoModelForSequenceClassification.from_pretrained(
            init, num_labels=3, id2label={i: n for n, i in label2id.items()}, label2id=label2id,
            ignore_mismatched_sizes=True, use_safetensors=True,
        )
    return model, tokenizer, label2id, not reuse


def _check_rows(rows: Sequence[dict[str, Any]]) -> None:
    if not rows:
        raise ValueError("no training rows")
    bad = sorted({str(r["label"]) for r in rows} - set(LABELS))
    if bad:
        raise ValueError(f"training rows must be 3-way NLI; found labels {bad}")


def _resumed_state(out_dir: Path, resume_from: Path | None, fingerprint: str, config: TrainConfig) -> dict | None:
    """The state of the checkpoint a run resumes from (None: none); one of another run is refused."""
    if resume_from is None:
        return None
    state = json.loads((resume_from / "state.json").read_text())
    refuse_other_run(out_dir, (state["fingerprint"], state["config"]), (fingerprint, config.identity()))
    return state


def _restore(resume_from: Path | None, state: dict | None, optimizer: torch.optim.Optimizer, scheduler: LRScheduler,
             scaler: torch.amp.GradScaler | None) -> tuple[int, list[dict[str, Any]], float]:
    """Optimizer, schedule, scaler and random state of the checkpoint resumed from; (step, loss history, seconds
    trained before), or a fresh start."""
    if resume_from is None or state is None:
        return 0, [], 0.0
    # weights_only=True: tensors and plain data only (kalma_graph.models.checkpoints)
    optimizer.load_state_dict(load_checkpoint(resume_from / "optimizer.pt"))
    scheduler.load_state_dict(load_checkpoint(resume_from / "scheduler.pt"))
    if scaler is not None and (resume_from / "scaler.pt").exists():
        scaler.load_state_dict(load_checkpoint(resume_from / "scaler.pt"))
    set_rng_state(load_checkpoint(resume_from / "rng.pt"))
    return int(state["step"]), list(state.get("history", [])), float(state.get("train_seconds", 0.0))


def _no_decay(name: str) -> bool:
    """Biases and norms: no weight decay."""
    return name.endswith(("bias", "LayerNorm.weight", "layer_norm.weight", "norm.weight"))


def _resumed_model(checkpoint: Path) -> PreTrainedModel:
    from transformers import AutoModelForSequenceClassification

    return AutoModelForSequenceClassification.from_pretrained(checkpoint, use_safetensors=True)


def _save_final(model: Any, tokenizer: PreTrainedTokenizerBase, label2id: dict[str, int], out_dir: Path) -> None:
    """The trained model as fp16 safetensors with its labels, and its tokenizer."""
    import torch

    final = model.to("cpu", dtype=torch.float16)
    final.config.id2label = {i: name for name, i in sorted(label2id.items(), key=lambda kv: kv[1])}
    final.config.label2id = dict(label2id)
    final.save_pretrained(out_dir, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)


def _heldout(out_dir: Path, config: TrainConfig, eval_rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The trained model's figures on the held-out rows (loaded back from what was saved)."""
    from kalma_graph.models.nli import load_nli
    from kalma_graph.nli.evaluate import eval_nli

    nli = load_nli(out_dir, device=config.device, cache=None, max_length=config.max_length)
    return eval_nli(nli, eval_rows)


class _Batches:
    """The row indices of each step's batch: length-bucketed batches drawn per epoch (`epoch_batches`), the
    current epoch's kept."""

    def __init__(self, rows: Sequence[dict[str, Any]], config: TrainConfig, steps_per_epoch: int) -> None:
        self.lengths = [len(r["premise"]) + len(r["hypothesis"]) for r in rows]
        self.config, self.steps_per_epoch = config, steps_per_epoch
        self.cache: dict[int, list[list[int]]] = {}

    def __call__(self, step: int) -> list[int]:
        epoch, within = divmod(step, self.steps_per_epoch)
        if epoch not in self.cache:
            self.cache.clear()
            self.cache[epoch] = epoch_batches(len(self.lengths), self.lengths, self.config.batch_size,
                                              self.config.seed * 1000 + epoch, self.config.length_buckets)
        return self.cache[epoch][within]


def _batch_loss(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, rows: Sequence[dict[str, Any]],
                labels: Sequence[int], idx: list[int], config: TrainConfig, device: str, use_amp: bool) -> torch.Tensor:
    """The cross-entropy of one batch (premise, hypothesis → label), under mixed precision on a GPU."""
    import torch

    enc = tokenizer([rows[i]["premise"] for i in idx], [rows[i]["hypothesis"] for i in idx], truncation=True,
                    max_length=config.max_length, padding=True, return_tensors="pt")
    enc = {k: v.to(device) for k, v in enc.items()}
    target = torch.tensor([labels[i] for i in idx], device=device)
    with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=use_amp):
        return torch.nn.functional.cross_entropy(model(**enc).logits.float(), target)


def train_nli(config: TrainConfig, rows: Sequence[dict[str, Any]], *, eval_rows: Sequence[dict[str, Any]] | None = None,
              progress: ProgressFn | None = None) -> dict[str, Any]:
    """Train (or resume training) and return a dict of what happened and held-out figures."""
    import torch

    _check_rows(rows)
    if config.threads:
        torch.set_num_threads(config.threads)
    device = pick_device(config.device)
    out_dir = Path(config.output_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    fingerprint = rows_fingerprint(rows)
    resume_from = latest_checkpoint(out_dir)
    resumed_state = _resumed_state(out_dir, resume_from, fingerprint, config)
    seed_all(config.seed)
    model, tokenizer, label2id, new_head = _load_model(config.init, config.max_length)
    if resume_from is not None:
        model = _resumed_model(resume_from)
    model.to(device.device, dtype=torch.float32)
    model.train()

    n = len(rows)
    steps_per_epoch = math.ceil(n / config.batch_size)
    total_steps = max(1, math.ceil(config.epochs * steps_per_epoch))
    if config.max_steps is not None:
        total_steps = min(total_steps, config.max_steps)
    optimizer, scheduler = adamw_with_warmup(model, lr=config.lr, weight_decay=config.weight_decay,
                                             warmup=config.warmup, total_steps=total_steps, no_decay=_no_decay)
    use_amp = device.is_cuda
    scaler = torch.amp.GradScaler("cuda") if use_amp else None
    step, history, elapsed_before = _restore(resume_from, resumed_state, optimizer, scheduler, scaler)
    labels_t = [label2id[r["label"]] for r in rows]
    batch_indices = _Batches(rows, config, steps_per_epoch)

    def state(stopped: str | None) -> dict[str, Any]:
        return {"step": step, "total_steps": total_steps, "fingerprint": fingerprint, "config": config.identity(),
                "history": history, "train_seconds": elapsed_before + (time.perf_counter() - start), "stopped": stopped}

    start = time.perf_counter()
    running = None
    stopped: str | None = None
    window_loss: list[float] = []
    while step < total_steps:
        loss = _batch_loss(model, tokenizer, rows, labels_t, batch_indices(step), config, device.device, use_amp)
        value = optimizer_step(loss, model, optimizer, scheduler, scaler, config.grad_clip)
        step += 1
        running = value if running is None else 0.98 * running + 0.02 * value
        window_loss.append(value)
        if progress is not None:
            progress(step, total_steps, running)
        if step % 50 == 0 or step == total_steps:
            history.append({"step": step, "loss": round(float(np.mean(window_loss)), 4),
                            "lr": scheduler.get_last_lr()[0],
                            "seconds": round(elapsed_before + time.perf_counter() - start, 1)})
            window_loss = []
        timed_out = config.time_limit_s is not None and time.perf_counter() - start >= config.time_limit_s
        if step % config.save_every == 0 or step == total_steps or timed_out:
            _save_checkpoint(out_dir, step, model, optimizer, scheduler, scaler,
                             state("time_limit" if timed_out and step < total_steps else None), config.keep_checkpoints)
        if timed_out and step < total_steps:
            stopped = "time_limit"
            break
    seconds_now = time.perf_counter() - start
    train_seconds = elapsed_before + seconds_now
    _save_final(model, tokenizer, label2id, out_dir)
    resumed_step = int(resumed_state["step"]) if resumed_state else None
    result: dict[str, Any] = {
        "init": config.init, "new_head": new_head, "device": device.as_dict(), "rows": n, "fingerprint": fingerprint,
        "steps": step, "total_steps": total_steps,
        "pairs_seen": min(step * config.batch_size, int(total_steps * config.batch_size)),
        "epochs_done": round(step / steps_per_epoch, 3), "completed": step >= total_steps, "stopped": stopped,
        "resumed_from_step": resumed_step, "train_seconds": round(train_seconds, 1),
        "pairs_per_s": round((step - (resumed_step or 0)) * config.batch_size / seconds_now, 2)
        if seconds_now > 0 else None,
        "config": asdict(config), "history": history,
    }
    if eval_rows:
        result["heldout"] = _heldout(out_dir, config, eval_rows)
    (out_dir / "train_metrics.json").write_text(json.dumps(result, indent=1, default=str))
    return result
