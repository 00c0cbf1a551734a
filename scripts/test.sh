#!/usr/bin/env bash
# Run the test suite: sets up .venv if needed, provisions Neo4j 5.26 from Maven Central (verified
# jars, cached in ~/.m2 and the user data dir) and runs pytest. Extra arguments go to pytest.
# KALMA_REQUIRE_NEO4J=1 makes a missing Neo4j server a failure instead of a skip (CI sets it).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if command -v java >/dev/null && command -v mvn >/dev/null; then
  .venv/bin/kalma-graph neo4j install
fi
exec .venv/bin/python -m pytest "$@"
