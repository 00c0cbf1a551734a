// Relationships go first, a bounded number per transaction: a DETACH DELETE of a hub entity (an
// object met by a large share of all statements) would otherwise delete all its relationships in one
// transaction and exceed the server's transaction memory.
MATCH ()-[r]->()
WITH r LIMIT $limit
DELETE r
RETURN count(*) AS deleted
