#!/usr/bin/env bash
# The paper's own questions (issue 43): answer the development set (bench/results/question_facts/dev, the
# BioKaLMA release's complex questions with index < 500; 500 and above are held out and never run here) with
# each strategy named (default: grounded and attribute-first) on the 1.5B model, 2 threads, seed 0, then score
# each answers file against the two-pass labels and evaluate it (verifier, MiniLM NLI). Resumable: re-running skips answered questions.
#
#   bench/paper_questions.sh [STRATEGY ...]      # answers and scores under bench/results/question_facts/dev/runs/
set -euo pipefail
cd "$(dirname "$0")/.."
KG=.venv/bin/kalma-graph
DEV=bench/results/question_facts/dev
strategies=("$@")
[ ${#strategies[@]} -gt 0 ] || strategies=(grounded attribute-first)
.venv/bin/python bench/question_facts.py questions "$DEV" >/dev/null
for cite in "${strategies[@]}"; do
  out="$DEV/runs/$cite"
  mkdir -p "$out"
  $KG answer --questions "$DEV/questions.jsonl" --variant specific --model qwen2.5-coder-1.5b-q4km \
      --threads 2 --seed 0 --cite "$cite" --out "$out/answers.jsonl" --no-progress
  .venv/bin/python bench/question_facts.py score "$DEV" --answers "$out/answers.jsonl" --out "$out/score.json"
  # the fully-supported share (verifier) and the MiniLM NLI alignment, a checker that placed nothing
  $KG evaluate --answers "$out/answers.jsonl" --nli ../shared/models/nli-minilm-l6-v1 --out "$out/evaluation" --no-plots
done
