UNWIND $keys AS wanted
MATCH (k:NameKey {key: wanted})
RETURN k.key AS key
