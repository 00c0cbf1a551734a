UNWIND $keys AS wanted
MATCH (k:NameKey {key: wanted})-[:NAMES]->(e:Entity)
RETURN k.key AS key, e.id AS id, e.kb AS kb, e.name AS name, e.aliases AS aliases,
       e.description AS description, e.types AS types, e.cvt AS cvt
