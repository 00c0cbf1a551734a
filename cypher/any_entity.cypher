// Whether the store holds any entity: one row at most, never a scan of the whole graph.
MATCH (e:Entity)
RETURN e.id AS id
LIMIT 1
