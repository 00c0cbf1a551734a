"""Attributed generation (seed 000, §3.3): the one-shot prompt of Table 13 as data, and an optional
GBNF grammar that keeps every citation the model writes inside the retrieved graph."""
