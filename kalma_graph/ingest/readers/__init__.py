"""Streaming readers: each turns one input line into records or a `LineError`; none holds the file."""

from .base import LineError, ParsedLine, Reader

__all__ = ["LineError", "ParsedLine", "Reader"]
