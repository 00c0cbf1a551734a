MATCH (s:Entity)-[r:STATEMENT]->(o:Entity)
WHERE s.id IN $ids AND o.id IN $ids
RETURN s.id AS subject, r.pid AS pid, r.label AS label, coalesce(o.name, o.id) AS value,
       o.id AS object_id, null AS datatype
