#!/usr/bin/env bash
# Table 5 / Figure 4 (conscious incompetence: 0-3 minimum-set triples withheld, [NA] quality) on the rebuilt
# questions with the grounded strategy of issue 43 beside attribute-first: the first N (default 10) questions,
# the store and settings of bench/table3_rebuilt.sh. Resumable: run it again.
set -euo pipefail
exec "$(dirname "$0")/paper_part_v43.sh" table5 conscious_v43 "${1:-10}"
