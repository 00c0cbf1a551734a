// kalma-graph · one run's answers as a table, worst citation precision first
// :param run_id => 'answers-0123456789ab'
MATCH (r:Run {id: $run_id})-[:HAS_ANSWER]->(a:Answer)
RETURN a.question_id AS question_id, a.variant AS variant, a.citations AS citations, a.correct AS correct,
       a.precision AS precision, a.recall AS recall, a.alignment AS alignment, a.na_marks AS na_marks,
       a.truncated AS truncated, a.question AS question
ORDER BY precision ASC, question_id ASC
