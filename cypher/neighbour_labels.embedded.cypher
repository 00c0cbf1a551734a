// Names and values next to an entity, both directions, at most $limit distinct: a hub (Q5, a country)
// has millions of incoming statements, and linking only needs the labels a question can mention.
// Outgoing statements (the entity's own facts) come first: `neighbour_labels_out` reads them all.
MATCH (e:Entity {id: $id})<-[:STATEMENT]-(n:Entity)
RETURN DISTINCT n.name AS label
LIMIT $limit
