UNWIND $subjects AS wanted
MATCH (s:Entity {id: wanted})-[r:STATEMENT]->()
RETURN r.sid AS sid
