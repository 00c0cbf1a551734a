MATCH (e:Entity)
WHERE e.name_lc IS NOT NULL AND ($kb = '' OR e.kb = $kb)
WITH e.name_lc AS key, collect(e.id) AS ids
WHERE size(ids) >= $min_count
RETURN key, ids
