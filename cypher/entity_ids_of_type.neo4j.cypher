MATCH (e:Entity)
WHERE e.id > $after AND $type_id IN e.types
RETURN e.id AS id
ORDER BY id
LIMIT $page
