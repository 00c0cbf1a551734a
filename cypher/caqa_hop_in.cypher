// CAQA: the logical in-facts of one entity (statements into it, or into a CVT node pointing at it).
// Columns mirror caqa_hop_out: `subject` is the entity asked about, m the neighbour (or the CVT
// node), o the statement's subject behind a CVT node.
MATCH (s:Entity {id: $id})<-[r:STATEMENT]-(m:Entity)
OPTIONAL MATCH (m)<-[r2:STATEMENT]-(o:Entity)
WHERE m.cvt
RETURN s.id AS subject, s.name AS subject_name, r.sid AS sid, r.pid AS pid, r.label AS label,
       m.id AS mid, m.name AS mid_name, m.types AS mid_types, coalesce(m.cvt, false) AS mid_cvt,
       r2.sid AS sid2, r2.pid AS pid2, r2.label AS label2,
       o.id AS end_id, o.name AS end_name, o.types AS end_types, coalesce(o.cvt, false) AS end_cvt
