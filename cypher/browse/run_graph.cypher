// kalma-graph · one run as a graph: answers, sentences and the entities they cite
// :param run_id => 'answers-0123456789ab'
MATCH (r:Run {id: $run_id})-[h:HAS_ANSWER]->(a:Answer)-[hs:HAS_SENTENCE]->(s:Sentence)
OPTIONAL MATCH (s)-[c:CITES]->(e:Entity)
RETURN r, h, a, hs, s, c, e
LIMIT 500
