// CAQA contradictory edit, candidates: the entities that are objects of relation $pid (through a
// CVT node when $pid2 is not '') — the relation's range, i.e. entities of the answer's type there.
// Freebase entities carry no classes, so the range is the type; Wikidata candidates are further
// required to share an `instance of` class with the answer (in Python, to keep one dialect).
MATCH (:Entity)-[r:STATEMENT]->(x:Entity)
WHERE $pid2 = '' AND r.pid = $pid AND x.name IS NOT NULL AND NOT coalesce(x.cvt, false)
RETURN DISTINCT x.id AS id, x.name AS name, x.types AS types
UNION ALL
MATCH (c:Entity)-[r2:STATEMENT]->(x:Entity)
WHERE $pid2 <> '' AND r2.pid = $pid2 AND c.cvt AND x.name IS NOT NULL AND NOT coalesce(x.cvt, false)
RETURN DISTINCT x.id AS id, x.name AS name, x.types AS types
