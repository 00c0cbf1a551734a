"""The full training run behind `models/nli-kalma-v1` (CPU, one thread, at most an hour).

    python bench/nli_train_full.py --out runs/nli-full [--threads 1] [--time-limit 4800]

From the shared baseline checkpoint (`../shared/models/nli-minilm-l6-v1`), 700 steps of batch 16
(11,200 pairs, lr 3e-5, linear decay, max length 128, seed 0) drawn from a mix of: all KG pairs of the
train entities (BioKaLMA simple_question_graph.json, 12 per entity), all MNLI and ANLI rows outside
our evaluation portions, and samples of SNLI (3,000), SICK (1,000) and ConjNLI (500): 24,796 rows, so
the 700 steps see a random 45% of them. The step count is sized for one shared CPU core in an hour.
Re-running with the same --out resumes from the latest checkpoint. The held-out portions are written
to <out>/data/ for `bench/nli_eval_report.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from kalma_graph.nli.data import write_jsonl  # noqa: E402
from kalma_graph.nli.kg_pairs import records_from_biokalma  # noqa: E402
from kalma_graph.nli.recipe import build_datasets  # noqa: E402
from kalma_graph.nli.train import TrainConfig, train_nli  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SIZES = {"kg": None, "mnli": None, "anli": None, "snli": 3000, "sick": 1000, "conjnli": 500}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(REPO / "runs" / "nli-full"))
    ap.add_argument("--init", default=str(SHARED / "models" / "nli-minilm-l6-v1"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=3600.0)
    ap.add_argument("--max-steps", type=int, default=700)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-5)
    args = ap.parse_args()

    t0 = time.time()
    data = build_datasets(
        nli_file=SHARED / "data" / "nli" / "_derived" / "nli_pairs.jsonl",
        kg_records=records_from_biokalma(SHARED / "data" / "biokalma" / "dataset" / "simple_question_graph.json"),
        sizes=SIZES,
        seed=0,
    )
    out = Path(args.out)
    for name in ("train", "mnli_dev", "anli_dev", "kg_dev", "kg_test"):
        write_jsonl(out / "data" / f"{name}.jsonl", data[name])
    print(json.dumps(data["counts"]), f"data in {time.time() - t0:.0f}s", flush=True)

    config = TrainConfig(
        init=args.init, output_dir=str(out / "model"), epochs=1.0, batch_size=args.batch_size, lr=args.lr,
        max_length=128, seed=0, save_every=100, max_steps=args.max_steps, time_limit_s=args.time_limit,
        threads=args.threads, notes={"recipe": "bench/nli_train_full.py", "sizes": SIZES},
    )

    def progress(step: int, total: int, loss: float) -> None:
        if step % 20 == 0 or step == total:
            print(f"step {step}/{total} loss {loss:.4f} {time.time() - t0:.0f}s", flush=True)

    result = train_nli(config, data["train"], progress=progress)
    result.pop("history", None)
    print(json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
