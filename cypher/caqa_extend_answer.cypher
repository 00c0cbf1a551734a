// CAQA query extension, second intersection (§4.2): a new sub-query (en, rn, ?a) whose answers meet
// the query's: triples into the answer entity $id from an entity outside the query
// ($exclude_ids) under a relation the query does not use ($exclude_pids). The query becomes a tree.
MATCH (a:Entity {id: $id})<-[r:STATEMENT]-(m:Entity)
WHERE NOT r.pid IN $exclude_pids AND NOT m.id IN $exclude_ids
OPTIONAL MATCH (m)<-[r2:STATEMENT]-(o:Entity)
WHERE m.cvt AND NOT o.id IN $exclude_ids
RETURN a.id AS subject, a.name AS subject_name, r.sid AS sid, r.pid AS pid, r.label AS label,
       m.id AS mid, m.name AS mid_name, m.types AS mid_types, coalesce(m.cvt, false) AS mid_cvt,
       r2.sid AS sid2, r2.pid AS pid2, r2.label AS label2,
       o.id AS end_id, o.name AS end_name, o.types AS end_types, coalesce(o.cvt, false) AS end_cvt
