"""Constrained decoding of citations: a llama.cpp GBNF grammar built per question (`--constrain-citations`).

The grammar lets the model write sentences of text without square brackets, and every bracket it
opens must be either `[NA]` or one citation mark of the canonical form (seed 000, Table 13)

    [QID, property: value, property: value, ...]

whose subject is an entity of the question's retrieved subgraph and whose pairs are statements of
that entity which exist in the subgraph (the knowledge shown to the model, after any removal), plus
the pseudo-pair `name: <entity name>` that every knowledge block shows. So every citation parses,
and every cited triple is one the model was given; the grammar cannot make it cite the *right* one.
Marks are bounded per sentence, so a small model cannot loop on them until the token limit.

>>> from kalma_graph.store.base import Entity, Triple
>>> text = citation_grammar([Entity("Q1", name="Ann")], [Triple("Q1", "P19", "place of birth", "Rome")])
>>> print("\\n".join(line for line in text.splitlines() if line.startswith(("c0 ", "c0-0 ", "c0-1 "))))
c0 ::= "[" "Q1" ", " c0-any "]"
c0-0 ::= "name: Ann"
c0-1 ::= "place of birth: Rome"

`GrammarChecker` parses a grammar with llama.cpp's own parser (through a model's vocabulary only,
no context, no generation) and tells whether a string is accepted — the tests use it.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from typing import Any, Sequence

from kalma_graph.errors import BadInputError
from kalma_graph.kg.knowledge import is_unlabelled
from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.models.llm import Grammar

__all__ = [
    "GRAMMAR_MODES",
    "CitationGrammar",
    "GrammarChecker",
    "GrammarError",
    "build_citation_grammar",
    "citation_grammar",
    "gbnf_literal",
]

_UNCITABLE = set("[]")


class GrammarError(BadInputError, ValueError):
    """llama.cpp rejected a grammar."""


def gbnf_literal(text: str) -> str:
    """`text` as a GBNF string literal: quotes, backslashes and control characters escaped."""
    out = []
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


@dataclass(frozen=True)
class CitationGrammar:
    """The grammar text and what it allows: `pairs` per entity id, and the triples left out because a
    citation could not hold them (a value with a square bracket)."""

    text: str
    pairs: dict[str, list[tuple[str, str]]]
    left_out: list[Triple]

    @property
    def n_pairs(self) -> int:
        return sum(len(p) for p in self.pairs.values())


GRAMMAR_MODES = ("marks", "every_sentence", "attribute_first", "attribute_first_unit", "attribute_first_one",
                 "attribute_first_text")

# Bounds that keep a small model from looping on marks until the token limit (`[NA] [NA] [NA] …`):
MAX_MARKS_PER_SENTENCE = 3
MAX_PAIRS_PER_MARK = 3  # as many as Table 13's longest mark; more pairs make a mark vaguer, not better
# A character of a sentence: no bracket, no terminator, except the period of an initial or a title
# after a space (`Samuel R. Delany`, `D. H. Lawrence`, `Dr. Smith`), which the evaluation's sentence
# splitter does not cut at either; without it the model ended sentences at `Samuel R.` and cited there.
CHAR_RULE = 'char ::= [^\\[\\].!?] | " " ([A-Z] | "Dr" | "Mr" | "Mrs" | "Ms" | "St" | "Jr" | "Sr" | "Prof") "."'
# A sentence's first characters: initials (`J. R. R. Tolkien`, `U.S. Army`) or two characters that
# are no terminator, so a lone capital and a period never make a sentence. The 1.5B model wrote
# `J..`, `C.` and `T..` as whole sentences (Table 3: 3 of 40 attribute-first answers) when its
# sentence began with a name's initial and the period could end the sentence.
LEAD_RULE = 'lead ::= ([A-Z] "." " "?)+ [^ \\t\\n\\[\\].!?] char* | [^ \\t\\n\\[\\].!?] [^\\[\\].!?] char*'
# A single sentence (the grounded strategy's units) ends at one terminator: at temperature 0.7 the model
# wrote spaces and newlines after it, or `...`, until the token limit.
SAID_RULE = 'said ::= " " lead [.!?]'
# At most one `[NA]` per sentence, and two marks in a row (nothing but a space between them) never
# cite the same entity, so the same mark never follows itself.


def build_citation_grammar(
    entities: Sequence[Entity], triples: Sequence[Triple], *, allow_name: bool = True, mode: str = "marks"
) -> CitationGrammar:
    """The grammar for a question whose model is shown `triples` about `entities`.

    The answer is a sequence of sentences; each sentence starts with words, ends at `.`, `!` or `?`
    and carries at most `MAX_MARKS_PER_SENTENCE` marks before its end (at most one `[NA]`; marks in
    a row name different entities). `mode="marks"` (the default) lets a sentence carry no mark and the
    answer stop anywhere. `mode="every_sentence"` makes every sentence carry at least one mark and
    the answer end after a complete sentence — it forces the model to attribute each claim, to a
    shown triple or to `[NA]`. `mode="attribute_first"` makes every sentence *start* with its marks
    (`[Q1, p: v] Sentence.`): the model chooses what it rests on before it writes it.
    `mode="attribute_first_unit"` is one such sentence or nothing (the model ends the answer), and
    `mode="attribute_first_one"` exactly one (an answer's first sentence): the grounded strategy writes an
    answer a sentence at a time and checks each before the next. `mode="attribute_first_text"` is the words
    of one sentence after its marks (` Sentence.`): the grounded strategy writes the marks of a planned
    sentence itself and lets the model say them.
    """
    if mode not in GRAMMAR_MODES:
        raise ValueError(f"grammar mode must be one of {GRAMMAR_MODES}, not {mode!r}")
    pairs: dict[str, list[tuple[str, str]]] = {}
    left_out: list[Triple] = []
    for e in entities:
        own: list[tuple[str, str]] = []
        if allow_name and e.name and not _UNCITABLE.intersection(e.name):
            own.append(("name", e.name))
        for t in triples:
            if t.subject != e.id:
                continue
            # A bracket cannot hold a square bracket, and an object the graph knows only by its id
            # (`occupation: Q6625963`) tells a reader nothing: neither is citable.
            if _UNCITABLE.intersection(t.label + t.value) or not t.value.strip() or is_unlabelled(t):
                left_out.append(t)
                continue
            pair = (t.label, t.value)
            if pair not in own:
                own.append(pair)
        if own and not _UNCITABLE.intersection(e.id):
            pairs[e.id] = own
    if mode == "attribute_first_text":
        # the marks (and maybe the sentence's first words, a person's name) are already written: a possessive or
        # a comma may follow the name ("Ada Lovelace's father was …"), then a space, words, a terminator
        return CitationGrammar(text="\n".join(['root ::= ("\'s" | ",")? " " lead [.!?]', LEAD_RULE, CHAR_RULE]),
                               pairs=pairs, left_out=left_out)
    if mode in ("attribute_first", "attribute_first_unit", "attribute_first_one"):
        lines = _attribute_first_rules(len(pairs))
        if mode == "attribute_first_unit":  # one sentence, or none: the answer ends
            lines[0] = "root ::= [ \\t\\n]* unit?"
        elif mode == "attribute_first_one":  # exactly one sentence: an answer's first
            lines[0] = "root ::= [ \\t\\n]* unit"
        if mode != "attribute_first":  # one sentence ends at its terminator: no trailing spaces to spin on
            lines = [SAID_RULE if line.startswith("said ::=") else line for line in lines]
    else:
        lines = _sentence_rules(len(pairs), min_marks=1 if mode == "every_sentence" else 0)
    for i, (entity_id, own) in enumerate(pairs.items()):
        lines.append(f'c{i} ::= "[" {gbnf_literal(entity_id)} ", " c{i}-any "]"')
        lines.extend(_pair_rules(f"c{i}", [gbnf_literal(f"{label}: {value}") for label, value in own]))
    return CitationGrammar(text="\n".join(lines), pairs=pairs, left_out=left_out)


def _pair_rules(name: str, literals: Sequence[str]) -> list[str]:
    """1 to `MAX_PAIRS_PER_MARK` of `literals`, never the same pair twice in a row.

    `<name>-<k>` is one pair, `<name>-<d>-<j>` "after pair j, up to d more, each unlike the one before".
    The model wrote `ethnic group: Germans, ethnic group: Germans` when pairs could follow themselves,
    and precision counts every cited pair. (Distinct pairs in any order would need a grammar cubic in
    the pairs; in the order shown, linear, but the model then gave up the pair it meant to cite when it
    came earlier in the list. With at most three pairs, only `A, B, A` remains possible.)
    """
    m = len(literals)
    lines = [f"{name}-{k} ::= {literal}" for k, literal in enumerate(literals)]

    def then(j: int, d: int) -> str:
        tail = f" {name}-{d - 1}-{{k}}" if d > 1 else ""
        moves = [f"{name}-{k}" + tail.format(k=k) for k in range(m) if k != j]
        return f'(", " ({" | ".join(moves)}))?' if moves else '""'

    lines.append(f"{name}-any ::= " + " | ".join(f"{name}-{k} {name}-{MAX_PAIRS_PER_MARK - 1}-{k}" for k in range(m)))
    for d in range(MAX_PAIRS_PER_MARK - 1, 0, -1):
        lines.extend(f"{name}-{d}-{j} ::= {then(j, d)}" for j in range(m))
    return lines


def _mark_moves(n_entities: int, k: int, n: int, previous: object | None, state: str, space: str) -> list[str]:
    """The marks that may follow `k` marks (`n` of them `[NA]`, the last one `previous`) in a
    sentence, each leading to the state `<state><k+1><n'>-<mark>`: none after
    `MAX_MARKS_PER_SENTENCE`, no second `[NA]`, never the previous mark's entity again."""
    if k >= MAX_MARKS_PER_SENTENCE:
        return []
    out = []
    for p in ["na", *range(n_entities)]:
        if p == previous or (p == "na" and n):
            continue
        rule = "na" if p == "na" else f"c{p}"
        out.append(f"{space}{rule} {state}{k + 1}{n + (p == 'na')}-{p}")
    return out


def _attribute_first_rules(n_entities: int) -> list[str]:
    """Sentences `MARKS SENTENCE.`: 1 to `MAX_MARKS_PER_SENTENCE` marks (one `[NA]` at most, no
    entity twice in a row), a space, words, a terminator. `a<k><n>-<p>` is the state after `k` marks."""
    lines = [
        "root ::= [ \\t\\n]* unit+",
        "unit ::= " + " | ".join(_mark_moves(n_entities, 0, 0, None, "a", space="")),
        LEAD_RULE,
        CHAR_RULE,
        "said ::= \" \" lead [.!?]+ [ \\t\\n]*",
        'na ::= "[NA]"',
    ]
    for k in range(1, MAX_MARKS_PER_SENTENCE + 1):
        for n in (0, 1):
            for previous in ["na", *range(n_entities)]:
                if previous == "na" and not n:
                    continue
                alternatives = ["said"] + _mark_moves(n_entities, k, n, previous, "a", space='" "? ')
                lines.append(f"a{k}{n}-{previous} ::= " + " | ".join(alternatives))
    return lines


def _sentence_rules(n_entities: int, *, min_marks: int) -> list[str]:
    """The sentence automaton: `w<k><n>` after words, `m<k><n>-<p>` after a mark, with `k` marks and
    `n` `[NA]`s so far in the sentence and `p` the previous mark (`na` or an entity index)."""
    optional_end = min_marks == 0  # the answer may stop anywhere, not only after a terminator

    def state(name: str, alternatives: list[str], may_stop: bool) -> str:
        body = " | ".join(alternatives)
        if may_stop and optional_end:
            return f"{name} ::= ({body})?"
        return f"{name} ::= {body}"

    lines = [
        "root ::= [ \\t\\n]* s" + ("?" if optional_end else ""),
        "s ::= lead w00",
        # A sentence starts with a character that is neither space, bracket nor terminator, so a
        # sentence always has words and marks cannot follow a terminator on their own.
        LEAD_RULE,
        "words ::= [ \\t\\n]* [^ \\t\\n\\[\\].!?] char*",
        CHAR_RULE,
        "stop ::= [.!?]+ [ \\t\\n]* s?",
        'na ::= "[NA]"',
    ]
    for k in range(MAX_MARKS_PER_SENTENCE + 1):
        for n in (0, 1):
            if n > k:
                continue
            can_stop = k >= min_marks
            alternatives = (["stop"] if can_stop else []) + _mark_moves(n_entities, k, n, None, "m", space="")
            if alternatives:
                lines.append(state(f"w{k}{n}", alternatives, can_stop))
            if k == 0:
                continue
            for p in ["na", *range(n_entities)]:
                if p == "na" and not n:
                    continue
                alternatives = ["stop", f"words w{k}{n}"] + _mark_moves(n_entities, k, n, p, "m", space='" "? ')
                lines.append(state(f"m{k}{n}-{p}", alternatives, True))
    return lines


def citation_grammar(
    entities: Sequence[Entity], triples: Sequence[Triple], *, allow_name: bool = True, mode: str = "marks"
) -> str:
    """Just the GBNF text of `build_citation_grammar`."""
    return build_citation_grammar(entities, triples, allow_name=allow_name, mode=mode).text


def llama_grammar(text: str) -> Grammar:
    """The object `chat(..., grammar=)` takes, in-process (`LocalLLM` compiles it once per text) or over
    HTTP (`ServerLLM` sends the text)."""
    return Grammar(text)


class GrammarChecker:
    """llama.cpp's grammar parser and matcher over a model's vocabulary, without a context.

    `GrammarChecker(llm)` reuses a loaded `LocalLLM` (or `llama_cpp.Llama`);
    `GrammarChecker.from_model_path(path)` loads only the vocabulary of a GGUF (fast, no weights).
    """

    def __init__(self, llm: Any) -> None:
        import llama_cpp

        self._llama = getattr(llm, "_llm", llm)  # LocalLLM wraps a llama_cpp.Llama
        self._c = llama_cpp
        self._vocab = llama_cpp.llama_model_get_vocab(self._llama.model)
        if not self._vocab:
            raise GrammarError("the model has no vocabulary")

    @classmethod
    def from_model_path(cls, path: Any = None) -> "GrammarChecker":
        from llama_cpp import Llama

        from kalma_graph.models.llm import resolve_model_path

        return cls(Llama(model_path=str(resolve_model_path(path)), vocab_only=True, verbose=False))

    def _sampler(self, text: str) -> Any:
        sampler = self._c.llama_sampler_init_grammar(self._vocab, text.encode("utf-8"), b"root")
        if not sampler:
            raise GrammarError("llama.cpp could not parse the grammar (see its log on stderr)")
        return sampler

    def validate(self, text: str) -> None:
        """Raise `GrammarError` unless llama.cpp parses `text`."""
        self._c.llama_sampler_free(self._sampler(text))

    def accepts(self, text: str, candidate: str, *, complete: bool = True) -> bool:
        """Whether the grammar accepts `candidate` token by token as the model would emit it;
        with `complete`, also whether it may end there (end-of-generation allowed)."""
        sampler = self._sampler(text)
        try:
            tokens = self._llama.tokenize(candidate.encode("utf-8"), add_bos=False, special=False)
            for token in tokens:
                if not self._allowed(sampler, token):
                    return False
                self._c.llama_sampler_accept(sampler, token)
            if complete:
                return self._allowed(sampler, self._c.llama_vocab_eos(self._vocab))
            return True
        finally:
            self._c.llama_sampler_free(sampler)

    def _allowed(self, sampler: Any, token: int) -> bool:
        data = (self._c.llama_token_data * 1)(self._c.llama_token_data(token, 0.0, 0.0))
        array = self._c.llama_token_data_array(data=data, size=1, selected=-1, sorted=False)
        self._c.llama_sampler_apply(sampler, ctypes.byref(array))
        return not math.isinf(data[0].logit)
