"""S-score, the structure score (seed 004, §2.2, Table 2): does the answer have the shape its
question's intent calls for?

Table 2 gives, per NFQA intent, the expected answer length, predicate tense, keywords, pronoun
person and format. `PROFILES` holds it as data (factoid, absent from Table 2, is our row: short,
present or past, third person, a plain paragraph, no keywords). Keyword lists start from Table 2's
examples and add close synonyms (the paper "manually define[s] the keywords for each question intent
and use[s] exact match"); they are ours.

Each feature maps the answer to [0, 1] against the predicted intent's profile (`feature_scores`):

- **length**: words (tokens that are not punctuation). Bands: short 1–50, moderate 50–150,
  long ≥ 150 words; "short to moderate" is the union 1–150. Inside the allowed range 1; below it
  n / low; above it high / n.
- **tense**: the share of predicates (sentence roots and their conjoined verbs) whose tense is
  expected. Tense is read from the verb group's first finite form: will/shall → future; VBD → past;
  have + participle (perfect) → past; VBZ/VBP/modal/imperative → present. No predicate → undefined.
- **keywords**: distinct intent keywords found by exact, case-insensitive, whole-word match,
  divided by 2 and capped at 1 (two distinct keywords are full marks). An intent without keywords
  (factoid) → undefined.
- **pronoun**: the share of personal pronouns (PRP, PRP$) in an expected person. An answer with no
  personal pronoun speaks in the third person (its subjects are nouns): 1 if the third person is
  expected, else 0.
- **format**: the answer's detected format (`detect_format`: step_list, bullet_list,
  side_by_side, paragraphs, paragraph) against the expected one, via `FORMAT_CREDIT` (1 for the
  format itself, partial credit for a near one, e.g. a bullet list where steps are expected).

**S = the mean of the defined features for the predicted intent** (equal weights; the paper's
"learnable embedding projection" needs labelled data we do not have). The evidence also lists S for
every intent, so a wrong intent prediction can be seen and re-weighed by hand. Features are computed
on the answer, with citation marks removed.

The spaCy parse (tagger + parser; `load_structure_nlp`) only produces the observations
(`observe`); everything after is pure (`feature_scores`, `s_score_from`).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from kalma_graph.sck.base import INTENTS, SubScore

if TYPE_CHECKING:
    from spacy.tokens import Token

LENGTH_BANDS: dict[str, tuple[int, float]] = {"short": (1, 50), "moderate": (50, 150), "long": (150, float("inf"))}
KEYWORD_SATURATION = 2
FORMATS = ("step_list", "bullet_list", "side_by_side", "paragraphs", "paragraph")


@dataclass(frozen=True)
class IntentProfile:
    length: tuple[str, ...]
    tenses: tuple[str, ...]
    keywords: tuple[str, ...]
    persons: tuple[int, ...]
    formats: tuple[str, ...]


PROFILES: dict[str, IntentProfile] = {
    "instruction": IntentProfile(("short", "moderate"), ("present", "future"),
                                 ("steps", "step", "follow", "follows", "following", "first",
                                  "then", "next", "finally"),
                                 (2,), ("step_list",)),
    "reason": IntentProfile(("short", "moderate"), ("present", "past"),
                            ("because", "due to", "since", "reason", "therefore", "as a result",
                             "caused by", "so that"),
                            (3, 2), ("paragraph",)),
    "evidence-based": IntentProfile(("moderate", "long"), ("past",),
                                    ("found", "indicate", "indicates", "indicated", "study", "studies", "research",
                                     "evidence", "according to", "shows", "showed", "suggests"),
                                    (3,), ("paragraph",)),
    "comparison": IntentProfile(("moderate",), ("present", "past"),
                                ("different", "difference", "differences", "compared to", "compared with", "whereas",
                                 "unlike", "than", "while", "on the other hand", "both", "similar"),
                                (3,), ("side_by_side",)),
    "experience": IntentProfile(("moderate", "long"), ("past",),
                                ("noticed", "felt", "experience", "tried", "in my", "i found", "i had"),
                                (1,), ("paragraphs",)),
    "debate": IntentProfile(("moderate", "long"), ("present", "past"),
                            ("believe", "think", "opinion", "argue", "however", "on the other hand", "in my view",
                             "agree", "disagree"),
                            (1, 3), ("paragraphs",)),
    "factoid": IntentProfile(("short",), ("present", "past"), (), (3,), ("paragraph",)),
}

#: expected format -> detected format -> credit.
FORMAT_CREDIT: dict[str, dict[str, float]] = {
    "step_list": {"step_list": 1.0, "bullet_list": 0.5, "side_by_side": 0.25},
    "side_by_side": {"side_by_side": 1.0, "bullet_list": 0.5, "step_list": 0.5, "paragraphs": 0.5, "paragraph": 0.25},
    "paragraphs": {"paragraphs": 1.0, "paragraph": 0.5, "side_by_side": 0.25, "bullet_list": 0.25},
    "paragraph": {"paragraph": 1.0, "paragraphs": 0.5},
}


@dataclass(frozen=True)
class Observations:
    """What the structure features look at, read off one answer."""

    n_words: int
    tenses: dict[str, int] = field(default_factory=dict)  # predicate tense -> count
    persons: dict[int, int] = field(default_factory=dict)  # personal-pronoun person -> count
    format: str = "paragraph"
    text: str = ""  # the answer, lower-cased, whitespace collapsed (keyword matching)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("text")
        out["persons"] = {str(k): v for k, v in self.persons.items()}
        return out


# --- format ---------------------------------------------------------------------------------------

_NUMBERED_RE = re.compile(r"^\s*(?:\d{1,3}[.)]|step\s+\d+\s*[:.)-])\s*\S", re.IGNORECASE)
_STEP_RE = re.compile(r"^\s*step\s+\d+", re.IGNORECASE)
_BULLET_RE = re.compile(r"^\s*[-*\u2022]\s+\S")
_TABLE_ROW_RE = re.compile(r"^\s*\|?[^|\n]+\|[^|\n]+")
_LABELLED_ITEM_RE = re.compile(r"^\s*(?:[-*\u2022]|\d{1,3}[.)])?\s*(?:\*\*)?[^:\n]{1,40}?(?:\*\*)?\s*:\s+\S")
_PARAGRAPH_BREAK_RE = re.compile(r"\n[ \t]*\n")


def detect_format(text: str) -> str:
    """The answer's layout.

    >>> detect_format("1. Unplug it.\\n2. Wait ten seconds.\\n3. Plug it back in.")
    'step_list'
    >>> detect_format("- iPhone 13: A15 chip\\n- Pixel 6: Tensor chip")
    'side_by_side'
    >>> detect_format("First paragraph.\\n\\nSecond paragraph.")
    'paragraphs'
    >>> detect_format("Stephen Crane was an American writer. He was born in Newark.")
    'paragraph'
    """
    lines = [line for line in text.splitlines() if line.strip()]
    table_rows = [line for line in lines if line.count("|") >= 2 and _TABLE_ROW_RE.match(line)]
    if len(table_rows) >= 2:
        return "side_by_side"
    numbered = [line for line in lines if _NUMBERED_RE.match(line)]
    bullets = [line for line in lines if _BULLET_RE.match(line)]
    items = numbered + bullets
    if len(items) >= 2:
        labelled = [line for line in items if _LABELLED_ITEM_RE.match(line) and not _STEP_RE.match(line)]
        if len(labelled) >= 2 and len(labelled) * 2 >= len(items):
            return "side_by_side"
        return "step_list" if len(numbered) >= len(bullets) else "bullet_list"
    paragraphs = [p for p in _PARAGRAPH_BREAK_RE.split(text) if p.strip()]
    return "paragraphs" if len(paragraphs) >= 2 else "paragraph"


# --- the spaCy observations -----------------------------------------------------------------------


def load_structure_nlp(name: str | None = None):
    """The spaCy pipeline the structure features parse with (tagger, parser, attribute ruler)."""
    import spacy

    from kalma_graph.models.ner import DEFAULT_NER

    return spacy.load(name or DEFAULT_NER, exclude=["ner", "lemmatizer"])


_FUTURE_AUX = {"will", "shall", "'ll", "wo", "sha"}  # spaCy splits "won't" into "wo" + "n't"
_HAVE = {"have", "has", "'ve", "'s", "having"}


def predicate_tense(token: Token) -> str | None:
    """Tense of the verb group headed by `token` (a spaCy token): present, past, future or None."""
    auxes = [c for c in token.children if c.dep_ in ("aux", "auxpass")]
    if any(a.lower_ in _FUTURE_AUX for a in auxes):
        return "future"
    for word in sorted([*auxes, token], key=lambda t: t.i):
        if word.tag_ == "VBD":
            return "past"
        if word.tag_ in ("VBZ", "VBP"):
            if word is not token and word.lower_ in _HAVE and token.tag_ == "VBN":
                return "past"  # perfect aspect reports what is done
            return "present"
        if word.tag_ == "MD":
            return "present"
    if token.tag_ == "VB" and not auxes:
        return "present"  # imperative
    return None


def observe(text: str, nlp: Any) -> Observations:
    """Parse `text` once and collect the observations of every feature."""
    doc = nlp(text)
    tenses: dict[str, int] = {}
    persons: dict[int, int] = {}
    for sent in doc.sents:
        root = sent.root
        if root.pos_ not in ("VERB", "AUX"):
            continue
        for predicate in [root, *(c for c in root.children if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX"))]:
            tense = predicate_tense(predicate)
            if tense:
                tenses[tense] = tenses.get(tense, 0) + 1
    for token in doc:
        if token.tag_ in ("PRP", "PRP$"):
            person = token.morph.get("Person")
            if person and person[0] in ("1", "2", "3"):
                persons[int(person[0])] = persons.get(int(person[0]), 0) + 1
    n_words = sum(1 for t in doc if not (t.is_punct or t.is_space))
    return Observations(n_words, tenses, persons, detect_format(text), " ".join(text.casefold().split()))


# --- pure feature functions -----------------------------------------------------------------------


def length_score(n_words: int, bands: tuple[str, ...]) -> float:
    """1 inside the bands' range, n / low below it, high / n above it.

    >>> length_score(100, ("short",)), length_score(30, ("moderate", "long")), length_score(40, ("short",))
    (0.5, 0.6, 1.0)
    """
    low = min(LENGTH_BANDS[b][0] for b in bands)
    high = max(LENGTH_BANDS[b][1] for b in bands)
    if n_words < low:
        return n_words / low
    if n_words > high:
        return high / n_words
    return 1.0


def tense_score(tenses: Mapping[str, int], expected: tuple[str, ...]) -> float | None:
    total = sum(tenses.values())
    return sum(n for t, n in tenses.items() if t in expected) / total if total else None


def keyword_hits(text: str, keywords: tuple[str, ...]) -> list[str]:
    """Distinct keywords occurring in `text` (lower-cased) as whole words."""
    return [k for k in keywords if re.search(rf"(?<![\w']){re.escape(k)}(?![\w'])", text)]


def keyword_score(text: str, keywords: tuple[str, ...]) -> float | None:
    if not keywords:
        return None
    return min(1.0, len(keyword_hits(text, keywords)) / KEYWORD_SATURATION)


def pronoun_score(persons: Mapping[int, int], expected: tuple[int, ...]) -> float:
    total = sum(persons.values())
    if not total:
        return 1.0 if 3 in expected else 0.0
    return sum(n for p, n in persons.items() if p in expected) / total


def format_score(detected: str, expected: tuple[str, ...]) -> float:
    return max(FORMAT_CREDIT[e].get(detected, 0.0) for e in expected)


def feature_scores(obs: Observations, profile: IntentProfile) -> dict[str, float | None]:
    return {
        "length": length_score(obs.n_words, profile.length),
        "tense": tense_score(obs.tenses, profile.tenses),
        "keywords": keyword_score(obs.text, profile.keywords),
        "pronoun": pronoun_score(obs.persons, profile.persons),
        "format": format_score(obs.format, profile.formats),
    }


def mean_defined(values: Mapping[str, float | None]) -> float | None:
    defined = [v for v in values.values() if v is not None]
    return sum(defined) / len(defined) if defined else None


def s_score_from(obs: Observations, intent: str | None) -> SubScore:
    """S for the predicted `intent` (None when the intent is missing), with every intent's S."""
    per_intent = {i: mean_defined(feature_scores(obs, PROFILES[i])) for i in INTENTS}
    features = feature_scores(obs, PROFILES[intent]) if intent else {}
    return SubScore("s", per_intent[intent] if intent else None, {
        "intent": intent,
        "features": features,
        "keyword_hits": keyword_hits(obs.text, PROFILES[intent].keywords) if intent else [],
        "observations": obs.as_dict(),
        "s_per_intent": per_intent,
    })
