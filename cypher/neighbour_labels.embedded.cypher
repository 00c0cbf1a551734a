MATCH (e:Entity {id: $id})-[:STATEMENT]-(n)
RETURN DISTINCT CASE WHEN label(n) = 'Entity' THEN n.name ELSE n.value END AS label
