// Delete a Meta key only if it still holds `$value` (releasing our own lock, never another's).
MATCH (m:Meta {key: $key})
WHERE m.value = $value
DELETE m
