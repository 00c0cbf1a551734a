"""Retrieval: from a question's entities to the one-hop knowledge shown to the model."""
