// CAQA query collection: is the KGQA dataset's fact (subject, pid, object) in the loaded graph?
MATCH (s:Entity {id: $subject})-[r:STATEMENT]->(o:Entity {id: $object})
WHERE r.pid = $pid
RETURN s.id AS subject, s.name AS subject_name, coalesce(s.cvt, false) AS subject_cvt,
       r.sid AS sid, r.pid AS pid, r.label AS label,
       o.id AS object, o.name AS object_name, o.types AS object_types, coalesce(o.cvt, false) AS object_cvt
