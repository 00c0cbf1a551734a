MATCH (e:Entity)
WHERE $type_id IN e.types
RETURN count(e) AS n
