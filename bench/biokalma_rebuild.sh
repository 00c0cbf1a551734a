#!/usr/bin/env bash
# The issue-33 rebuild of the bundled BioKaLMA dataset: 200 entries, resumable across sessions (re-run this script
# to go on; ~60 s per entry on 2 cores). Progress is written to bench/results/biokalma_rebuild/ (commit it); the
# graph is the bundled dumps, ingested once into runs/bk200/store (deterministic, seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/results/biokalma_rebuild
mkdir -p "$out" runs/bk200
if [ ! -e runs/bk200/store ]; then
  .venv/bin/kalma-graph ingest --store embedded:runs/bk200/store dumps/wikidata_sample.jsonl.gz dumps/biokalma_records.jsonl.gz
fi
OMP_WAIT_POLICY=PASSIVE exec .venv/bin/kalma-graph build biokalma --store embedded:runs/bk200/store \
    --out "$out/biokalma_built.jsonl" --limit 200 --reserve 50 --seed 0 --max-candidates 12 \
    --threads 2 --model qwen2.5-coder-1.5b-q4km --nli ../shared/models/nli-minilm-l6-v1 --no-progress "$@"
