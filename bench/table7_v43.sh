#!/usr/bin/env bash
# Table 7 / Figure 5's companion (general vs specific questions) on the rebuilt BioKaLMA questions with this
# round's grounded beside attribute-first: the first N (default 20) questions, each asked both ways, the store
# and settings of bench/table3_rebuilt.sh. Resumable: run it again.
set -euo pipefail
exec "$(dirname "$0")/paper_part_v43.sh" table7 table7_v43 "${1:-20}"
