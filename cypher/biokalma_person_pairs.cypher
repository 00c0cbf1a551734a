// BioKaLMA A.1 from the graph itself: pairs of persons (both of type $type_id, e.g. Q5 human)
// linked by a person–person statement whose property is in $pids (father, spouse, student of, ...).
MATCH (a:Entity)-[r:STATEMENT]->(b:Entity)
WHERE r.pid IN $pids AND $type_id IN a.types AND $type_id IN b.types AND a.id <> b.id
RETURN a.id AS a_id, a.name AS a_name, r.pid AS pid, r.label AS label, b.id AS b_id, b.name AS b_name
