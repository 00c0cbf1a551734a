// Claim a Meta key unless someone holds it: returns the holder's value (ours if we got it).
// The key is unique (constraint / primary key), so of two concurrent claims exactly one creates it.
MERGE (m:Meta {key: $key})
ON CREATE SET m.value = $value
RETURN m.value AS value
