"""SCK sub-scores as pure functions over given inputs (seed 004), with hand-checked values.

Nothing here loads a model; the structure tests parse with the small spaCy pipeline."""

from __future__ import annotations

import doctest
import importlib
import json
import math
import pkgutil

import numpy as np
import pytest

import kalma_graph.sck as sck
from kalma_graph.files import CorruptJsonlError, TornLineWarning, read_jsonl
from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.sck.base import INTENTS, EntityMention, distinct_entities
from kalma_graph.sck.combine import k_score, load_intent_weights, sck_score, weighted_sum
from kalma_graph.sck.content import c_score
from kalma_graph.sck.er import content_tokens, er_from_parts, er_score, jaccard
from kalma_graph.sck.intent import RuleIntentClassifier, parse_intent_output
from kalma_graph.sck.judges import NLIAttributionJudge, parse_attr_output, same_kind
from kalma_graph.sck.kg_attr import (
    ATTRIBUTABLE,
    CONTRADICTORY,
    EXTRAPOLATORY,
    SentenceEvidence,
    aggregate_attribution,
)
from kalma_graph.sck.run import InputError, open_run_logs, read_records
from kalma_graph.sck.scorer import answer_sentences, strip_marks
from kalma_graph.sck.structure import (
    PROFILES,
    Observations,
    detect_format,
    feature_scores,
    format_score,
    keyword_score,
    length_score,
    pronoun_score,
    s_score_from,
    tense_score,
)
from kalma_graph.sck.ve import ve_score

M = EntityMention

MODULES = sorted(m.name for m in pkgutil.walk_packages(sck.__path__, sck.__name__ + "."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


# --- VE (eq. 1) -----------------------------------------------------------------------------------

VE_CASES = [
    # (mentions, expected VE)
    ([M("Stephen Crane", "PERSON", "Q206534"), M("Newark", "GPE", "Q25395")], 1.0),
    ([M("Stephen Crane", "PERSON", "Q206534"), M("Gotham", "GPE")], 0.5),
    # one entity written twice counts once; an unlinked surface counts once, case-insensitively
    ([M("Barack Obama", "PERSON", "Q76"), M("Obama", "PERSON", "Q76"), M("Acme", "ORG"), M("ACME", "ORG")], 0.5),
    # an unlinked surface that is linked elsewhere in the answer is verifiable
    ([M("Newark", "GPE", "Q25395"), M("Newark", "ORG")], 1.0),
    ([M("Gotham", "GPE")], 0.0),
    ([], None),
]


@pytest.mark.parametrize("mentions, expected", VE_CASES)
def test_ve_score(mentions, expected):
    assert ve_score(mentions).value == expected


def test_distinct_entities_keeps_first_mention_order():
    ids, unlinked = distinct_entities([M("b", "X"), M("Q2", "X", "Q2"), M("a", "X"), M("Q1", "X", "Q1")])
    assert ids == ["Q2", "Q1"] and unlinked == ["b", "a"]


# --- ER (eq. 2, normalised) -----------------------------------------------------------------------


def test_jaccard_and_tokens():
    assert content_tokens("The poet of Newark, New Jersey") == {"poet", "newark", "new", "jersey"}
    assert jaccard({"a", "b", "c"}, {"b", "c", "d"}) == 0.5
    assert jaccard(set(), set()) == 0.0


@pytest.mark.parametrize("parts, expected", [
    ([(1.0, 1.0)], 1.0),
    ([(0.0, -0.4)], 0.0),  # negative cosine clipped at 0
    ([(0.5, 0.5), (0.0, 0.0)], 0.25),  # the mean over entities, not the paper's sum
    ([], None),
])
def test_er_from_parts(parts, expected):
    assert er_from_parts(parts) == expected


class FixedEmbedder:
    """Unit vectors chosen by hand: cos(question, d1) = 0.6, cos(question, d2) = 0."""

    vectors = {"Who was the poet Stephen Crane?": [1.0, 0.0], "American poet": [0.6, 0.8], "a city": [0.0, 1.0]}

    def encode(self, texts):
        return np.array([self.vectors[t] for t in texts])


def test_er_score_over_given_entities():
    question = "Who was the poet Stephen Crane?"
    entities = [Entity("Q1", name="Crane", description="American poet"),
                Entity("Q2", name="Newark", description="a city"),
                Entity("Q3", name="No description"),
                Entity("Q1", name="Crane", description="American poet")]  # the same entity twice: once
    result = er_score(question, entities, FixedEmbedder())
    # Q1: Jaccard({poet, stephen, crane}, {american, poet}) = 1/4, cos 0.6 -> (0.25 + 0.6)/2 = 0.425
    # Q2: Jaccard = 0 ({city}), cos 0 -> 0;  mean = 0.2125
    assert result.value == pytest.approx(0.2125)
    assert result.evidence["no_description"] == ["Q3"]
    assert [row["id"] for row in result.evidence["entities"]] == ["Q1", "Q2"]
    assert er_score(question, [Entity("Q3")], FixedEmbedder()).value is None


# --- KG-AttrScore aggregation ---------------------------------------------------------------------


@pytest.mark.parametrize("labels, kwargs, expected", [
    ([1, 1, 1], {}, 1.0),
    ([1, 0, 0, 0], {}, 0.25),
    ([1, 1, 0, -1], {}, 0.25),  # (2 - 1) / 4
    ([-1, 0], {}, 0.0),  # floored at 0
    ([1, -1, 0, 0], {"penalty": 0.5}, 0.125),  # (1 - 0.5) / 4
    ([1, None, None, 0], {}, 0.5),  # missing judgements leave the denominator
    ([None], {}, None),
    ([], {}, None),
])
def test_aggregate_attribution(labels, kwargs, expected):
    result = aggregate_attribution(labels, **kwargs)
    assert result.value == expected
    assert result.evidence["n_missing"] == sum(x is None for x in labels)


# --- K and SCK ------------------------------------------------------------------------------------


def test_k_equal_weights_and_missing_parts():
    assert k_score(0.6, 0.3, 0.9).value == pytest.approx(0.6)
    result = k_score(1.0, None, 0.5)  # ER undefined: VE and KG-Attr weigh 1/2 each
    assert result.value == pytest.approx(0.75)
    assert result.evidence["used"] == ["ve", "kg_attr"] and result.evidence["missing"] == ["er"]
    assert k_score(None, None, None).value is None
    assert k_score(1.0, 0.0, 0.0, {"ve": 0.5, "er": 0.25, "kg_attr": 0.25}).value == pytest.approx(0.5)
    with pytest.raises(ValueError):
        k_score(1.0, 1.0, 1.0, {"ve": 1.0, "er": 1.0})


def test_table3_weights_are_the_papers():
    table = load_intent_weights()
    assert set(table) == set(INTENTS)
    expected = {"instruction": (0.5, 0.2, 0.3), "reason": (0.5, 0.3, 0.2), "evidence-based": (0.2, 0.3, 0.5),
                "comparison": (0.5, 0.3, 0.2), "experience": (0.4, 0.5, 0.1), "debate": (0.4, 0.4, 0.2),
                "factoid": (0.1, 0.1, 0.8)}
    for intent, (a, b, g) in expected.items():
        assert table[intent] == {"alpha": a, "beta": b, "gamma": g}


@pytest.mark.parametrize("s, c, k, intent, expected", [
    # Table 4 of the paper: (S, C, K, intent) -> SCK as printed (0.88, 0.63, 0.01)
    (1.0, 1.0, 0.42, "comparison", 0.884),
    (0.25, 0.2, 0.74, "factoid", 0.637),
    (0.0, 0.0, 0.10, "experience", 0.01),
])
def test_sck_reproduces_table4(s, c, k, intent, expected):
    assert sck_score(s, c, k, intent, load_intent_weights()).value == pytest.approx(expected)


def test_sck_without_intent_or_parts():
    table = load_intent_weights()
    assert sck_score(1.0, 1.0, 1.0, None, table).value is None
    # C undefined for a factoid answer: S and K weigh 0.1 and 0.8, rescaled to 1/9 and 8/9
    assert sck_score(0.0, None, 0.9, "factoid", table).value == pytest.approx(0.8)


def test_weights_file_is_validated(tmp_path):
    bad = {"weights": {i: {"alpha": 0.5, "beta": 0.5, "gamma": 0.5} for i in INTENTS}}
    path = tmp_path / "w.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="sum to 1"):
        load_intent_weights(path)
    assert weighted_sum({"a": None}, {"a": 1.0}) == (None, [])


# --- C (eq. 4) ------------------------------------------------------------------------------------


@pytest.mark.parametrize("answer, important, expected", [
    (["Q108118280", "Q108939091"], ["Q108118280", "Q108939091", "Q115127699"], 2 / 3),  # Figure 5
    (["Q1", "Q1", "Q2"], ["Q1"], 1.0),
    ([], ["Q1", "Q2"], 0.0),
    (["Q1"], [], None),
])
def test_c_score(answer, important, expected):
    result = c_score(answer, important)
    assert result.value == expected


# --- S (Table 2 features) -------------------------------------------------------------------------


def test_feature_functions():
    assert length_score(30, ("short",)) == 1.0
    assert length_score(200, ("short",)) == 0.25  # 50 / 200
    assert length_score(25, ("moderate", "long")) == 0.5  # 25 / 50
    assert tense_score({"past": 3, "present": 1}, ("past",)) == 0.75
    assert tense_score({}, ("past",)) is None
    assert keyword_score("it is different, compared to soup", PROFILES["comparison"].keywords) == 1.0
    assert keyword_score("because of the rain", PROFILES["reason"].keywords) == 0.5
    assert keyword_score("nothing here", PROFILES["factoid"].keywords) is None
    assert keyword_score("becauseless", ("because",)) == 0.0  # whole words only
    assert pronoun_score({1: 3, 3: 1}, (1,)) == 0.75
    assert pronoun_score({}, (3,)) == 1.0 and pronoun_score({}, (1,)) == 0.0
    assert format_score("bullet_list", ("step_list",)) == 0.5
    assert format_score("paragraph", ("paragraph",)) == 1.0


@pytest.mark.parametrize("text, expected", [
    ("1. Unplug it.\n2. Wait.\n3. Plug it in.", "step_list"),
    ("Step 1: unplug it.\nStep 2: wait.", "step_list"),
    ("- eggs\n- milk\n- flour", "bullet_list"),
    ("- Soup: thin, quick\n- Stew: thick, slow", "side_by_side"),
    ("| | Soup | Stew |\n|---|---|---|\n| time | short | long |", "side_by_side"),
    ("One.\n\nTwo.", "paragraphs"),
    ("Just one paragraph. With two sentences.", "paragraph"),
])
def test_detect_format(text, expected):
    assert detect_format(text) == expected


def test_s_score_from_observations():
    obs = Observations(n_words=20, tenses={"past": 2}, persons={3: 1}, format="paragraph", text="he was born")
    result = s_score_from(obs, "factoid")
    # length 1, tense 1, pronoun 1, format 1; keywords undefined for factoid
    assert result.value == 1.0
    assert result.evidence["features"]["keywords"] is None
    instruction = feature_scores(obs, PROFILES["instruction"])
    assert instruction == {"length": 1.0, "tense": 0.0, "keywords": 0.0, "pronoun": 0.0, "format": 0.0}
    assert result.evidence["s_per_intent"]["instruction"] == pytest.approx(0.2)
    assert s_score_from(obs, None).value is None


# --- intent ---------------------------------------------------------------------------------------


def test_rule_intents():
    questions = ["How do I reset my router?", "Why do cats purr?", "What is the difference between soups and stews?",
                 "Has anyone tried intermittent fasting?", "Do you think social media does more harm than good?",
                 "How does a vaccine work?", "When was Stephen Crane born?"]
    got = [p.intent for p in RuleIntentClassifier().classify(questions)]
    assert got == ["instruction", "reason", "comparison", "experience", "debate", "evidence-based", "factoid"]


@pytest.mark.parametrize("text, expected", [
    ('{"intent": "debate"}', "debate"),
    ('Sure! {"intent": "Evidence-based"}', "evidence-based"),
    ("factoid", "factoid"),
    ('{"intent": "trivia"}', None),
    ("", None),
])
def test_parse_intent_output(text, expected):
    assert parse_intent_output(text)[0] == expected


# --- the judges' output and decision rules --------------------------------------------------------


@pytest.mark.parametrize("text, n, label, relevant", [
    ('{"decision": "Attributable", "relevant_triplets": [1], "rationale": "r"}', 2, ATTRIBUTABLE, [1]),
    ('{"decision": "Extrapolatory", "relevant_triplets": [], "rationale": "r"}', 2, EXTRAPOLATORY, []),
    ('```json\n{"label": "contradictory", "relevant": [2, 7]}\n```', 2, CONTRADICTORY, [2]),
    ("Decision: Neutral", 1, EXTRAPOLATORY, []),
    ('{"decision": "Attributable", "relevant_triplets": [1], "rationale": "cut of', 1, ATTRIBUTABLE, []),
    ('{"decision": "Maybe"}', 1, None, []),
    ('{"rationale": "no decision"}', 1, None, []),
    ("The sentence seems right.", 1, None, []),  # never guessed
])
def test_parse_attr_output(text, n, label, relevant):
    got_label, _, got_relevant, reason = parse_attr_output(text, n)
    assert got_label == label and got_relevant == relevant
    assert (reason is None) == (label is not None)


class TableNLI:
    """P(entailment) looked up by hypothesis; everything else 0.1."""

    model_hash = "table"

    def __init__(self, table):
        self.table = table
        self.calls = []

    def entailment_prob(self, premises, hypotheses, **_):
        self.calls += list(zip(premises, hypotheses))
        return np.array([self.table.get(h, 0.1) for h in hypotheses])

    def describe(self):
        return {"name_or_path": "table"}


CRANE, NEWARK, BOSTON, POET = "Q206534", "Q25395", "Q100", "Q49757"
PLACE_A, PLACE_B, OCCUPATION = "Q2974552", "Q21518270", "Q28640"
BIRTH = Triple(CRANE, "P19", "place of birth", "Newark", NEWARK)
JOB = Triple(CRANE, "P106", "occupation", "poet", POET)
NAMES = {CRANE: "Stephen Crane", NEWARK: "Newark", BOSTON: "Boston", POET: "poet"}
TYPES = {CRANE: ("Q5",), NEWARK: (PLACE_A,), BOSTON: (PLACE_B,), POET: (OCCUPATION,)}


def evidence(sentence_ids, ids, between=(), context=()):
    return SentenceEvidence(tuple(sentence_ids), tuple(ids), tuple(between), tuple(context), NAMES, TYPES)


def test_nli_judge_support_contradiction_and_extrapolation():
    nli = TableNLI({"Stephen Crane place of birth Newark.": 0.9, "Stephen Crane place of birth Boston.": 0.8,
                    "Stephen Crane occupation Boston.": 0.95, "Stephen Crane occupation poet.": 0.85})
    judge = NLIAttributionJudge(nli)
    items = [
        ("He was born in Newark.", evidence([NEWARK], [NEWARK, CRANE], [BIRTH], [JOB])),
        ("He was born in Boston.", evidence([BOSTON], [BOSTON, CRANE], [], [BIRTH, JOB])),
        ("He wrote as a poet.", evidence([], [CRANE], [], [BIRTH, JOB])),
        ("He liked Boston.", evidence([BOSTON], [BOSTON], [], [])),
    ]
    out = judge.judge("Who was Stephen Crane?", items)
    assert [j.label for j in out] == [ATTRIBUTABLE, CONTRADICTORY, ATTRIBUTABLE, EXTRAPOLATORY]
    assert out[0].relevant == (BIRTH,)
    # Boston is a place: it rivals Newark as a place of birth, not poet as an occupation (0.95 ignored)
    assert out[1].relevant == (BIRTH,)
    assert "('Stephen Crane', 'place of birth', 'Boston')" in out[1].rationale
    assert out[2].relevant == (JOB,)  # the object "poet" is named in the sentence
    assert out[3].details["n_hypotheses"] == 0
    # the premise is the question followed by the sentence
    assert nli.calls[0][0] == "Who was Stephen Crane? He was born in Newark."


def test_nli_judge_contradiction_must_beat_the_stored_relation():
    # "born in Newark" weakly entails "educated at Newark", but the stored place of birth wins
    educated = Triple(CRANE, "P69", "educated at", "Syracuse University", "Q617433")
    types = {**TYPES, "Q617433": (PLACE_A,)}
    ev = SentenceEvidence((NEWARK,), (NEWARK, CRANE), (BIRTH,), (educated,), NAMES, types)
    nli = TableNLI({"Stephen Crane place of birth Newark.": 0.9, "Stephen Crane educated at Newark.": 0.6})
    [j] = NLIAttributionJudge(nli).judge("Who was Stephen Crane?", [("Crane was born in Newark.", ev)])
    assert j.label == ATTRIBUTABLE
    nli = TableNLI({"Stephen Crane place of birth Newark.": 0.3, "Stephen Crane educated at Newark.": 0.7})
    [j] = NLIAttributionJudge(nli).judge("Who was Stephen Crane?", [("Crane studied in Newark.", ev)])
    assert j.label == CONTRADICTORY and j.relevant == (educated,)


def test_nli_judge_literal_property_and_stated_rival_block_a_contradiction():
    france, bangkok = "Q142", "Q1861"
    names = {**NAMES, france: "France", bangkok: "Bangkok"}
    types = {**TYPES, france: (PLACE_B,), bangkok: (PLACE_A,)}
    birth = Triple(CRANE, "P19", "place of birth", "Prades", None, "string")  # a literal, kind unknown
    death = Triple(CRANE, "P20", "place of death", "Bangkok", bangkok)
    ev = SentenceEvidence((france,), (france, CRANE), (), (birth, death), names, types)
    # "born in Prades, France": the claimed relation with France is the place of birth (a literal): no rival
    nli = TableNLI({"Stephen Crane place of birth France.": 0.9, "Stephen Crane place of death France.": 0.8,
                    "Stephen Crane place of birth Prades.": 0.9})
    [j] = NLIAttributionJudge(nli).judge("Who?", [("He was born in Prades, France.", ev)])
    assert j.label == ATTRIBUTABLE and j.relevant == (birth,)
    # the claimed place of death has an entity rival of France's kind: contradiction
    nli = TableNLI({"Stephen Crane place of death France.": 0.9})
    [j] = NLIAttributionJudge(nli).judge("Who?", [("He died in France.", ev)])
    assert j.label == CONTRADICTORY and j.relevant == (death,)
    # ... unless the sentence also states the stored object ("in Bangkok, far from France")
    nli = TableNLI({"Stephen Crane place of death France.": 0.9, "Stephen Crane place of death Bangkok.": 0.9})
    [j] = NLIAttributionJudge(nli).judge("Who?", [("He died in Bangkok, far from France.", ev)])
    assert j.label == ATTRIBUTABLE


def test_same_kind_uses_classes_and_groups():
    assert same_kind(["Q1"], ["Q1"])
    assert same_kind([PLACE_A], [PLACE_B])  # both in the "place" group of the type map
    assert not same_kind([PLACE_B], [OCCUPATION])
    assert not same_kind([], [PLACE_A])


# --- input and text helpers -----------------------------------------------------------------------


def test_strip_marks_and_sentences():
    text = "Born in Newark [Q206534, place of birth: Newark]. Died in 1900 [NA].\n\n1. One [Q1]\n2. Two"
    assert strip_marks(text) == "Born in Newark. Died in 1900.\n\n1. One\n2. Two"
    assert answer_sentences(text) == ["Born in Newark.", "Died in 1900.", "One", "Two"]


def test_read_records_jsonl_csv_and_pipeline_records(tmp_path):
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_text("\n".join([
        json.dumps({"id": "a", "question": "Q?", "answer": "A.", "reference": "R."}),
        json.dumps({"id": 7, "question": "Q?", "answer": {"text": "A2."}, "citations": []}),  # pipeline record
        json.dumps({"question": "Q3?", "answer": "A3."}),
        json.dumps({"id": "x", "question": "Q?"}),
        "{not json",
    ]) + "\n")
    records, problems = read_records(jsonl)
    assert [(r.id, r.answer, r.reference) for r in records[:2]] == [("a", "A.", "R."), ("7", "A2.", None)]
    assert len(records[2].id) == 12  # a stable id from the content
    assert [p.split(": ", 1)[1] for p in problems] == ["missing answer", "not JSON (Expecting property name "
                                                       "enclosed in double quotes)"]
    csv_path = tmp_path / "in.csv"
    csv_path.write_text('id,question,answer\n1,"Who, then?","Him."\n')
    records, _ = read_records(csv_path)
    assert records[0].question == "Who, then?"
    jsonl.write_text(json.dumps({"id": "a", "question": "Q", "answer": "A"}) + "\n" +
                     json.dumps({"id": "a", "question": "Q", "answer": "B"}) + "\n")
    with pytest.raises(InputError, match="duplicate id"):
        read_records(jsonl)


def test_read_records_splits_json_lines_on_newlines_only(tmp_path):
    """An answer holding U+2028 (written raw by ensure_ascii=False) is one record, not two broken lines
    (str.splitlines used to cut it); a JSON array over several lines is still read whole."""
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_text(json.dumps({"id": "a", "question": "Q?", "answer": "A\u2028B."}, ensure_ascii=False) + "\n",
                     encoding="utf-8")
    records, problems = read_records(jsonl)
    assert [(r.id, r.answer) for r in records] == [("a", "A\u2028B.")] and problems == []
    array = tmp_path / "in.json"
    array.write_text("\n  [\n" + json.dumps({"question": "Q?", "answer": "A."}) + "\n]\n", encoding="utf-8")
    records, problems = read_records(array)
    assert [r.answer for r in records] == ["A."] and problems == []


def _answer_line(rid: str) -> str:
    return json.dumps({"id": rid, "row": {"id": rid, "sck": 0.5}}) + "\n"


def _sentence_line(rid: str, index: int) -> str:
    return json.dumps({"id": rid, "sentence_index": index, "prediction": "Attributable"}) + "\n"


def test_score_logs_trim_torn_lines_so_the_answer_is_scored_again(tmp_path):
    # Killed while writing answer b: its sentence rows are finished, its answer line is torn; the
    # sentences log itself was cut in the middle of a row of answer c.
    (tmp_path / "answers.jsonl").write_text(_answer_line("a") + _answer_line("b")[:15])
    (tmp_path / "sentences.jsonl").write_text(_sentence_line("a", 0) + _sentence_line("b", 0)
                                              + _sentence_line("c", 0)[:20])
    with pytest.warns(TornLineWarning) as caught:
        answers, sentences, done = open_run_logs(tmp_path)
    messages = [str(w.message) for w in caught]
    assert any("answers.jsonl:2: dropped a torn last line" in m for m in messages)
    assert any("sentences.jsonl:3: dropped a torn last line" in m for m in messages)
    with answers, sentences:
        assert done == {"a"}  # b is scored again
        sentences.append_many([{"id": "b", "sentence_index": 0, "prediction": "Contradictory"}])
        answers.append({"id": "b", "row": {"id": "b", "sck": 0.25}})
    assert [r["id"] for r in read_jsonl(tmp_path / "answers.jsonl").records] == ["a", "b"]
    rows = read_jsonl(tmp_path / "sentences.jsonl").records
    assert [(r["id"], r["prediction"]) for r in rows] == [("a", "Attributable"), ("b", "Attributable"),
                                                          ("b", "Contradictory")]  # the report keeps the last


@pytest.mark.parametrize("damaged", ["answers.jsonl", "sentences.jsonl"])
def test_score_logs_refuse_a_corrupt_line_inside(tmp_path, damaged):
    (tmp_path / "answers.jsonl").write_text(_answer_line("a") + _answer_line("b"))
    (tmp_path / "sentences.jsonl").write_text(_sentence_line("a", 0) + _sentence_line("b", 0))
    path = tmp_path / damaged
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0][:10] + "\n" + lines[1])
    before = {name: (tmp_path / name).read_bytes() for name in ("answers.jsonl", "sentences.jsonl")}
    with pytest.raises(CorruptJsonlError, match=rf"{damaged}:1: not valid JSON"):
        open_run_logs(tmp_path)
    assert {name: (tmp_path / name).read_bytes() for name in before} == before


def test_no_nan_anywhere():
    # undefined is None, never NaN
    for value in (ve_score([]).value, c_score([], []).value, aggregate_attribution([]).value,
                  k_score(None, None, None).value):
        assert value is None or not math.isnan(value)


class CannedLLM:
    """Replies in turn with the given texts (the LLM interface of kalma_graph.models.llm)."""

    def __init__(self, replies, truncated=False):
        self.replies = list(replies)
        self.truncated = truncated
        self.messages = []

    def chat(self, messages, params, grammar=None):
        from kalma_graph.models.llm import Completion

        self.messages.append(messages)
        return Completion(self.replies.pop(0), "length" if self.truncated else "stop", 10, 5, {})

    def header(self):
        return {"model_file": "canned"}


def test_llm_judge_reads_decisions_and_counts_unreadable_output_as_missing():
    from kalma_graph.sck.judges import LLMAttributionJudge

    llm = CannedLLM(['{"decision": "Contradictory", "relevant_triplets": [1], "rationale": "Born in Newark."}',
                     "I am not sure."])
    judge = LLMAttributionJudge(llm, constrained=False)
    items = [("He was born in Boston.", evidence([BOSTON], [BOSTON, CRANE], [], [JOB, BIRTH])),
             ("He was born in Newark.", evidence([NEWARK], [NEWARK, CRANE], [BIRTH], [JOB])),
             ("He liked Boston.", evidence([BOSTON], [BOSTON], [], []))]
    out = judge.judge("Who was Stephen Crane?", items)
    assert [j.label for j in out] == [CONTRADICTORY, None, EXTRAPOLATORY]
    # the statement whose object the sentence names comes first: "born in Boston" names neither, so
    # the order is the context's; triplet 1 is the first listed
    assert out[0].relevant == (JOB,) and out[0].rationale == "Born in Newark."
    assert out[1].missing_reason == "no decision found in the judge output" and out[1].raw == "I am not sure."
    assert len(llm.messages) == 2  # no call for a sentence without triplets
    prompt = llm.messages[1][1]["content"]
    assert "Answer sentence: He was born in Newark." in prompt
    assert "1. ('Stephen Crane', 'place of birth', 'Newark')" in prompt
    assert aggregate_attribution([j.label for j in out]).value == 0.0  # (0 - 1) / 2, floored


def test_llm_intent_classifier_missing_when_unreadable():
    from kalma_graph.sck.intent import LLMIntentClassifier

    clf = LLMIntentClassifier(CannedLLM(['{"intent": "comparison"}', "no idea"], truncated=True), constrained=False)
    first, second = clf.classify(["Compare A and B", "Hmm?"])
    assert first.intent == "comparison"
    assert second.intent is None and "truncated" in second.missing_reason
