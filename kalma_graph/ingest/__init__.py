"""Ingest: stream Wikidata / Freebase / BioKaLMA files into a graph store."""

from .formats import FORMATS, FormatError, detect_format
from .lock import IngestLocked
from .pipeline import IngestError, IngestInterrupted, ingest
from .sources import InputError
from .subset import Subset, SubsetError, parse_subset

__all__ = ["FORMATS", "FormatError", "IngestError", "IngestInterrupted", "IngestLocked", "InputError", "Subset",
           "SubsetError", "parse_subset", "detect_format", "ingest"]
