MATCH (s:Entity)-[r:STATEMENT]->()
WHERE s.id IN $subjects
RETURN r.sid AS sid
