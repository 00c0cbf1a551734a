MATCH (a:Answer)-[h:HAS_SENTENCE]->(s:Sentence)
WHERE a.run_id = $run_id
RETURN a.question_id AS question_id, s.id AS id, h.position AS position, s.text AS text, s.clean_text AS clean_text,
       s.na AS na, s.na_entails_absent AS na_entails_absent, s.n_citations AS n_citations, s.citations AS citations,
       s.fully_supported AS fully_supported, s.claims AS claims
