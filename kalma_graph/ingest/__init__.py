"""Ingest: stream Wikidata / Freebase / BioKaLMA files into a graph store."""

from .formats import FORMATS, FormatError, detect_format
from .lock import IngestLocked
from .sources import InputError
from .pipeline import IngestError, IngestInterrupted, ingest

__all__ = ["FORMATS", "FormatError", "IngestError", "IngestInterrupted", "IngestLocked", "InputError", "detect_format", "ingest"]
