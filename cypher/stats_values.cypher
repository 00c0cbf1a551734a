MATCH (v:Value)
RETURN count(v) AS n
