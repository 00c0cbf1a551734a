UNWIND $ids AS wanted
MATCH (s:Entity {id: wanted})-[r:STATEMENT]->(o:Entity)
WHERE list_contains($ids, o.id)
RETURN s.id AS subject, r.pid AS pid, r.label AS label, coalesce(o.name, o.id) AS value,
       o.id AS object_id, null AS datatype
