"""`SCKScorer`: one (question, answer[, reference]) pair → every SCK sub-score with its evidence.

    scorer = SCKScorer(store, linker, embedder, judge, intent_classifier, structure_nlp)
    result = scorer.score(QARecord("q1", "Who was Stephen Crane?", "Stephen Crane was born in Newark."))
    result.answer_row()      # flat: sck, s, c, k, ve, er, kg_attr, intent, counts
    result.sentence_rows()   # Table 1: prediction, relevant triplets, rationale, identified entities

Models are built by the caller (`run.build_scorer` does it from options) and passed in; nothing here
loads a model. The answer's citation marks (`[Q1, p: v]`, `[NA]`) are removed before anything else
looks at it, with the sentence splitter shared with the KaLMA evaluation.
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from kalma_graph.kg.citation_marks import locate_marks
from kalma_graph.kg.citations import parse_answer
from kalma_graph.sck.base import EntityMention, SubScore, distinct_entities, linked_ids
from kalma_graph.sck.combine import DEFAULT_K_WEIGHTS, k_score, load_intent_weights, sck_score
from kalma_graph.sck.content import c_score
from kalma_graph.sck.er import er_score
from kalma_graph.sck.intent import IntentPrediction
from kalma_graph.sck.kg_attr import LABEL_NAMES, aggregate_attribution, fetch_evidence, triple_tuple
from kalma_graph.sck.structure import observe, s_score_from
from kalma_graph.sck.ve import ve_score
from kalma_graph.store.base import GraphStore

if TYPE_CHECKING:
    from spacy.language import Language

    from kalma_graph.models.embeddings import SentenceEmbedder
    from kalma_graph.sck.entities import GraphLinker
    from kalma_graph.sck.kg_attr import AttributionJudge


@dataclass(frozen=True)
class QARecord:
    id: str
    question: str
    answer: str
    reference: str | None = None


@dataclass(frozen=True)
class ScoreOptions:
    """Every choice that changes a score; all of it goes into the run header."""

    evidence: str = "context"  # "context" | "between" (the paper's SoT only)
    question_entities: bool = True  # add the question's entities to each sentence's entity set
    k_weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_K_WEIGHTS))
    attr_reward: float = 1.0
    attr_penalty: float = 1.0
    intent_weights: str | None = None  # path of a Table 3 file; None: the packaged one

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["k_weights"] = dict(self.k_weights)
        return out


def strip_marks(text: str) -> str:
    """`text` without citation marks, layout (newlines) kept; no space is left before punctuation.

    >>> strip_marks("Born in Newark [Q206534, place of birth: Newark]. Died 1900 [NA].\\n- next")
    'Born in Newark. Died 1900.\\n- next'
    """
    marks, _ = locate_marks(text)
    out, cursor = [], 0
    for mark in marks:
        if mark.is_text:
            continue
        out.append(text[cursor:mark.start].rstrip(" \t") if text[mark.end:mark.end + 1] in ".,;:!?)" or
                   mark.end == len(text) else text[cursor:mark.start])
        cursor = mark.end
    out.append(text[cursor:])
    joined = "".join(out)
    return "\n".join(" ".join(line.split()) if line.strip() else "" for line in joined.split("\n"))


_MARKER_ONLY_RE = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*\u2022])?\s*$")


def answer_sentences(answer: str) -> list[str]:
    """The answer's sentences without citation marks. Empty pieces and pieces that are only a list
    marker are dropped (the shared splitter cuts "1. Mix flour." after "1." at the start of a text).

    >>> answer_sentences("1. Mix flour and water.\\n2. Knead the dough [NA].")
    ['Mix flour and water.', 'Knead the dough.']
    """
    return [s.clean_text for s in parse_answer(answer).sentences if not _MARKER_ONLY_RE.match(s.clean_text)]


@dataclass
class ScoreResult:
    record: QARecord
    intent: IntentPrediction
    scores: dict[str, SubScore]
    sentences: list[dict[str, Any]]
    question_entities: list[EntityMention]
    reference_entities: list[EntityMention] | None
    seconds: float

    def value(self, name: str) -> float | None:
        return self.scores[name].value

    def answer_row(self) -> dict[str, Any]:
        attr = self.scores["kg_attr"].evidence
        return {
            "id": self.record.id,
            "question": self.record.question,
            "intent": self.intent.intent,
            "intent_method": self.intent.method,
            **{name: self.scores[name].value for name in ("sck", "s", "c", "k", "ve", "er", "kg_attr")},
            "n_sentences": attr["n_sentences"],
            "n_attributable": attr["n_attributable"],
            "n_extrapolatory": attr["n_extrapolatory"],
            "n_contradictory": attr["n_contradictory"],
            "n_missing": attr["n_missing"],
            "c_source": self.scores["c"].evidence["source"],
            "question_entities": " ".join(linked_ids(self.question_entities)),
            "answer_entities": " ".join(self.scores["c"].evidence["answer_entities"]),
            "seconds": round(self.seconds, 3),
        }

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.record.id,
            "question": self.record.question,
            "answer": self.record.answer,
            "reference": self.record.reference,
            "intent": self.intent.as_dict(),
            "scores": {name: s.as_dict() for name, s in self.scores.items()},
            "question_entities": [m.as_dict() for m in self.question_entities],
            "reference_entities": None if self.reference_entities is None else
            [m.as_dict() for m in self.reference_entities],
            "sentences": self.sentences,
            "seconds": round(self.seconds, 3),
        }

    def sentence_rows(self) -> list[dict[str, Any]]:
        return [{"id": self.record.id, **row} for row in self.sentences]


class SCKScorer:
    def __init__(self, store: GraphStore, linker: GraphLinker, embedder: SentenceEmbedder, judge: AttributionJudge,
                 intent_classifier: Any, structure_nlp: Language, options: ScoreOptions | None = None) -> None:
        self.store = store
        self.linker = linker
        self.embedder = embedder
        self.judge = judge
        self.intent_classifier = intent_classifier
        self.structure_nlp = structure_nlp
        self.options = options or ScoreOptions()
        self.weights = load_intent_weights(self.options.intent_weights)
        self.one_hop = lru_cache(maxsize=4096)(store.one_hop)
        self.entities: dict[str, Any] = {}  # id -> Entity | None, shared by all sentences of the run

    def score(self, record: QARecord) -> ScoreResult:
        return self.score_many([record])[0]

    def score_many(self, records: Sequence[QARecord]) -> list[ScoreResult]:
        """Score a batch; intents are classified for the whole batch at once."""
        intents = self.intent_classifier.classify([r.question for r in records])
        return [self._score(r, intent) for r, intent in zip(records, intents)]

    def _score(self, record: QARecord, intent: IntentPrediction) -> ScoreResult:
        started = time.perf_counter()
        opts = self.options
        plain = strip_marks(record.answer)
        sentences = answer_sentences(record.answer)
        texts = [record.question, *sentences] + ([record.reference] if record.reference else [])
        linked = self.linker.link(texts)
        q_mentions, s_mentions = linked[0], linked[1:1 + len(sentences)]
        ref_mentions = linked[-1] if record.reference else None
        answer_mentions = [m for ms in s_mentions for m in ms]
        q_ids = linked_ids(q_mentions)

        ve = ve_score(answer_mentions)
        er = er_score(record.question, [e for e in (self.linker.entity(i) for i in q_ids) if e], self.embedder)

        items, evidences = [], []
        for sentence, mentions in zip(sentences, s_mentions):
            evidence = fetch_evidence(self.store, linked_ids(mentions), q_ids if opts.question_entities else (),
                                      mode=opts.evidence, one_hop=self.one_hop, entities=self.entities)
            evidences.append(evidence)
            items.append((sentence, evidence))
        judgements = self.judge.judge(record.question, items) if items else []
        attr = aggregate_attribution([j.label for j in judgements], reward=opts.attr_reward, penalty=opts.attr_penalty)
        k = k_score(ve.value, er.value, attr.value, opts.k_weights)

        s = s_score_from(observe(plain, self.structure_nlp), intent.intent)
        answer_ids, _ = distinct_entities(answer_mentions)
        if ref_mentions is not None:
            c = c_score(answer_ids, linked_ids(ref_mentions), source="reference")
        else:
            c = c_score(answer_ids, q_ids, source="question")
        sck = sck_score(s.value, c.value, k.value, intent.intent, self.weights)

        rows = []
        for index, (sentence, mentions, evidence, j) in enumerate(zip(sentences, s_mentions, evidences, judgements), 1):
            rows.append({
                "sentence_index": index,
                "sentence": sentence,
                "prediction": LABEL_NAMES[j.label] if j.label is not None else "missing",
                "label": j.label,
                "relevant_triplets": [list(triple_tuple(t, evidence)) for t in j.relevant],
                "rationale": j.rationale,
                "identified_entities": list(evidence.sentence_ids),
                "question_entities_added": [i for i in evidence.ids if i not in evidence.sentence_ids],
                "unlinked_mentions": [m.text for m in mentions if not m.entity_id],
                "n_between": len(evidence.between),
                "n_context": len(evidence.context),
                "judge": getattr(self.judge, "name", "judge"),
                "missing_reason": j.missing_reason,
                "judge_raw": j.raw,
                "details": dict(j.details),
            })
        scores = {"sck": sck, "s": s, "c": c, "k": k, "ve": ve, "er": er, "kg_attr": attr}
        return ScoreResult(record, intent, scores, rows, q_mentions, ref_mentions, time.perf_counter() - started)

    def header(self) -> dict[str, Any]:
        from kalma_graph.sck.combine import intent_weights_sha256

        return {
            "options": self.options.as_dict(),
            "intent_weights": {"path": self.options.intent_weights or "kalma_graph/data/sck_intent_weights.json",
                               "sha256": intent_weights_sha256(self.options.intent_weights), "table": self.weights},
            "judge": self.judge.header(),
            "intent_classifier": self.intent_classifier.header(),
            "embedder": self.embedder.header(),
            "linker": self.linker.header(),
            "structure_nlp": _nlp_header(self.structure_nlp),
            "store": {"uri": self.store.uri, "backend": self.store.backend},
        }


def _nlp_header(nlp: Language) -> dict[str, Any]:
    meta = getattr(nlp, "meta", {}) or {}
    return {"pipeline": f"{meta.get('lang', '')}_{meta.get('name', '')}", "version": meta.get("version"),
            "components": list(getattr(nlp, "pipe_names", []))}
