UNWIND $rows AS row
MATCH (a:Answer {id: row.answer_id})
CREATE (a)-[:HAS_SENTENCE {position: row.position}]->(s:Sentence)
SET s = row
