MATCH (v:Value)
WHERE v.id IN $ids
RETURN v.id AS id
