UNWIND $rows AS row
MATCH (k:NameKey {key: row.key})
MATCH (e:Entity {id: row.id})
CREATE (k)-[:NAMES]->(e)
