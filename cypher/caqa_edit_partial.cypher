// CAQA partially supportive edit (§4.3): a copy of G without the deleted statements ($deleted: one
// triple of a path, or every triple of one subject-to-answer path of a tree or union).
// Read-only: the base graph keeps every statement.
MATCH (s:Entity)-[r:STATEMENT]->(o:Entity)
WHERE s.id IN $subjects AND r.sid IN $sids AND NOT r.sid IN $deleted
RETURN s.id AS subject, s.name AS subject_name, coalesce(s.cvt, false) AS subject_cvt,
       r.sid AS sid, r.pid AS pid, r.label AS label,
       o.id AS object, o.name AS object_name, o.types AS object_types, coalesce(o.cvt, false) AS object_cvt
