"""Ingest: stream Wikidata / Freebase / BioKaLMA files into a graph store."""

from .formats import FORMATS, FormatError, detect_format
from .pipeline import IngestError, IngestInterrupted, ingest

__all__ = ["FORMATS", "FormatError", "IngestError", "IngestInterrupted", "detect_format", "ingest"]
