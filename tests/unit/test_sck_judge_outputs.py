"""The SCK judges' output models against the hand-written grammars they decode under: every string
the grammar lets the model write is read by the pydantic model (sampled from the grammar itself),
and what the grammar forbids (or what an unconstrained model writes) goes the lenient or missing way."""

from __future__ import annotations

import random
import re

import pytest
from pydantic import ValidationError

from kalma_graph.prompts import load_prompt
from kalma_graph.sck.base import INTENTS
from kalma_graph.sck.intent import parse_intent_output
from kalma_graph.sck.judge_outputs import MAX_RATIONALE, AttrJudgeOutput, IntentOutput
from kalma_graph.sck.judges import parse_attr_output

# --- a sampler for the GBNF subset the prompt files use ----------------------------------------------
# literals "…", classes […] / [^…], rule names, ( … ) groups, | alternatives, ? * + {m} {m,n}.

_TOKEN = re.compile(r'\s*(?:("(?:\\.|[^"\\])*")|(\[(?:\\.|[^\]\\])*\])|([A-Za-z][\w-]*)|(\()|(\))|(\|)'
                    r'|(\?|\*|\+|\{\d+(?:,\d*)?\}))')
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "/": "/", "]": "]", "[": "[", "-": "-"}
# Characters a negated class may give: printable ASCII, some non-ASCII, and a tab (a control character).
_POOL = [chr(c) for c in range(32, 127)] + ["é", "—", "中", "\t"]


def _unescape(body: str) -> list[str]:
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\" and body[i + 1] == "x":
            out.append(chr(int(body[i + 2:i + 4], 16)))
            i += 4
        elif body[i] == "\\":
            out.append(_ESCAPES[body[i + 1]])
            i += 2
        else:
            out.append(body[i])
            i += 1
    return out


def _class_chars(body: str) -> set[str]:
    """The characters of a class body, with ranges (`\\x00-\\x1F`) expanded."""
    chars = _unescape(body)
    out: set[str] = set()
    i = 0
    while i < len(chars):
        if i + 2 < len(chars) and chars[i + 1] == "-":
            out.update(chr(c) for c in range(ord(chars[i]), ord(chars[i + 2]) + 1))
            i += 3
        else:
            out.add(chars[i])
            i += 1
    return out


def _parse_grammar(text: str) -> dict[str, list]:
    rules: dict[str, list] = {}
    for line in text.strip().splitlines():
        name, body = line.split("::=", 1)
        tokens = [next(g for g in m.groups() if g is not None) for m in _TOKEN.finditer(body) if m.group().strip()]
        rules[name.strip()], rest = _alternatives(tokens)
        assert not rest, f"unparsed {rest} in rule {name}"
    return rules


def _alternatives(tokens: list[str]) -> tuple[list, list[str]]:
    alts, seq = [], []
    while tokens and tokens[0] != ")":
        token, tokens = tokens[0], tokens[1:]
        if token == "|":
            alts.append(seq)
            seq = []
            continue
        if token == "(":
            item, tokens = _alternatives(tokens)
            tokens = tokens[1:]  # ")"
            item = ("alt", item)
        elif token.startswith('"'):
            item = ("lit", "".join(_unescape(token[1:-1])))
        elif token.startswith("["):
            negated = token.startswith("[^")
            item = ("class", negated, _class_chars(token[2 if negated else 1:-1]))
        else:
            item = ("ref", token)
        low, high = 1, 1
        if tokens and re.fullmatch(r"\?|\*|\+|\{\d+(?:,\d*)?\}", tokens[0]):
            q, tokens = tokens[0], tokens[1:]
            low, high = {"?": (0, 1), "*": (0, 3), "+": (1, 3)}.get(q, (None, None))
            if low is None:
                m, _, n = q[1:-1].partition(",")
                low, high = int(m), int(n) if n else int(m) + 3
        seq.append((item, low, high))
    alts.append(seq)
    return alts, tokens


def _sample(rules: dict[str, list], alts: list, rng: random.Random, extremes: bool) -> str:
    out = []
    for item, low, high in rng.choice(alts):
        count = rng.choice([low, high]) if extremes else rng.randint(low, min(high, low + 60))
        for _ in range(count):
            kind = item[0]
            if kind == "lit":
                out.append(item[1])
            elif kind == "class":
                _, negated, chars = item
                out.append(rng.choice([c for c in _POOL if (c in chars) != negated] if negated else sorted(chars)))
            elif kind == "ref":
                out.append(_sample(rules, rules[item[1]], rng, extremes))
            else:
                out.append(_sample(rules, item[1], rng, extremes))
    return "".join(out)


def _kg_attr_grammar(n_triplets: int) -> dict[str, list]:
    # as LLMAttributionJudge.grammar builds it: the prompt's rules plus `number` for this call
    numbers = " | ".join(f'"{k}"' for k in range(1, n_triplets + 1))
    return _parse_grammar(load_prompt("sck/kg_attr")["grammar"] + f"number ::= {numbers}\n")


def _samples(rules: dict[str, list], count: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [_sample(rules, rules["root"], rng, extremes=k % 4 == 0) for k in range(count)]


# --- the kg_attr judge -------------------------------------------------------------------------------


@pytest.mark.parametrize("n_triplets", [1, 3, 40])
def test_every_kg_attr_grammar_output_is_read_by_the_model(n_triplets):
    samples = _samples(_kg_attr_grammar(n_triplets), 300, seed=n_triplets)
    assert not any(re.search(r"[\x00-\x1f]", s) for s in samples)  # v2: no raw control character
    assert any(len(s) > MAX_RATIONALE for s in samples)  # the bounds were reached
    for text in samples:
        out = AttrJudgeOutput.read(text, n_triplets)
        assert all(1 <= k <= n_triplets for k in out.relevant_triplets) and len(out.relevant_triplets) <= 5
        label, _, numbers, reason = parse_attr_output(text, n_triplets)
        assert reason is None and label in (1, 0, -1) and numbers == list(dict.fromkeys(out.relevant_triplets))


def test_a_raw_control_character_in_the_rationale_is_not_json_but_the_decision_is_still_read():
    """The grammar (prompt v2) keeps every control character out of the rationale; v1 let a raw tab
    through. Unconstrained output with one is still not JSON, and the lenient reading keeps the decision."""
    text = '{"decision": "Contradictory", "relevant_triplets": [1], "rationale": "a\tb"}'
    with pytest.raises(ValidationError):
        AttrJudgeOutput.read(text, 1)
    assert parse_attr_output(text, 1) == (-1, "", [], None)


@pytest.mark.parametrize("text, problem", [
    ('{"decision": "Attributable", "relevant_triplets": [4], "rationale": "x"}', "not among the 3 listed"),
    ('{"decision": "Attributable", "relevant_triplets": [0], "rationale": "x"}', "not among the 3 listed"),
    ('{"decision": "Supports", "relevant_triplets": [], "rationale": "x"}', "decision"),
    ('{"decision": "Attributable", "relevant_triplets": [1, 2, 3, 1, 2, 3], "rationale": "x"}', "at most 5"),
    ('{"decision": "Attributable", "relevant_triplets": [], "rationale": "' + "x" * 401 + '"}', "at most 400"),
    ('{"decision": "Attributable", "relevant_triplets": [1], "rationale": "x", "extra": 1}', "extra"),
    ('{"decision": "Attributable", "relevant_triplets": [1], "rationale": "The trip', "Invalid JSON"),
    ("Decision: Supports", "Invalid JSON"),
])
def test_outputs_outside_the_grammar_are_validation_errors(text, problem):
    with pytest.raises(ValidationError, match=re.escape(problem)):
        AttrJudgeOutput.read(text, 3)


def test_out_of_range_numbers_fall_back_to_the_lenient_reading_which_drops_them():
    text = '{"decision": "Extrapolatory", "relevant_triplets": [2, 9], "rationale": "No link."}'
    assert parse_attr_output(text, 3) == (0, "No link.", [2], None)
    assert parse_attr_output("not json, no decision", 3)[3] == "no decision found in the judge output"


# --- the intent classifier ---------------------------------------------------------------------------


def test_every_intent_grammar_output_is_read_by_the_model():
    rules = _parse_grammar(load_prompt("sck/intent_llm")["grammar"])
    samples = set(_samples(rules, 200))
    assert {IntentOutput.read(s).intent for s in samples} == set(INTENTS)  # every intent, each one read
    assert all(parse_intent_output(s) == (IntentOutput.read(s).intent, None) for s in samples)


@pytest.mark.parametrize("text", ['{"intent": "Comparison"}', '{"intent": "joke"}', "comparison", "{}"])
def test_intent_outputs_outside_the_grammar_are_validation_errors(text):
    with pytest.raises(ValidationError):
        IntentOutput.read(text)
