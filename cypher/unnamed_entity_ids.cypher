// Entities known only by their id (stubs created for the object of a statement): the labels pass
// of a subset ingest names those it finds in the dump.
MATCH (e:Entity)
WHERE e.name IS NULL OR e.name = ''
RETURN e.id AS id
