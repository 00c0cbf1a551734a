// How many statements an entity has (linking's prior), counted in the database, never fetched.
MATCH (e:Entity {id: $id})-[:STATEMENT]->()
RETURN count(*) AS n
