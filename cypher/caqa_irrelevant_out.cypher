// CAQA irrelevant edit (§4.3), one hop of the replacement subgraph: out-facts of $id whose relation
// is not one of G's ($exclude_pids) and whose object is not one of G's entities ($exclude_ids), so
// that the new subgraph has G's shape but shares only the subject with it.
MATCH (s:Entity {id: $id})-[r:STATEMENT]->(m:Entity)
WHERE NOT r.pid IN $exclude_pids AND NOT m.id IN $exclude_ids
OPTIONAL MATCH (m)-[r2:STATEMENT]->(o:Entity)
WHERE m.cvt AND NOT r2.pid IN $exclude_pids AND NOT o.id IN $exclude_ids
RETURN s.id AS subject, s.name AS subject_name, r.sid AS sid, r.pid AS pid, r.label AS label,
       m.id AS mid, m.name AS mid_name, m.types AS mid_types, coalesce(m.cvt, false) AS mid_cvt,
       r2.sid AS sid2, r2.pid AS pid2, r2.label AS label2,
       o.id AS end_id, o.name AS end_name, o.types AS end_types, coalesce(o.cvt, false) AS end_cvt
