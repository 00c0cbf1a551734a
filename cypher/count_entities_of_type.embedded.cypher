MATCH (e:Entity)
WHERE list_contains(e.types, $type_id)
RETURN count(e) AS n
