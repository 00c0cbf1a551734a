// CAQA query extension, union (§4.2): the entities of the same knowledge base ($kb) that share
// e0's name (name key $key; e0 = $id itself excluded). Each one e_i that has the query's relation
// r0 gives a sub-query (e_i, r0, ?a) joined by OR; its r0 facts come from caqa_hop_out.
MATCH (k:NameKey {key: $key})-[:NAMES]->(s:Entity)
WHERE s.id <> $id AND s.kb = $kb AND NOT coalesce(s.cvt, false)
RETURN DISTINCT s.id AS id
