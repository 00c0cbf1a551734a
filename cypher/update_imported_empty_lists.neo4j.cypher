// After `kalma-graph neo4j import`: the import tool stores no empty list, where the engine's
// `SET e = row` stores `aliases: []` and `types: []`; this makes the two graphs the same. It commits
// every 10,000 entities (an auto-commit statement: `Neo4jStore.execute_in_transactions`).
MATCH (e:Entity)
WHERE e.aliases IS NULL OR e.types IS NULL
CALL (e) {
  SET e.aliases = coalesce(e.aliases, []), e.types = coalesce(e.types, [])
} IN TRANSACTIONS OF 10000 ROWS
