"""CAQA (seed 002): build a complex-attribution QA benchmark from a knowledge graph and KGQA
questions, and benchmark attribution evaluators on it. See docs/caqa.md.

    from kalma_graph.caqa.build import BuildConfig, build          # caqa build
    from kalma_graph.caqa.bench import load_samples, run_bench     # caqa bench
    from kalma_graph.caqa.evaluators import make_evaluator
    from kalma_graph.caqa.train import CAQATrainConfig, train_caqa # caqa train

Building: `kgqa` (query collection from KGQA files), `sampler` (path / tree / union-ready queries
from the graph), `extension` (§4.2), `edits` (§4.3), `verbalise` (§4.4), `build` (the pipeline),
all graph access through the named Cypher operations of `kalma_graph.caqa.graph_queries`.
Benchmarking: `evaluators` (NLI, LLM judges, CoT decomposition, fine-tuned), `metrics` (Table 5),
`factscore` (§6.3), `bench` (the report), `train` (fine-tuning a 4-way classifier).
This package's import pulls in no model stack and no store.
"""

from kalma_graph.caqa import model
from kalma_graph.caqa.model import *  # noqa: F401,F403  (the model's public names, listed once in model.__all__)

__all__ = list(model.__all__)
