MATCH (s:Sentence)
WHERE s.run_id = $run_id
DETACH DELETE s
