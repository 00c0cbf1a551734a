// Replace a Meta value only if it is still `$expected` (taking over a lock whose holder is gone).
MATCH (m:Meta {key: $key})
WHERE m.value = $expected
SET m.value = $value
RETURN m.value AS value
