#!/usr/bin/env bash
# Table 5 / Figure 4 (conscious incompetence: 0-3 minimum-set triples withheld, [NA] quality) on the rebuilt
# questions with the grounded strategy of issue 43 beside attribute-first: the first N (default 10) questions,
# the store and settings of bench/table3_rebuilt.sh. Resumable: run it again.
set -euo pipefail
cd "$(dirname "$0")/.."
bench/t3v9_store.sh
N=${1:-10}
M=qwen2.5-coder-1.5b-q4km
export OMP_WAIT_POLICY=PASSIVE
for cite in ${CITES:-grounded attribute-first}; do
  .venv/bin/kalma-graph experiment paper --questions dumps/biokalma_built/biokalma_built.questions.jsonl \
      --gold dumps/biokalma_built/biokalma_built.gold.jsonl --setting "$M:$cite" --parts table5 --limit "$N" \
      --threads 2 --store embedded:runs/t3v9/store --nli ../shared/models/nli-minilm-l6-v1 \
      --out "bench/results/conscious_v43/$cite" --results-md "runs/conscious_v43_$cite.md" --no-plots
done
