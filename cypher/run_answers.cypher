MATCH (r:Run {id: $run_id})-[:HAS_ANSWER]->(a:Answer)
RETURN a AS answer
