// kalma-graph · every sentence, in every run, that cites an entity
// :param entity_id => 'Q206534'
MATCH (s:Sentence)-[c:CITES]->(e:Entity {id: $entity_id})
RETURN s.run_id AS run, s.answer_id AS answer, s.position AS sentence, c.prop AS property, c.value AS value,
       c.correct AS correct, c.entailed AS entailed, s.text AS text
ORDER BY run, answer, sentence
