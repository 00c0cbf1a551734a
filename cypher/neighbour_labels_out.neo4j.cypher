// Names and values of an entity's own statements (bounded by its claims; $limit guards a pathological one).
MATCH (e:Entity {id: $id})-[:STATEMENT]->(n)
RETURN DISTINCT CASE WHEN n:Entity THEN n.name ELSE n.value END AS label
LIMIT $limit
