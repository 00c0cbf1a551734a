#!/usr/bin/env bash
# Table 3's five settings on the rebuilt BioKaLMA questions (issue 33): the first 40 questions, Qwen2.5-Coder-1.5B
# Q4_K_M, 2 threads, seed 0 (~70 minutes on 2 cores; resumable: run it again). Answers and evaluations go to
# bench/results/table3_rebuilt/; docs/results.md is then written with
#   python bench/results_page.py bench/results/table3_rebuilt --previous bench/results/paper --out docs/results.md
set -euo pipefail
cd "$(dirname "$0")/.."
bench/t3v9_store.sh
export OMP_WAIT_POLICY=PASSIVE
M=qwen2.5-coder-1.5b-q4km
exec .venv/bin/kalma-graph experiment paper \
  --questions dumps/biokalma_built/biokalma_built.questions.jsonl \
  --gold dumps/biokalma_built/biokalma_built.gold.jsonl \
  --setting $M:attribute-first --setting $M:model --setting $M:posthoc --setting $M:verified --setting $M:grounded \
  --parts table3 --limit 40 --threads 2 --store embedded:runs/t3v9/store \
  --nli ../shared/models/nli-minilm-l6-v1 \
  --out bench/results/table3_rebuilt --results-md runs/t3v9/results.md "$@"
