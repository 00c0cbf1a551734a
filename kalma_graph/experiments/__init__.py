"""The KaLMA experiments (seed 000, §5.2–§5.5) on top of the answer pipeline and the evaluation.

- `filters` — knowledge filters the answer pipeline applies per question: `RemovalFilter`
  (conscious incompetence), `IrrelevantGraphFilter` + `choose_replaced` (retrieval ablation);
- `questions` — the answer pipeline's question files, and general + specific BioKaLMA wordings merged;
- `runner` — drivers `conscious`, `retrieval`, `variants`: answer each setting, evaluate it, report.
"""

from kalma_graph.experiments.filters import (
    IrrelevantGraphFilter,
    RemovalFilter,
    choose_replaced,
    irrelevant_pool,
    question_key,
)
from kalma_graph.experiments.questions import load_questions, merge_variants
from kalma_graph.experiments.runner import (
    Components,
    ExperimentError,
    ExperimentSettings,
    conscious,
    retrieval,
    variants,
)

__all__ = [
    "Components",
    "ExperimentError",
    "ExperimentSettings",
    "IrrelevantGraphFilter",
    "RemovalFilter",
    "choose_replaced",
    "conscious",
    "irrelevant_pool",
    "load_questions",
    "merge_variants",
    "question_key",
    "retrieval",
    "variants",
]
