UNWIND $keys AS key
MERGE (:NameKey {key: key})
