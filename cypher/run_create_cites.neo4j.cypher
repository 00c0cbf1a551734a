UNWIND $rows AS row
MATCH (s:Sentence {id: row.from})
MATCH (e:Entity {id: row.to})
CREATE (s)-[c:CITES]->(e)
SET c = row.props
