MATCH (k:NameKey)
WHERE k.key IN $keys
RETURN k.key AS key
