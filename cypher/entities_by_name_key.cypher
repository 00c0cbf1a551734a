MATCH (k:NameKey {key: $key})-[:NAMES]->(e:Entity)
RETURN e.id AS id, e.kb AS kb, e.name AS name, e.aliases AS aliases,
       e.description AS description, e.types AS types, e.cvt AS cvt
