// Who holds a literal value: the statements into the Value nodes of these ids (`store.base.value_id` of each
// name). A person the graph knows only as a string value ("Ian Khama", Seretse Khama's child) is reached
// through whoever holds that value (`GraphStore.value_holders`, used by linking).
// Ladybug: `WHERE v.id IN $ids`, not `UNWIND $ids … {id: wanted}`: with a relationship in the pattern the
// UNWIND form scans every statement (189 ms on a 1.2M-statement graph against 10 ms; bench/scale.py).
MATCH (s:Entity)-[r:STATEMENT]->(v:Value)
WHERE v.id IN $ids
RETURN s.id AS subject, r.pid AS pid, r.label AS label, v.value AS value, v.datatype AS datatype
LIMIT 200
