// BioKaLMA A.2 name disambiguation, second step: of the entities found for each name ($a_ids, $b_ids),
// the pairs connected by an edge that matches the relation: a -[pid in $forward]-> b, or the inverse
// b -[pid in $inverse]-> a (e.g. child for father).
UNWIND $a_ids AS wanted_a
MATCH (a:Entity {id: wanted_a})-[r:STATEMENT]->(b:Entity)
WHERE b.id IN $b_ids AND r.pid IN $forward
RETURN a.id AS a_id, b.id AS b_id, r.pid AS pid, r.label AS label, 'forward' AS direction
UNION ALL
UNWIND $b_ids AS wanted_b
MATCH (b:Entity {id: wanted_b})-[r:STATEMENT]->(a:Entity)
WHERE a.id IN $a_ids AND r.pid IN $inverse
RETURN a.id AS a_id, b.id AS b_id, r.pid AS pid, r.label AS label, 'inverse' AS direction
