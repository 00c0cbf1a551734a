// CAQA contradictory edit (§4.3): a copy of G in which the answer entity ($answer) is replaced by a
// non-answer entity of the same type ($replacement) wherever it occurs. Read-only.
MATCH (x:Entity {id: $replacement})
MATCH (s:Entity)-[r:STATEMENT]->(o:Entity)
WHERE s.id IN $subjects AND r.sid IN $sids
RETURN CASE WHEN s.id = $answer THEN x.id ELSE s.id END AS subject,
       CASE WHEN s.id = $answer THEN x.name ELSE s.name END AS subject_name,
       coalesce(s.cvt, false) AS subject_cvt,
       r.sid AS sid, r.pid AS pid, r.label AS label,
       CASE WHEN o.id = $answer THEN x.id ELSE o.id END AS object,
       CASE WHEN o.id = $answer THEN x.name ELSE o.name END AS object_name,
       CASE WHEN o.id = $answer THEN x.types ELSE o.types END AS object_types,
       coalesce(o.cvt, false) AS object_cvt,
       (s.id = $answer OR o.id = $answer) AS substituted
