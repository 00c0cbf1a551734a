#!/usr/bin/env bash
# One part of `kalma-graph experiment paper` on the rebuilt BioKaLMA questions with this round's grounded beside
# attribute-first (issue 43): the first N questions, the store and settings of bench/table3_rebuilt.sh, results under
# bench/results/OUT/<strategy>. Resumable: run it again. Called by bench/conscious_v43.sh and bench/table7_v43.sh.
#
#   bench/paper_part_v43.sh PART OUT N        # CITES="grounded" to run one strategy
set -euo pipefail
cd "$(dirname "$0")/.."
PART=$1 OUT=$2 N=$3
bench/t3v9_store.sh
M=qwen2.5-coder-1.5b-q4km
export OMP_WAIT_POLICY=PASSIVE
for cite in ${CITES:-grounded attribute-first}; do
  .venv/bin/kalma-graph experiment paper --questions dumps/biokalma_built/biokalma_built.questions.jsonl \
      --gold dumps/biokalma_built/biokalma_built.gold.jsonl --setting "$M:$cite" --parts "$PART" --limit "$N" \
      --threads 2 --store embedded:runs/t3v9/store --nli ../shared/models/nli-minilm-l6-v1 \
      --out "bench/results/$OUT/$cite" --results-md "runs/${OUT}_$cite.md" --no-plots
done
