MATCH (k:NameKey)-[:NAMES]->(e:Entity)
WHERE e.id IN $ids
RETURN k.key AS key, e.id AS id
