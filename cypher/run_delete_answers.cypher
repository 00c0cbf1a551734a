MATCH (a:Answer)
WHERE a.run_id = $run_id
DETACH DELETE a
