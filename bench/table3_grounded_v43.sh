#!/usr/bin/env bash
# Table 3 (rebuilt questions) again with the grounded strategy of issue 43 (the plan from natural questions:
# topics, grouped sentences, [NA] for asked parts the graph lacks, relevant facts): the same first 40 questions,
# store and settings as bench/table3_rebuilt.sh, so its F1 reads against the committed 75.6. Resumable.
set -euo pipefail
cd "$(dirname "$0")/.."
bench/t3v9_store.sh
export OMP_WAIT_POLICY=PASSIVE
OUT=bench/results/table3_rebuilt_v43/grounded
mkdir -p "$OUT"
.venv/bin/kalma-graph answer --questions dumps/biokalma_built/biokalma_built.questions.jsonl --variant specific \
    --limit 40 --model qwen2.5-coder-1.5b-q4km --threads 2 --seed 0 --cite grounded --store embedded:runs/t3v9/store \
    --out "$OUT/answers.jsonl" --no-progress
.venv/bin/kalma-graph evaluate --answers "$OUT/answers.jsonl" --gold dumps/biokalma_built/biokalma_built.gold.jsonl \
    --nli ../shared/models/nli-minilm-l6-v1 --store embedded:runs/t3v9/store --out "$OUT/evaluation" --no-plots
