MATCH (r:Run {id: $run_id})
RETURN r.id AS id, r.created_at AS created_at, r.answers_file AS answers_file, r.answers_sha256 AS answers_sha256,
       r.records AS records, r.variants AS variants, r.matching AS matching, r.hypothesis_format AS hypothesis_format,
       r.absent_set AS absent_set, r.gold_file AS gold_file, r.gold_sha256 AS gold_sha256,
       r.nli_model AS nli_model, r.nli_hash AS nli_hash, r.judge_model AS judge_model, r.judge_sha256 AS judge_sha256,
       r.citations AS citations, r.answers_without_citation AS answers_without_citation,
       r.correctness AS correctness, r.precision_micro AS precision_micro, r.recall_micro AS recall_micro,
       r.f1_micro AS f1_micro, r.precision_macro AS precision_macro, r.recall_macro AS recall_macro,
       r.f1_macro AS f1_macro, r.alignment_micro AS alignment_micro, r.alignment_macro AS alignment_macro,
       r.na_precision AS na_precision, r.na_recall AS na_recall, r.na_f1 AS na_f1,
       r.geval_coherence AS geval_coherence, r.geval_consistency AS geval_consistency,
       r.geval_fluency AS geval_fluency, r.geval_relevance AS geval_relevance, r.header_json AS header_json
