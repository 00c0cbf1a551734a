#!/usr/bin/env bash
# Table 7 / Figure 5's companion (general vs specific questions) on the rebuilt BioKaLMA questions with this
# round's grounded beside attribute-first: the first N (default 20) questions, each asked both ways, the store
# and settings of bench/table3_rebuilt.sh. Resumable: run it again.
set -euo pipefail
cd "$(dirname "$0")/.."
bench/t3v9_store.sh
N=${1:-20}
M=qwen2.5-coder-1.5b-q4km
export OMP_WAIT_POLICY=PASSIVE
for cite in ${CITES:-grounded attribute-first}; do
  .venv/bin/kalma-graph experiment paper --questions dumps/biokalma_built/biokalma_built.questions.jsonl \
      --gold dumps/biokalma_built/biokalma_built.gold.jsonl --setting "$M:$cite" --parts table7 --limit "$N" \
      --threads 2 --store embedded:runs/t3v9/store --nli ../shared/models/nli-minilm-l6-v1 \
      --out "bench/results/table7_v43/$cite" --results-md "runs/table7_v43_$cite.md" --no-plots
done
