// kalma-graph · sentences marked [NA], and whether each entails knowledge withheld from the model
// :param run_id => 'answers-0123456789ab'
MATCH (a:Answer {run_id: $run_id})-[:HAS_SENTENCE]->(s:Sentence)
WHERE s.na = true
RETURN a.question_id AS question_id, s.position AS sentence, s.na_entails_absent AS entails_absent_knowledge,
       s.text AS text
ORDER BY question_id, sentence
