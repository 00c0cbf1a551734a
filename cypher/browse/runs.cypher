// kalma-graph · evaluation runs with their scores
MATCH (r:Run)
RETURN r.id AS run, r.created_at AS evaluated_at, r.answers_file AS answers_file, r.records AS answers,
       r.matching AS matching, r.correctness AS correctness, r.precision_micro AS precision_micro,
       r.recall_micro AS recall_micro, r.f1_micro AS f1_micro, r.alignment_micro AS alignment_micro,
       r.alignment_method AS alignment_method, r.claims_contradicted AS claims_contradicted,
       r.na_precision AS na_precision, r.na_recall AS na_recall
ORDER BY evaluated_at DESC
