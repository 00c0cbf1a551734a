UNWIND $rows AS row
MATCH (r:Run {id: row.run_id})
CREATE (r)-[:HAS_ANSWER]->(a:Answer)
SET a = row
