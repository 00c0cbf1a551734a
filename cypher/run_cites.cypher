MATCH (s:Sentence)-[c:CITES]->(e:Entity)
WHERE s.run_id = $run_id
RETURN s.id AS sentence_id, e.id AS entity_id, c.position AS position, c.prop AS prop, c.value AS value,
       c.sloppy AS sloppy, c.correct AS correct, c.precise AS precise, c.entailment AS entailment, c.entailed AS entailed,
       c.support AS support, c.verdict AS verdict, c.reason AS reason
