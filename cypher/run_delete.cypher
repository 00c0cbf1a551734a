MATCH (r:Run {id: $run_id})
DETACH DELETE r
