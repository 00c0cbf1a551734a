MATCH (e:Entity)
RETURN e.kb AS kb, count(*) AS n,
       sum(CASE WHEN e.name IS NULL THEN 0 ELSE 1 END) AS named,
       sum(CASE WHEN e.cvt THEN 1 ELSE 0 END) AS cvt
