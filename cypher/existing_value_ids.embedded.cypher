UNWIND $ids AS wanted
MATCH (v:Value {id: wanted})
RETURN v.id AS id
