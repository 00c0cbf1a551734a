UNWIND $ids AS wanted
MATCH (s:Entity {id: wanted})-[r:STATEMENT]->(o)
RETURN s.id AS subject, r.pid AS pid, r.label AS label,
       CASE WHEN label(o) = 'Entity' THEN coalesce(o.name, o.id) ELSE o.value END AS value,
       CASE WHEN label(o) = 'Entity' THEN o.id ELSE null END AS object_id,
       CASE WHEN label(o) = 'Entity' THEN null ELSE o.datatype END AS datatype
