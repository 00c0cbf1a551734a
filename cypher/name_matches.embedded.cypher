UNWIND $keys AS wanted
MATCH (k:NameKey)
WHERE k.key = wanted
OPTIONAL MATCH (k)-[:NAMES]->(e:Entity)
OPTIONAL MATCH (e)-[s:STATEMENT]->()
RETURN k.key AS key, e.id AS id, e.kb AS kb, e.name AS name, e.aliases AS aliases,
       e.description AS description, e.types AS types, e.cvt AS cvt, count(s) AS statements
