// Names next to an entity through its incoming statements, at most $limit distinct: a hub (Q5, a
// country) has millions, and linking only needs the labels a question can mention. Outgoing
// statements (the entity's own facts) are read whole by `neighbour_labels_out`.
MATCH (e:Entity {id: $id})<-[:STATEMENT]-(n:Entity)
RETURN DISTINCT n.name AS label
LIMIT $limit
