"""Text rules shared by every stage, below all of them: sentence splitting and name keys.

They import nothing else of kalma_graph, so the store, the models and the evaluation can all use them
(docs/architecture.md).
"""
