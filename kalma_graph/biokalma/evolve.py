"""Evolutionary question generation (BioKaLMA, seed 000, Appendix A.3, Tables 9–12, Table 18).

One entry from a resolved pair and its knowledge pool:

1. **round 1** annotates the seed sentence with pool knowledge: the statements behind the resolved
   link always (the seed sentence states them), plus — with `annotate="llm"` — what the model
   labels with the Table 9 prompt, kept only when it is a pool triple whose value the sentence
   mentions (and is not one of the persons' own names). Matching values against the sentence
   without the model was tried and rejected: "London" in "born in London" also matched the
   father's place of death;
2. **rounds 2..R** (R = 5 in the paper) each score every candidate pool triple by eq. 1
   (`scoring.py`; perplexities from the local GGUF model's logprobs), take the best, and let the
   model write one sentence with it (Table 10 prompt); a sentence that does not mention the
   triple's value, or no sentence, is replaced by the triple's template sentence (counted);
3. the model writes a general and a specific question about the final paragraph (Tables 11, 12);
   an answer with no question, or one that names neither person, falls back to a template question
   (counted).

Everything is seeded: candidates are scored in pool order, ties keep that order, and every model
call gets a seed derived from (seed, entry id, step) with temperature 0 by default.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping, Protocol, Sequence

from kalma_graph.generation.grammar import gbnf_literal, llama_grammar
from kalma_graph.kg.citation_marks import locate_marks
from kalma_graph.kg.hypothesis import pos_sentence
from kalma_graph.kg.triples import Triple
from kalma_graph.models.llm import GenerationParams
from kalma_graph.models.protocols import Generator, PerplexityScorer
from kalma_graph.prompts import load_prompt
from kalma_graph.text.sentences import split_sentences  # the one splitter (checks.py imports it from here)

from .consistency import gold_asked_share, question_gold
from .disambiguation import Resolution
from .pairs import PERSON_RELATIONS
from .pool import DEFAULT_EXCLUDED_PIDS, Pool
from .scoring import DEFAULT_ALPHA, rank
from .templates import fallback_question, prompt_facts

PROMPTS = ("biokalma/annotate", "biokalma/extend", "biokalma/question_general", "biokalma/question_specific",
           "biokalma/seed_sentences")
PERPLEXITY_SCOPES = ("paragraph", "sentence")
ANNOTATE_MODES = ("link", "llm")


class LanguageModel(Generator, PerplexityScorer, Protocol):
    """What evolution needs from a model: it writes sentences and questions and scores eq. 1's perplexities."""


@dataclass(frozen=True)
class EvolveConfig:
    rounds: int = 5  # round 1 (annotation) + rounds 2..rounds
    alpha: float = DEFAULT_ALPHA
    seed: int = 0
    temperature: float = 0.0
    perplexity_scope: str = "paragraph"  # perplexity of the extended paragraph, or of the new sentence given it
    annotate: str = "link"  # round 1: "link" (the resolved link's statements) or "llm" (+ the model's Table 9
    # annotations that are pool triples the sentence mentions)
    require_mention: bool = True  # an LLM sentence must mention the value, else the template sentence is used
    # What "mention" means (recorded in the provenance, so entries built under other rules are not mixed):
    # "v6" = v5, and a specific question must be consistent with the gold set and ask for enough of it
    # (`question_rejection`, the prompt's `min_gold_asked`), else the entry is dropped;
    # "v5" = v4, and a question repeating five words of a demonstration's question, or longer than
    # the prompt's `max_words`, is not kept (`keeps_question`);
    # "v4" = v3, and a question cut off by its token limit is never kept (under the naming grammar
    # the 1.5B model looped, "… who lived in Germany and Germany respectively, and …", until cut);
    # "v3" = v2, and a question names each person by a word the other's name lacks (not a shared
    # surname); "v2" = the value in any word form ("German" for "Germans", "Jewish" for "Jews") and
    # the triple's subject named; "v1" was the exact value only.
    acceptance: str = "v6"
    max_candidates: int | None = None  # None: every pool triple is scored (eq. 1 as written); K: the K most
    # specific ones and all tied with the K-th
    excluded_pids: tuple[str, ...] = DEFAULT_EXCLUDED_PIDS
    record_candidates: bool = False  # keep every candidate's (pid, Count_r, perp_r) per round (analysis of α)

    def __post_init__(self) -> None:
        if self.rounds < 1:
            raise ValueError("rounds must be at least 1")
        if not 0.0 <= self.alpha <= 1.0:
            raise ValueError("alpha must be in [0, 1]")
        if self.perplexity_scope not in PERPLEXITY_SCOPES:
            raise ValueError(f"perplexity_scope must be one of {PERPLEXITY_SCOPES}")
        if self.annotate not in ANNOTATE_MODES:
            raise ValueError(f"annotate must be one of {ANNOTATE_MODES}")
        if self.max_candidates is not None and self.max_candidates < 1:
            raise ValueError("max_candidates must be positive")

    def as_dict(self) -> dict:
        return asdict(self) | {"excluded_pids": list(self.excluded_pids)}


# --- prompts -------------------------------------------------------------------------------------


def chat_messages(prompt: Mapping[str, Any], **fields: str) -> list[dict[str, str]]:
    """Few-shot chat: each demonstration as a user turn and its output as the assistant's turn."""
    messages: list[dict[str, str]] = []
    if prompt.get("system"):
        messages.append({"role": "system", "content": prompt["system"]})
    for demo in prompt.get("demos", []):
        shown = {k: v for k, v in demo.items() if k != "output"}
        messages.append(
            {"role": "user", "content": prompt["template"].format(instruction=_instruction(prompt, shown), **shown)})
        messages.append({"role": "assistant", "content": demo["output"]})
    messages.append(
        {"role": "user", "content": prompt["template"].format(instruction=_instruction(prompt, fields), **fields)})
    return messages


def _instruction(prompt: Mapping[str, Any], fields: Mapping[str, str]) -> str:
    """The instruction with its `{subject}` filled (instructions may hold literal braces elsewhere)."""
    return prompt["instruction"].replace("{subject}", fields.get("subject", "{subject}"))


def call_seed(seed: int, *parts: object) -> int:
    """A per-call seed derived from the run seed and where the call happens."""
    text = "\x1f".join([str(seed), *map(str, parts)])
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=4).digest(), "big") & 0x7FFFFFFF


def knowledge_text(triple: Triple, name: str) -> str:
    """Table 10's knowledge form: `{qid: Q212657, name: Artemisia Gentileschi, notable works: …}`."""
    return f"{{qid: {triple.subject}, name: {name}, {triple.label}: {triple.value}}}"


# --- cleaning model output -----------------------------------------------------------------------

_BRACKET_RE = re.compile(r"\s*\[[^\[\]]*\]")
_LEAD_RE = re.compile(
    r"^\s*(?:[\"'*#>\-]+\s*)?(?:generated (?:answer|question)|new sentence|sentence|question|answer|output)\s*:\s*",
    re.I)
_ISO_DATE_RE = re.compile(r"^[+-]?(\d{1,4})-\d{2}-\d{2}")


def clean_sentence(text: str, paragraph: str) -> str:
    """The one new sentence of an extension answer: no labels, annotations, quotes or repeats of
    the paragraph's sentences; "" when nothing usable is left."""
    text = text.strip()
    if text.startswith(paragraph.strip()):  # the model copied the paragraph back (the paper's format)
        text = text[len(paragraph.strip()):]
    lines = [line for line in text.splitlines() if line.strip()]
    text = _LEAD_RE.sub("", lines[0]) if lines else ""
    text = _BRACKET_RE.sub("", text)
    text = " ".join(text.split()).strip(" \"'*")
    known = {_sentence_key(s) for s in split_sentences(paragraph)}
    for sentence in split_sentences(text):
        sentence = sentence.strip(" \"'*")
        if not any(ch.isalpha() for ch in sentence) or _sentence_key(sentence) in known:
            continue
        return sentence if sentence[-1] in ".!?" else sentence + "."
    return ""


def _sentence_key(sentence: str) -> str:
    return " ".join(sentence.casefold().split()).rstrip(".!? ")


def mentions(text: str, value: str) -> bool:
    """Does `text` mention `value`? Case-insensitive substring; an ISO date counts when its year
    appears; `Name (qualifier)` counts when `Name` appears; otherwise every content word of the
    value must appear in some word form (a shared stem: "German" for "Germans", "Jewish" for
    "American Jews").

    >>> mentions("Friedrich Schiller was a German.", "Germans"), mentions("an American Jewish writer", "American Jews")
    (True, True)
    >>> mentions("Philip Roth taught in Pennsylvania.", "University of Pennsylvania")
    False
    """
    haystack = " ".join(text.casefold().split())
    needle = " ".join(value.casefold().split())
    if not needle:
        return False
    if needle in haystack:
        return True
    date = _ISO_DATE_RE.match(needle)
    if date:
        return re.search(rf"\b{int(date.group(1))}\b", haystack) is not None
    main = needle.split(" (", 1)[0].strip()
    if main and main != needle and main in haystack:
        return True
    wanted = [w for w in re.findall(r"[^\W\d_]{3,}", main) if w not in _FUNCTION_WORDS]
    words = re.findall(r"[^\W\d_]+", haystack)
    return bool(wanted) and all(any(_same_stem(w, t) for t in words) for w in wanted)


_FUNCTION_WORDS = frozenset("the and for with from of".split())


def _same_stem(a: str, b: str) -> bool:
    """Two word forms of one word: they share all but the last two letters of the shorter (at
    least three): german/germans, jews/jewish, russian/russians."""
    stem = max(3, min(len(a), len(b)) - 2)
    return len(a) >= 3 and len(b) >= 3 and a[:stem] == b[:stem]


def clean_question(text: str) -> str:
    """The question of a question-generation answer, "" when there is none."""
    for line in text.strip().splitlines():
        line = _LEAD_RE.sub("", line).strip().strip("\"'*#").strip()
        if not line:
            continue
        if "?" in line:
            line = line[: line.index("?") + 1]
        elif line[-1] in ".!":
            line = line[:-1] + "?"
        else:
            line += "?"
        return line if len(line.split()) >= 3 else ""
    return ""


def _states(sentence: str, value: str, subject: str, require_mention: bool, names: Sequence[str] = ()) -> bool:
    """Whether a model's sentence may stand for a triple: it exists and, unless checks are off,
    mentions the value and names the triple's subject (a paragraph about two persons needs that;
    with the pair's `names`, by a word the other person's name lacks)."""
    if not sentence:
        return False
    if not require_mention:
        return True
    return mentions(sentence, value) and names_person(sentence, subject, [n for n in names if n != subject])


def names_both(question: str, names: Sequence[str]) -> bool:
    """Does the question name each of the persons? Answering retrieves only the persons a question
    names, so a question naming one leaves the other's gold unreachable. A word the two names share
    (the surname of a father and his son) names neither: each person is named by a word of their
    own name that the other's lacks, when there is one.

    >>> names_both("How did Henry James influence John Updike?", ["John Updike", "Henry James"])
    True
    >>> names_both("Who influenced John Updike?", ["John Updike", "Henry James"])
    False
    >>> names_both("Who was John Huston?", ["Walter Huston", "John Huston"])
    False
    >>> names_both("Was Kim Jong-un the son of Kim Jong-il?", ["Kim Jong-il", "Kim Jong-un"])
    True
    """
    return len(names) == 2 and persons_named_in(question, names) == 2


def naming_grammar(names: Sequence[str]) -> str:
    """GBNF for one line that names both persons by their full names, in either order, each at the
    start or after a space, and ends at its first question mark.

    >>> print(naming_grammar(["Henry James", 'Al "Bird" Parker']))
    root ::= ( free " " )? ( a free " " b | b free " " a ) free "?"
    free ::= [^\\n?]*
    a ::= "Henry James"
    b ::= "Al \\"Bird\\" Parker"
    """
    if len(names) != 2:
        raise ValueError("naming_grammar takes two names")
    return "\n".join([
        'root ::= ( free " " )? ( a free " " b | b free " " a ) free "?"',
        "free ::= [^\\n?]*",
        f"a ::= {gbnf_literal(names[0])}",
        f"b ::= {gbnf_literal(names[1])}",
    ])


_PRONOUNS = {"her": "his", "she": "he", "hers": "his", "him": "his", "their": "his", "its": "his", "they": "he"}


def echoes_demo(question: str, prompt: Mapping[str, Any], n: int = 5) -> bool:
    """Does the question repeat `n` consecutive words of a demonstration's question (case and
    pronouns folded)? A small model otherwise answers every paragraph with the demonstration's
    question and the names swapped in, keeping facts that belong to the demonstration.

    >>> prompt = {"demos": [{"output": "How did her relationship with her father shape her art?"}]}
    >>> echoes_demo("How did his relationship with his father shape his career?", prompt)
    True
    >>> echoes_demo("How did Henry James shape the novels of John Updike?", prompt)
    False
    """
    def grams(text: str) -> set[tuple[str, ...]]:
        words = [_PRONOUNS.get(w, w) for w in re.findall(r"[\w']+", text.casefold())]
        return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}

    mine = grams(question)
    return any(mine & grams(demo.get("output", "")) for demo in prompt.get("demos", []))


def keeps_question(question: str, out: Any, names: Sequence[str], prompt: Mapping[str, Any]) -> bool:
    """A model question is kept when it names both persons, ended before its token limit, has at
    most the prompt's `max_words` words and does not echo a demonstration (acceptance v5)."""
    return form_fault(question, out, names, prompt) is None


def form_fault(question: str, out: Any, names: Sequence[str], prompt: Mapping[str, Any]) -> str | None:
    """What `keeps_question` refuses a question for, or None."""
    if not question:
        return "no question"
    if not names_both(question, names):
        return "names one person or none"
    if getattr(out, "finish_reason", "stop") == "length":
        return "cut off at the token limit"
    if len(question.split()) > int(prompt.get("max_words", 10**6)):
        return f"over {prompt['max_words']} words"
    if echoes_demo(question, prompt):
        return "echoes a demonstration"
    return None


def question_rejection(question: str, out: Any, names: Sequence[str], prompt: Mapping[str, Any],
                       entry: Mapping[str, Any], graph: Sequence[Triple], kind: str) -> str | None:
    """Why a question is not kept, or None. Every question: `keeps_question` (`out` None: a template
    question, whose form is ours). A specific question, when its prompt sets `min_gold_asked` (acceptance
    v6): it must also be consistent with the entry's gold set (`consistency.question_gold`: every fact it
    asks has a gold triple, each person named exactly once) and ask for at least that share of the set; a
    model's question must also name each relation it asks by its label or noun (a cue word such as "die" or
    "grow up" may mean a relation the set lacks: 3 of 4 model questions read by hand that passed the
    looser check asked such) and name no value of the set (an answer handed over, or a third person's fact asked:
    "which of them is older sibling of Michael Jackson"). Such reasons start with "gold:"."""
    fault = form_fault(question, out, names, prompt) if out is not None else None
    if fault:
        return f"form: {fault}"
    if kind == "general" and prompt.get("check_gold") and out is not None:
        # A general question asks nothing the gold set lacks and names each person once: two annotators found
        # 4 of 30 model questions incoherent, each asking against the set ("How did Pushkin's romanticism
        # influence Keats's ...", the influence reversed; "What are the names of Sharon Osbourne and Kelly
        # Osbourne?"; "Which two individuals were influenced by Goethe and Schiller?").
        # A question presupposing a value both share that the set does not hold asks for what does not exist (an
        # annotator's 0 in the rebuild: "Which record label influenced the careers of both Miley Cyrus and Lil' Kim?").
        row = question_gold({**entry, "general_question": question}, graph, kind="general")
        return _misnamed(row) or _unheld(row) or _unshared(row)
    if kind != "specific" or "min_gold_asked" not in prompt:
        return None
    row = question_gold({**entry, "specific_question": question}, graph)
    if _misnamed(row):
        return _misnamed(row)
    if not row["facts"]:
        return "gold: asks nothing of the graph"
    if row["judging"]:
        return "gold: asks a judgement no triple holds: " + ", ".join(row["judging"])
    if row["unheld"]:
        return _unheld(row)
    if out is not None and row["loose"]:  # a model's paraphrase: "where did he die" may be burial or death
        return "gold: reads a relation by a cue word only: " + "; ".join(f"{s} {r}" for s, r in row["loose"])
    if out is not None and row["values_named"]:
        return "gold: names a value of the set: " + "; ".join(row["values_named"])
    share = gold_asked_share(row)
    if share < float(prompt["min_gold_asked"]):
        return f"gold: asks {row['gold_asked']} of {row['gold']} gold triples"
    return None


def _misnamed(row: Mapping[str, Any]) -> str | None:
    wrong = [f"{name} ×{n}" for name, n in row["named"].items() if n != 1]
    return "gold: names a person not once: " + ", ".join(wrong) if wrong else None


def _unshared(row: Mapping[str, Any]) -> str | None:
    return "gold: presupposes a value both share: " + ", ".join(row["unshared"]) if row["unshared"] else None


def _unheld(row: Mapping[str, Any]) -> str | None:
    return ("gold: asks what its gold set lacks: " + "; ".join(f"{s} {r}" for s, r, _ in row["unheld"])
            if row["unheld"] else None)


def question_attempts(prompt: Mapping[str, Any], names: Sequence[str]) -> list[tuple[str, float | None, str | None]]:
    """(source, temperature, grammar) of each try at a question that names both persons, in order:
    the run's own decoding; then, as the prompt's `second_tries` say, `samples` draws at
    `temperature` (the chat prefix is cached, so a draw costs about a second on 2 cores); then one
    greedy decoding under `naming_grammar`. Probed on 13 paragraphs with Qwen2.5-1.5B: greedy named
    both persons in 4 general questions, draws in 4 more; the grammar names them always but may
    append the second name awkwardly or loop until the token limit (such a question is never kept,
    acceptance v4), hence last."""
    if prompt.get("model") is False:  # the template question only (specific questions since prompt v9)
        return []
    tries = prompt.get("second_tries") or {}
    out: list[tuple[str, float | None, str | None]] = [("llm", None, None)]
    if tries.get("samples"):
        out += [("llm-sampled", float(tries["temperature"]), None)] * int(tries["samples"])
    if tries.get("grammar"):
        out.append(("llm-constrained", None, naming_grammar(names)))
    return out


def persons_named_in(text: str, names: Sequence[str]) -> int:
    """How many of the persons `text` names (`names_person`, each against all the others)."""
    return sum(names_person(text, name, [n for j, n in enumerate(names) if j != i]) for i, name in enumerate(names))


def names_person(text: str, name: str, others: Sequence[str] = ()) -> bool:
    """Does `text` name the person `name`: by a word of the name that none of `others` holds, when
    there is one (so a shared surname names nobody), else by a shared word of 3+ letters?"""
    own = _name_words(name)
    theirs = set().union(*map(_name_words, others))
    distinct = (own - theirs) or own
    folded = text.casefold()
    return any(re.search(rf"\b{re.escape(w)}\b", folded) for w in distinct if len(w) >= 3 or w not in theirs)


def _name_words(name: str) -> set[str]:
    return set(re.findall(r"[^\W\d_]{2,}", name.casefold()))


def parse_annotations(text: str, pool: Pool) -> list[Triple]:
    """Pool triples cited in a Table 9 style annotation (`[qid: Q1, place of birth: Rome]`);
    anything the pool does not hold is dropped."""
    props: dict[str, set[str]] = {}
    pairs: dict[str, set[tuple[str, str]]] = {}
    for t in pool.triples:
        props.setdefault(t.subject, set()).add(t.label)
        pairs.setdefault(t.subject, set()).add((t.label, t.value))
    index = {(t.subject, t.label.casefold(), " ".join(t.value.casefold().split())): t for t in pool.triples}
    marks, _ = locate_marks(text, props, pairs)
    found: list[Triple] = []
    for mark in marks:
        for citation in mark.citations:
            key = (citation.qid, " ".join(citation.prop.replace("_", " ").casefold().split()),
                   " ".join(citation.value.casefold().split()))
            triple = index.get(key)
            if triple is not None and triple not in found:
                found.append(triple)
    return found


# --- perplexity -----------------------------------------------------------------------------------


def continuation_logprobs_many(llm: Any, prefix: str, continuations: Sequence[str]) -> list[list[float]]:
    """`llm.continuation_logprobs(prefix, c)` for every `c`: through the model's batch form when it
    has one (`LocalLLM.continuation_logprobs_many` evaluates the prefix once), else one call each."""
    many = getattr(llm, "continuation_logprobs_many", None)
    if many is not None:
        return many(prefix, continuations)
    return [llm.continuation_logprobs(prefix, c) for c in continuations]


class Perplexity:
    """Perplexities of `paragraph + " " + sentence` for many sentences (eq. 1's `perp_r`).

    scope `paragraph` (default, as the paper words it): perplexity of the whole extended paragraph,
    `exp(−(log P(paragraph) + log P(sentence | paragraph)) / (n_paragraph + n_sentence))`, where the
    paragraph's first token (or BOS, where the model adds one) is its context;
    scope `sentence`: perplexity of the new sentence given the paragraph. A model with
    `scored_extensions` (`LocalLLM`) gives `log P(paragraph)` from the same evaluation of the
    paragraph that conditions the sentences; otherwise it is computed once per round."""

    def __init__(self, llm: LanguageModel, scope: str = "paragraph") -> None:
        self.llm = llm
        self.scope = scope
        self.calls = 0
        self.tokens = 0

    def _scored(self, paragraph: str, continuations: list[str]) -> tuple[list[float], list[list[float]]]:
        both = getattr(self.llm, "scored_extensions", None)
        if both is not None:
            return both(paragraph, continuations)
        head, _, tail = paragraph.partition(" ")
        own = self.llm.continuation_logprobs(head, " " + tail) if tail and self.scope == "paragraph" else []
        return own, continuation_logprobs_many(self.llm, paragraph, continuations)

    def __call__(self, paragraph: str, sentences: Sequence[str]) -> list[float]:
        own, all_lps = self._scored(paragraph, [" " + s for s in sentences])
        self.calls += len(sentences)
        base_sum, base_n = (float(sum(own)), len(own)) if self.scope == "paragraph" else (0.0, 0)
        out = []
        for lps in all_lps:
            if not lps:
                raise ValueError("a template sentence produced no tokens to score")
            self.tokens += len(lps)
            out.append(math.exp(-(base_sum + sum(lps)) / (base_n + len(lps))))
        return out


# --- one entry ------------------------------------------------------------------------------------


def fresh_context(llm: Any) -> None:
    """Forget the writer's cached prompt prefix, so that an entry's generations do not depend on
    which entry came before (llama.cpp reuses the previous call's KV cache for a shared prefix, and a
    prefix evaluated in another batch layout may differ in the last bits): a resumed run then writes
    the same entries as an uninterrupted one."""
    reset = getattr(llm, "reset", None)  # a model server keeps its own cache: nothing to forget here
    if callable(reset):
        reset()



@dataclass
class EntryStats:
    llm_calls: int = 0
    truncated: int = 0
    template_sentences: int = 0
    fallback_questions: int = 0
    scored_candidates: int = 0
    repaired_sentences: int = 0  # second tries asked for (`repair` in the prompt file)
    repaired_questions: int = 0
    regenerated_questions: int = 0  # questions drawn again after one failed the gold check
    dropped: str | None = None  # why the entry is not kept (its template question fails the gold check too)
    # Where an entry's time goes (issue 13): kept out of the entry, which must not differ between an
    # interrupted and an uninterrupted build; `build.py` writes them to the timings sidecar.
    seconds: dict[str, float] = field(default_factory=lambda: {"scoring": 0.0, "writing": 0.0, "questions": 0.0})
    scored_tokens: int = 0


def gold_item(triple: Triple, round_no: int, source: str) -> dict:
    return {
        "qid": triple.subject,
        "property": triple.label,
        "value": triple.value,
        "pid": triple.pid,
        "object_id": triple.object_id,
        "round": round_no,
        "source": source,
    }


def evolve_entry(
    llm: LanguageModel,
    resolution: Resolution,
    pool: Pool,
    counts: Mapping[str, int],
    n: int,
    config: EvolveConfig = EvolveConfig(),
    *,
    scorer_llm: LanguageModel | None = None,
) -> dict:
    """Build one dataset entry (without provenance). `counts[pid]` is `Count_r` over the `n`
    entries of the dataset being built (`scoring.relation_counts`).

    `llm` writes (chat); `scorer_llm` (default: `llm`) gives the perplexities and must keep every
    position's logits (`load_llm(logits=True)`). Two instances of the same GGUF are faster: scoring
    resets the llama.cpp context, which would throw away the chat prompt's cached prefix."""
    fresh_context(llm)
    entry = _Entry(llm, resolution, pool, config, Perplexity(scorer_llm or llm, config.perplexity_scope))
    entry.round_one()
    for round_no in range(2, config.rounds + 1):
        if not entry.extend(round_no, counts, n):
            break
    entry.ask_questions()
    return entry.as_dict()


class _Entry:
    """One entry as the evolution builds it: its paragraph, the triples chosen round by round, its questions."""

    def __init__(self, llm: LanguageModel, resolution: Resolution, pool: Pool, config: EvolveConfig,
                 scorer: Perplexity) -> None:
        self.llm, self.resolution, self.pool, self.config, self.scorer = llm, resolution, pool, config, scorer
        self.stats = EntryStats()
        self.paragraph = resolution.pair.sentence
        self.chosen: list[Triple] = []
        self.gold: list[dict] = []
        self.rounds: list[dict] = []
        assert resolution.a_id is not None and resolution.b_id is not None  # only resolved pairs are evolved
        self.ids = (resolution.a_id, resolution.b_id)
        self.names = (pool.name_of(resolution.a_id), pool.name_of(resolution.b_id))
        self.questions: dict[str, str] = {}
        self.question_info: dict[str, dict] = {}

    def ask(self, prompt_name: str, step: str, repair: str | None = None, grammar: str | None = None,
            temperature: float | None = None, **fields: str):
        """One chat call; with `repair`, the model's first answer and the prompt's `repair` request
        (formatted with `fields`) follow as a second exchange, so the prefix stays cached; with
        `grammar` (GBNF text), decoding is held to it; `temperature` overrides the run's."""
        prompt, config, stats = load_prompt(prompt_name), self.config, self.stats
        params = GenerationParams(max_tokens=int(prompt.get("max_tokens", 128)),
                                  temperature=config.temperature if temperature is None else temperature,
                                  seed=call_seed(config.seed, self.resolution.entry_id, step))
        messages = chat_messages(prompt, **fields)
        if repair is not None:
            messages += [{"role": "assistant", "content": repair},
                         {"role": "user", "content": prompt["repair"].format(**fields)}]
        t0 = time.perf_counter()
        llm = self.llm
        out = llm.chat(messages, params, grammar=llama_grammar(grammar)) if grammar else llm.chat(messages, params)
        stats.seconds["questions" if step.startswith("question") else "writing"] += time.perf_counter() - t0
        stats.llm_calls += 1
        stats.truncated += int(getattr(out, "finish_reason", "stop") == "length")
        return out

    def round_one(self) -> None:
        """The statements behind the resolved link; with `annotate="llm"`, the model's annotations of the seed
        sentence that are pool triples it mentions."""
        pool, config, paragraph = self.pool, self.config, self.paragraph
        for triple in pool.link_triples(self.resolution):
            self.chosen.append(triple)
            self.gold.append(gold_item(triple, 1, "link"))
        if config.annotate == "llm":
            out = self.ask("biokalma/annotate", "annotate", sentence=paragraph, knowledge=pool.knowledge_blocks())
            own_names = " ".join(p.name or "" for p in pool.persons)
            for triple in parse_annotations(out.text, pool):
                if (triple in self.chosen or triple.pid in config.excluded_pids or not mentions(paragraph, triple.value)
                        or mentions(own_names, triple.value)):
                    continue
                self.chosen.append(triple)
                self.gold.append(gold_item(triple, 1, "annotation"))

    def extend(self, round_no: int, counts: Mapping[str, int], n: int) -> bool:
        """Round `round_no`: eq. 1 picks the next triple, the model writes a sentence stating it (else its template
        sentence). False when no candidate is left."""
        pool, config, stats = self.pool, self.config, self.stats
        candidates = pool.candidates(self.chosen, config.excluded_pids)
        if config.max_candidates is not None and len(candidates) > config.max_candidates:
            # Keep the most specific ones: the K rarest relations' triples and every triple tied with
            # the K-th (coherence decides between equally specific ones, so a tie is never split).
            cutoff = sorted(counts[t.pid] for t in candidates)[config.max_candidates - 1]
            candidates = [t for t in candidates if counts[t.pid] <= cutoff]
        if not candidates:
            return False
        templates = [pos_sentence(pool.name_of(t.subject), t.label, t.value) for t in candidates]
        t0 = time.perf_counter()
        perps = self.scorer(self.paragraph, templates)
        stats.seconds["scoring"] += time.perf_counter() - t0
        best = rank([counts[t.pid] for t in candidates], perps, n, config.alpha)[0]
        triple = candidates[best.index]
        stats.scored_candidates += len(candidates)
        sentence, source, out = self.sentence_for(triple, templates[best.index], round_no)
        self.paragraph = f"{self.paragraph} {sentence}"
        self.chosen.append(triple)
        self.gold.append(gold_item(triple, round_no, "eq1"))
        self.rounds.append({
            "round": round_no,
            "triple": [triple.subject, triple.label, triple.value],
            "pid": triple.pid,
            "candidates": len(candidates),
            "count": counts[triple.pid],
            "specificity": round(best.specificity, 6),
            "coherence": round(best.coherence, 6),
            "perplexity": round(best.perplexity, 4),
            "score": round(best.score, 6),
            "template": templates[best.index],
            "sentence": sentence,
            "sentence_source": source,
            "raw": out.text,
            "finish_reason": getattr(out, "finish_reason", "stop"),
        })
        if config.record_candidates:
            self.rounds[-1]["scored"] = [[t.pid, counts[t.pid], round(p, 4)] for t, p in zip(candidates, perps)]
        return True

    def sentence_for(self, triple: Triple, template: str, round_no: int) -> tuple[str, str, Any]:
        """The model's sentence stating `triple` (one repaired second try), else the template sentence; with its
        source and the model's last output."""
        subject = self.pool.name_of(triple.subject)
        fields = {"paragraph": self.paragraph, "knowledge": knowledge_text(triple, subject), "fact": template,
                  "subject": subject}
        # (mypy reads **fields as possibly holding `temperature`; they are the prompt's text fields)
        out = self.ask("biokalma/extend", f"extend-{round_no}", **fields)  # type: ignore[arg-type]
        sentence = clean_sentence(out.text, self.paragraph)
        source = "llm"
        if not _states(sentence, triple.value, subject, self.config.require_mention, self.names) \
                and "repair" in load_prompt("biokalma/extend"):
            # One second try in the same conversation: say what the sentence lacked.
            out = self.ask("biokalma/extend", f"extend-{round_no}-repair", repair=out.text,
                           **fields)  # type: ignore[arg-type]
            sentence = clean_sentence(out.text, self.paragraph)
            source = "llm-repaired"
            self.stats.repaired_sentences += 1
        if not _states(sentence, triple.value, subject, self.config.require_mention, self.names):
            sentence, source = template, "template"
            self.stats.template_sentences += 1
        return sentence, source, out

    def ask_questions(self) -> None:
        """The general and the specific question: the model's until one passes the gold check, else the template
        question (and when even that fails, the entry is dropped)."""
        resolution, names, gold, stats = self.resolution, self.names, self.gold, self.stats
        ids = {self.ids[0]: names[0], self.ids[1]: names[1]}
        facts = prompt_facts(ids, [(g["qid"], g["property"]) for g in gold])
        view = {"id": resolution.entry_id, "qids": [resolution.a_id, resolution.b_id], "names": list(names),
                "minimum_knowledge_set": gold}
        for kind in ("general", "specific"):
            prompt_name = f"biokalma/question_{kind}"
            prompt = load_prompt(prompt_name)
            out, question, source, attempts = None, "", "fallback", 0
            rejected: list[str] = []
            # `source` outlives the loop: it names the attempt kept (the else branch overrides it)
            for source, temperature, grammar in question_attempts(prompt, names):  # noqa: B007
                step = f"question-{kind}" + (f"-{attempts}" if attempts else "")
                out = self.ask(prompt_name, step, temperature=temperature, grammar=grammar,
                               paragraph=self.paragraph, a=names[0], b=names[1], facts=facts)
                attempts += 1
                question = clean_question(out.text)
                why = question_rejection(question, out, names, prompt, view, self.pool.triples, kind)
                if why is None:
                    break
                rejected.append(why)
            else:
                if "fallback_none" in prompt:  # each person's relations named once, as nouns
                    question = fallback_question(prompt, ids, [(g["qid"], g["property"]) for g in gold])
                else:
                    question = prompt["fallback"].format(a=names[0], b=names[1])
                source = "fallback"
                stats.fallback_questions += 1
                why = question_rejection(question, None, names, prompt, view, self.pool.triples, kind)
                if why is not None:  # even the template question fails the check: the entry is dropped
                    rejected.append(f"fallback: {why}")
                    stats.dropped = f"{kind} question: {why}"
            stats.repaired_questions += int(attempts > 1)
            # a model question drawn again because an earlier one asked what the gold set lacks, or too little of it
            stats.regenerated_questions += int(any(r.startswith("gold:") for r in rejected))
            self.questions[kind] = question
            self.question_info[kind] = {"source": source, "attempts": attempts, "rejected": rejected,
                                        "finish_reason": getattr(out, "finish_reason", "stop"),
                                        "raw": out.text if out else ""}

    def as_dict(self) -> dict:
        resolution, pair, stats, scorer = self.resolution, self.resolution.pair, self.stats, self.scorer
        relation = PERSON_RELATIONS[pair.relation]
        return {
            "id": resolution.entry_id,
            **({"dropped": stats.dropped} if stats.dropped else {}),
            "qids": [resolution.a_id, resolution.b_id],
            "names": list(self.names),
            "relation": {"pid": relation.pid, "label": relation.label},
            "seed_sentence": pair.sentence,
            "seed_source": pair.sentence_source,
            "general_question": self.questions["general"],
            "specific_question": self.questions["specific"],
            "paragraph": self.paragraph,
            "minimum_knowledge_set": self.gold,
            "rounds": self.rounds,
            "questions": self.question_info,
            "stats": {
                "llm_calls": stats.llm_calls,
                "perplexity_calls": scorer.calls,
                "scored_candidates": stats.scored_candidates,
                "truncated": stats.truncated,
                "template_sentences": stats.template_sentences,
                "fallback_questions": stats.fallback_questions,
                "repaired_sentences": stats.repaired_sentences,
                "repaired_questions": stats.repaired_questions,
                "regenerated_questions": stats.regenerated_questions,
                "pool_size": len(self.pool.triples),
            },
            # popped by build.py into the timings sidecar (not part of the entry)
            "timings": {**{k: round(v, 2) for k, v in stats.seconds.items()}, "scored_tokens": scorer.tokens},
        }
