"""End-to-end pipelines: `answer` (the KaLMA baseline: retrieval, re-ranking, attributed generation)."""
