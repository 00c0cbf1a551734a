// CAQA: the logical out-facts of one entity. A statement to a CVT node is followed through it
// (Freebase: a CVT path counts as one hop); r2/o are null for a statement to an ordinary entity.
MATCH (s:Entity {id: $id})-[r:STATEMENT]->(m:Entity)
OPTIONAL MATCH (m)-[r2:STATEMENT]->(o:Entity)
WHERE m.cvt
RETURN s.id AS subject, s.name AS subject_name, r.sid AS sid, r.pid AS pid, r.label AS label,
       m.id AS mid, m.name AS mid_name, m.types AS mid_types, coalesce(m.cvt, false) AS mid_cvt,
       r2.sid AS sid2, r2.pid AS pid2, r2.label AS label2,
       o.id AS end_id, o.name AS end_name, o.types AS end_types, coalesce(o.cvt, false) AS end_cvt
