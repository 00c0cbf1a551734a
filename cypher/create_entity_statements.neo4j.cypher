UNWIND $rows AS row
MATCH (s:Entity {id: row.subject})
MATCH (o:Entity {id: row.object})
CREATE (s)-[:STATEMENT {sid: row.sid, pid: row.pid, label: row.label}]->(o)
