UNWIND $ids AS wanted
MATCH (k:NameKey)-[:NAMES]->(e:Entity {id: wanted})
RETURN k.key AS key, e.id AS id
