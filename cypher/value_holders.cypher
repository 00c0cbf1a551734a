// Who holds a literal value: the statements into the Value nodes of these ids (`store.base.value_id` of each
// name). A person the graph knows only as a string value ("Ian Khama", Seretse Khama's child) is reached
// through whoever holds that value (`GraphStore.value_holders`, used by linking).
UNWIND $ids AS wanted
MATCH (s:Entity)-[r:STATEMENT]->(v:Value {id: wanted})
RETURN s.id AS subject, r.pid AS pid, r.label AS label, v.value AS value, v.datatype AS datatype
LIMIT 200
