// CAQA sampler: the entities of one knowledge base that a question can name (named, not CVT).
MATCH (e:Entity)
WHERE e.kb = $kb AND e.name IS NOT NULL AND NOT coalesce(e.cvt, false)
RETURN e.id AS id
