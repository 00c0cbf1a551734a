#!/usr/bin/env bash
# The main job on the embedded default store (no server): set up, load the bundled real samples
# (Wikidata JSON, BioKaLMA records, Freebase N-Triples), print counts and one entity's subgraph.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
KG=.venv/bin/kalma-graph
$KG ingest dumps/wikidata_sample.jsonl.gz dumps/biokalma_records.jsonl.gz dumps/freebase_sample.nt.gz "$@"
$KG stats
$KG show Q206534 --limit 12
