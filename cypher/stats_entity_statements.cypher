MATCH (:Entity)-[r:STATEMENT]->(:Entity)
RETURN count(r) AS n
