"""NLI training data (public pairs + pairs generated from the knowledge graph), training and
evaluation. Pure functions returning dicts; the CLI (`kalma-graph nli ...`) only wraps them.

The model wrapper itself lives in `kalma_graph.models.nli` (`load_nli`, `NLIModel`).
"""
