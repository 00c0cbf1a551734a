MATCH (e:Entity)
WHERE e.id > $after AND list_contains(e.types, $type_id)
RETURN e.id AS id
ORDER BY id
LIMIT $page
