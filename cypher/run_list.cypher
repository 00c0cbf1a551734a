MATCH (r:Run)
RETURN r.id AS id, r.created_at AS created_at, r.answers_file AS answers_file, r.records AS records,
       r.correctness AS correctness, r.f1_micro AS f1_micro, r.alignment_micro AS alignment_micro
