// BioKaLMA A.2 name disambiguation, second step (Ladybug): of the entities found for each name
// ($a_ids, $b_ids), the pairs connected by an edge that matches the relation: a -[pid in $forward]-> b,
// or the inverse b -[pid in $inverse]-> a. Anchored on ids by UNWIND: in Ladybug 0.22 a pattern that
// joins both name lookups and the edge in one MATCH returned rows only some of the time when run
// on several threads.
UNWIND $a_ids AS wanted_a
MATCH (a:Entity {id: wanted_a})-[r:STATEMENT]->(b:Entity)
WHERE list_contains($b_ids, b.id) AND list_contains($forward, r.pid)
RETURN a.id AS a_id, b.id AS b_id, r.pid AS pid, r.label AS label, 'forward' AS direction
UNION ALL
UNWIND $b_ids AS wanted_b
MATCH (b:Entity {id: wanted_b})-[r:STATEMENT]->(a:Entity)
WHERE list_contains($a_ids, a.id) AND list_contains($inverse, r.pid)
RETURN a.id AS a_id, b.id AS b_id, r.pid AS pid, r.label AS label, 'inverse' AS direction
