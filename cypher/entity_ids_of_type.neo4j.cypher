MATCH (e:Entity)
WHERE $type_id IN e.types
RETURN e.id AS id
