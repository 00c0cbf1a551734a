// kalma-graph · one answer: its sentences, what each cites, and the graph statements behind the citations
// :param run_id => 'answers-0123456789ab'
// :param question_id => 'biokalma-0907'
MATCH (a:Answer {run_id: $run_id, question_id: $question_id})-[hs:HAS_SENTENCE]->(s:Sentence)
OPTIONAL MATCH (s)-[c:CITES]->(e:Entity)
OPTIONAL MATCH (e)-[st:STATEMENT]->(o)
WHERE st.label = c.prop
RETURN a, hs, s, c, e, st, o
