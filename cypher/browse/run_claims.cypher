// kalma-graph · each sentence's claims the graph does not hold or contradicts (the verifier's, issue 31)
// :param run_id => 'answers-0123456789ab'
MATCH (a:Answer {run_id: $run_id})-[:HAS_SENTENCE]->(s:Sentence)
WHERE s.claims_contradicted > 0 OR s.claims_absent > 0
RETURN a.question_id AS question_id, s.position AS sentence, s.clean_text AS text, s.fully_supported AS fully_supported,
       s.claims_contradicted AS contradicted, s.claims_absent AS absent, s.claims AS claims
ORDER BY s.claims_contradicted DESC, question_id, sentence
