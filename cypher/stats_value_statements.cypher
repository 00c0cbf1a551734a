MATCH (:Entity)-[r:STATEMENT]->(:Value)
RETURN count(r) AS n
