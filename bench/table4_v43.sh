#!/usr/bin/env bash
# Table 4 (G-Eval: coherence, consistency, fluency, relevance) on the rebuilt Table 3 questions, with the 1.5B
# model as judge (issue 43): this round's grounded answers (bench/results/table3_rebuilt_v43/grounded) beside
# attribute-first's (bench/results/table3_rebuilt/table3/…attribute-first), a seeded sample of 20 answers of each, seed 0.
# About 27 minutes per strategy (20 s a judgement) on 2 cores. Resumable: the judge cache lives in each output folder; run it again.
set -euo pipefail
cd "$(dirname "$0")/.."
bench/t3v9_store.sh
export OMP_WAIT_POLICY=PASSIVE
M=qwen2.5-coder-1.5b-q4km
declare -A ANSWERS=(
  [grounded]=bench/results/table3_rebuilt_v43/grounded/answers.jsonl
  [attribute-first]=bench/results/table3_rebuilt/table3/${M}__attribute-first/answers.jsonl
)
for cite in ${CITES:-grounded attribute-first}; do
  .venv/bin/kalma-graph evaluate --answers "${ANSWERS[$cite]}" --gold dumps/biokalma_built/biokalma_built.gold.jsonl \
      --store embedded:runs/t3v9/store --judge "$M" --judge-threads 2 --geval-sample 20 --seed 0 \
      --out "bench/results/table4_v43/$cite" --no-plots
done
