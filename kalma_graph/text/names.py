"""The lookup key of a name or alias."""

from __future__ import annotations


def name_key(text: str) -> str:
    """The lookup key for names and aliases: case-folded, whitespace collapsed.

    >>> name_key("  Stephen   CRANE ")
    'stephen crane'
    """
    return " ".join(text.casefold().split())
