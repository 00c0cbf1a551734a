MATCH (k:NameKey)-[:NAMES]->(e:Entity)
WHERE k.key IN $keys
RETURN k.key AS key, e.id AS id, e.kb AS kb, e.name AS name, e.aliases AS aliases,
       e.description AS description, e.types AS types, e.cvt AS cvt,
       COUNT { (e)-[:STATEMENT]->() } AS statements
