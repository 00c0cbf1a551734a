"""Reports of an evaluation run or an experiment: JSON, CSV, Markdown and PNG plots.

`write_report(results, out_dir)` writes what `kalma_graph.evaluation.evaluate` computed:

- `results.json` — header (every choice, model ids and hashes, prompt versions, library versions),
  summary, metrics, skipped parts with reasons, notes, timings, per-answer rows;
- `per_answer.csv` — one row per answer;
- `per_citation.csv` — one row per citation with its verdicts (correct, precise, entailment, entailed);
- `answers_scored.jsonl` — per answer, its sentences and every citation's verdicts;
- `summary.md` — the same for people, tables in the paper's layout;
- `plots/*.png` — citation quality, G-Eval, citations per answer (matplotlib, Agg backend).

Experiments (`kalma_graph.experiments`) use `write_experiment_report`.
"""

from kalma_graph.reporting.experiments import write_experiment_report
from kalma_graph.reporting.files import write_report

__all__ = ["write_experiment_report", "write_report"]
