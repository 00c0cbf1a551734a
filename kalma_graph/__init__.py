"""kalma-graph: knowledge-graph-attributed question answering and its evaluation, fully offline."""

__version__ = "0.1.0"
