// CAQA grounding (§4.3): the statements of the grounded subgraph G of an extended query, read back
// from the graph by subject and statement id (a CVT fact is two statements). Nothing is written.
MATCH (s:Entity)-[r:STATEMENT]->(o:Entity)
WHERE s.id IN $subjects AND r.sid IN $sids
RETURN s.id AS subject, s.name AS subject_name, coalesce(s.cvt, false) AS subject_cvt,
       r.sid AS sid, r.pid AS pid, r.label AS label,
       o.id AS object, o.name AS object_name, o.types AS object_types, coalesce(o.cvt, false) AS object_cvt
