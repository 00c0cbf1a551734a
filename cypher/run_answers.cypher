MATCH (r:Run {id: $run_id})-[:HAS_ANSWER]->(a:Answer)
RETURN a.id AS id, a.question_id AS question_id, a.question AS question, a.variant AS variant, a.text AS text,
       a.sentences AS sentences, a.citations AS citations, a.correct AS correct, a.precise AS precise,
       a.gold_triples AS gold_triples, a.gold_hit AS gold_hit, a.precision AS precision, a.recall AS recall,
       a.alignment AS alignment, a.na_marks AS na_marks, a.removed AS removed, a.na_precision AS na_precision,
       a.na_recall AS na_recall, a.sloppy AS sloppy, a.truncated AS truncated, a.finish_reason AS finish_reason,
       a.geval_coherence AS geval_coherence, a.geval_consistency AS geval_consistency,
       a.geval_fluency AS geval_fluency, a.geval_relevance AS geval_relevance
