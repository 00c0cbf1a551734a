UNWIND $rows AS row
CREATE (v:Value)
SET v = row
