// kalma-graph · citations the NLI model did not find entailed by their sentence (alignment = 0)
// :param run_id => 'answers-0123456789ab'
MATCH (a:Answer {run_id: $run_id})-[:HAS_SENTENCE]->(s:Sentence)-[c:CITES]->(e:Entity)
WHERE c.entailed = false
RETURN a.question_id AS question_id, s.position AS sentence, c.prop AS property, c.value AS value,
       c.entailment AS entailment_probability, s.clean_text AS premise
ORDER BY entailment_probability ASC
