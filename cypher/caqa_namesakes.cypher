// CAQA sampler: names shared by two or more entities of one knowledge base ($kb) — the subjects a
// union extension can join (a Wikidata item and its Freebase twin are not namesakes).
MATCH (e:Entity)
WHERE e.kb = $kb AND e.name_lc IS NOT NULL AND NOT coalesce(e.cvt, false)
WITH e.name_lc AS key, collect(e.id) AS ids
WHERE size(ids) >= 2
RETURN key, ids
