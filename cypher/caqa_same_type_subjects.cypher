// CAQA contradictory edit, candidates when the answer is a statement's subject (a reverse hop): the
// subjects of relation $pid (into a CVT node when $pid2 is not '') — the relation's domain.
MATCH (x:Entity)-[r:STATEMENT]->(:Entity)
WHERE $pid2 = '' AND r.pid = $pid AND x.name IS NOT NULL AND NOT coalesce(x.cvt, false)
RETURN DISTINCT x.id AS id, x.name AS name, x.types AS types
UNION ALL
MATCH (x:Entity)-[r:STATEMENT]->(c:Entity)
WHERE $pid2 <> '' AND r.pid = $pid AND c.cvt AND x.name IS NOT NULL AND NOT coalesce(x.cvt, false)
RETURN DISTINCT x.id AS id, x.name AS name, x.types AS types
