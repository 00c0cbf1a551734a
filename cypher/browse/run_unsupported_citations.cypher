// kalma-graph · citations the verifier does not judge supported by their sentence, with its reason
// :param run_id => 'answers-0123456789ab'
MATCH (a:Answer {run_id: $run_id})-[:HAS_SENTENCE]->(s:Sentence)-[c:CITES]->(e:Entity)
WHERE c.verdict IN ['partial', 'unsupported']
RETURN a.question_id AS question_id, s.position AS sentence, e.name AS subject, c.prop AS property, c.value AS value,
       c.verdict AS verdict, c.reason AS reason, s.clean_text AS text
ORDER BY question_id, sentence
