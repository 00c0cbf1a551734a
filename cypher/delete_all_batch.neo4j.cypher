MATCH (n)
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
