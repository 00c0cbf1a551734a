// kalma-graph · citations that match no triple of the graph shown to the model (correctness = 0)
// :param run_id => 'answers-0123456789ab'
MATCH (a:Answer {run_id: $run_id})-[:HAS_SENTENCE]->(s:Sentence)-[c:CITES]->(e:Entity)
WHERE c.correct = false
RETURN a.question_id AS question_id, s.position AS sentence, e.id AS entity, e.name AS name, c.prop AS property,
       c.value AS cited_value, s.text AS text
ORDER BY question_id, sentence
