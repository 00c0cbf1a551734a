"""The metric registry: what each metric part of an evaluation writes, in one table.

    Field("f1_micro", FLOAT, "citation_quality", stored=True)

says that the summary of `kalma-graph evaluate` has an `f1_micro` read from the `citation_quality`
part's result, and that a run written into a graph store keeps it as a property of its `Run` node.
Everything that names metric fields is derived from `SUMMARY` and `PER_ANSWER`:

- `evaluate` builds the summary and each per-answer row by reading these fields from the parts
  (`evaluation/evaluate.py`: `summary_fields`, `per_answer_fields`);
- the typed records `evaluation_result.ResultSummary` and `PerAnswerRow` declare these fields, in
  this order (which is the key order of results.json and the column order of per_answer.csv);
- the run graph (`store/results.py`) stores the `stored` fields on `Run` and `Answer` nodes, adds
  their columns to the embedded tables (`ALTER TABLE … ADD`) and reads them back.

Adding a metric (docs/CONTRIBUTING.md): write its pure function and card under
`evaluation/metrics/`, compute its part in `evaluate_records`, and list its fields here.

G-Eval's fields depend on the aspects a run judges: one `geval_<aspect>`… per aspect (`each_aspect`);
they are the records' extra keys, and the store keeps the paper's four aspects (`GEVAL_ASPECTS`).

Like `records.py`, this module imports nothing of kalma_graph: every layer may read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Literal, Mapping

Kind = Literal["int", "float", "bool", "string"]
INT: Kind = "int"
FLOAT: Kind = "float"
BOOL: Kind = "bool"
STRING: Kind = "string"

#: The aspects of G-Eval (the paper's Table 4): judged by default, and the ones a run graph keeps.
GEVAL_ASPECTS: tuple[str, ...] = ("coherence", "consistency", "fluency", "relevance")

#: A condition on the evaluation's metric parts: a field that has one is written only when it holds.
Condition = Callable[[Mapping[str, Any]], bool]


def _aligned(parts: Mapping[str, Any]) -> bool:
    return "alignment" in parts


def _by_verifier(parts: Mapping[str, Any]) -> bool:
    return ((parts.get("alignment") or {}).get("choices") or {}).get("method") == "verifier"


def _checked(parts: Mapping[str, Any]) -> bool:
    return parts.get("verifier") is not None  # a per-answer part: the verifier's counts of one answer


@dataclass(frozen=True)
class Field:
    """One figure of the evaluation.

    `part`: the metric part it is read from: a key of the evaluation's parts (`citation_quality`,
    `alignment`, …; per answer: that part's row for the answer), or `answer` (the parsed answer itself,
    per answer) and `evaluation` (the evaluation's own: the number of answers, self-scoring).
    `source`: the key in the part (dotted for nested keys; default: `name`), or a function of the part.
    `when`: written only when this holds (otherwise the key is absent, not None).
    `stored`: kept on the run graph's `Run` node (summary fields) or `Answer` node (per-answer fields).
    `default`: the value when the part did not run."""

    name: str
    kind: Kind
    part: str
    source: str | Callable[[Mapping[str, Any]], Any] = ""
    when: Condition | None = None
    stored: bool = False
    default: Any = None
    each_aspect: bool = False  # G-Eval: `name` and `source` hold `{aspect}`, one field per judged aspect
    optional: bool = False  # the part may lack the key (`unknown_paths` does not ask for it)

    def read(self, part: Mapping[str, Any] | None, aspect: str = "") -> Any:
        """This field's value in `part` (None or the default when the part did not run)."""
        if part is None:
            return self.default
        if callable(self.source):
            return self.source(part)
        value: Any = part
        for key in (self.source or self.name).format(aspect=aspect).split("."):
            value = value.get(key) if isinstance(value, Mapping) else None
        return self.default if value is None and self.default is not None else value

    def names(self, aspects: tuple[str, ...] = GEVAL_ASPECTS) -> list[str]:
        """The field's key(s): one per aspect for G-Eval's."""
        return [self.name.format(aspect=a) for a in aspects] if self.each_aspect else [self.name]


def _alignment_method(alignment: Mapping[str, Any]) -> str:
    return "verifier" if (alignment.get("choices") or {}).get("method") == "verifier" else "nli"


def _correctness(row: Mapping[str, Any]) -> float | None:
    return row["correct"] / row["citations"] if row.get("citations") else None


#: The summary of an evaluation (results.json `summary`), in the file's key order.
SUMMARY: tuple[Field, ...] = (
    Field("answers", INT, "evaluation"),
    Field("citations", INT, "citation_quality", stored=True),
    Field("correctness", FLOAT, "citation_quality", stored=True),
    *(Field(f"{m}_{s}", FLOAT, "citation_quality", stored=True)
      for m in ("precision", "recall", "f1") for s in ("micro", "macro")),
    Field("alignment_micro", FLOAT, "alignment", stored=True),
    Field("alignment_macro", FLOAT, "alignment", stored=True),
    Field("na_precision", FLOAT, "na_quality", "precision", stored=True),
    Field("na_recall", FLOAT, "na_quality", "recall", stored=True),
    Field("na_f1", FLOAT, "na_quality", "f1", stored=True),
    Field("alignment_method", STRING, "alignment", _alignment_method, when=_aligned, stored=True),
    # the verifier's alignment (the default method); alignment_nli: MiniLM NLI beside it, the paper's method
    Field("alignment_nli_micro", FLOAT, "alignment_nli", "alignment_micro", when=_by_verifier, stored=True),
    Field("fully_supported_share", FLOAT, "alignment", when=_by_verifier, stored=True),
    Field("claims_absent", INT, "alignment", "claims.absent", when=_by_verifier, stored=True),
    Field("claims_contradicted", INT, "alignment", "claims.contradicted", when=_by_verifier, stored=True),
    Field("citations_unsupported", INT, "alignment", "unsupported", when=_by_verifier),
    Field("citations_partial", INT, "alignment", "partial", when=_by_verifier),
    # only for answers a filtering strategy wrote (`--cite verified`, `grounded`): their figure before the filter
    Field("alignment_before_filter_micro", FLOAT, "alignment", "before_filter.alignment_micro", when=_by_verifier,
          optional=True),
    Field("geval_{aspect}", FLOAT, "geval", "aspects.{aspect}.mean", stored=True, each_aspect=True),
    Field("geval_{aspect}_missing", INT, "geval", "aspects.{aspect}.missing", each_aspect=True),
    Field("geval_{aspect}_mass", FLOAT, "geval", "aspects.{aspect}.mean_mass", each_aspect=True),
    Field("answers_without_citation", INT, "answer_descriptives", stored=True, default=0),
    Field("citations_per_answer", FLOAT, "answer_descriptives"),
    Field("na_per_answer", FLOAT, "answer_descriptives"),
    Field("sloppy_share", FLOAT, "answer_descriptives"),
    Field("truncated", INT, "answer_descriptives", default=0),
    Field("alignment_self_scored", BOOL, "evaluation"),  # None: alignment was not computed
)

#: One row of per_answer.csv (results.json `per_answer`), in column order.
PER_ANSWER: tuple[Field, ...] = (
    Field("id", STRING, "answer"),
    Field("variant", STRING, "answer"),
    Field("question", STRING, "answer", default=""),
    Field("sentences", INT, "answer", stored=True, default=0),
    Field("citations", INT, "answer", stored=True, default=0),
    Field("correct", INT, "citation_quality", stored=True, default=0),
    Field("correctness", FLOAT, "citation_quality", _correctness),
    Field("gold_triples", INT, "citation_quality", stored=True),
    Field("precise", INT, "citation_quality", stored=True),
    Field("gold_hit", INT, "citation_quality", stored=True),
    Field("precision", FLOAT, "citation_quality", stored=True),
    Field("recall", FLOAT, "citation_quality", stored=True),
    Field("alignment_pairs", INT, "alignment", "pairs"),
    Field("alignment_entailed", INT, "alignment", "entailed"),
    Field("alignment", FLOAT, "alignment", stored=True),
    Field("na_marks", INT, "answer", stored=True, default=0),
    Field("na_sentences", INT, "answer", default=0),
    Field("removed", INT, "answer", stored=True, default=0),
    Field("absent_triples", INT, "na_quality"),
    Field("na_precision", FLOAT, "na_quality", "precision", stored=True),
    Field("na_recall", FLOAT, "na_quality", "recall", stored=True),
    Field("sloppy", INT, "answer", stored=True, default=0),
    Field("entity_only", INT, "answer", default=0),
    Field("parse_issues", INT, "answer", default=0),
    Field("truncated", BOOL, "answer", stored=True, default=False),
    Field("finish_reason", STRING, "answer", stored=True),
    # the verifier's counts of the answer: citations by verdict, sentences fully supported, claims by status
    Field("partial_citations", INT, "verifier", "partial", when=_checked),
    Field("unsupported_citations", INT, "verifier", "unsupported", when=_checked),
    Field("fully_supported_sentences", INT, "verifier", "fully_supported", when=_checked),
    Field("claims_absent", INT, "verifier", when=_checked, stored=True),
    Field("claims_contradicted", INT, "verifier", when=_checked, stored=True),
    Field("geval_{aspect}", FLOAT, "geval", "{aspect}.score", stored=True, each_aspect=True),
)


def read_fields(fields: tuple[Field, ...], parts: Mapping[str, Any], aspects: tuple[str, ...] = ()) -> dict[str, Any]:
    """The fields' values, in order, read from `parts` (part name -> its result, or its row for one
    answer; a part that did not run is absent). A field whose `when` does not hold is left out; G-Eval's
    are one per aspect of `aspects`, the aspects the run judged."""
    out: dict[str, Any] = {}
    for f in fields:
        if f.when is not None and not f.when(parts):
            continue
        if f.each_aspect:
            if f.part in parts:
                out |= {f.name.format(aspect=a): f.read(parts[f.part], a) for a in aspects}
            continue
        out[f.name] = f.read(parts.get(f.part))
    return out


def unknown_paths(fields: tuple[Field, ...], parts: Mapping[str, Any], aspects: tuple[str, ...] = ()) -> list[str]:
    """The fields whose key path names a key their part does not have, where the part ran and the field's `when`
    holds: `read` would give None for them without a word (a renamed key in a metric's result). The tests run it
    over real evaluations, so a path and its metric part cannot drift apart."""
    out = []
    for f in fields:
        if callable(f.source) or f.optional or f.part not in parts or (f.when is not None and not f.when(parts)):
            continue
        for aspect in (aspects if f.each_aspect else ("",)):
            value: Any = parts[f.part]
            path = (f.source or f.name).format(aspect=aspect)
            for key in path.split("."):
                if not isinstance(value, Mapping):
                    break  # a part (or a nested result) that is None here: nothing to check below it
                if key not in value:
                    out.append(f"{f.name.format(aspect=aspect)}: {f.part}.{path}")
                    break
                value = value[key]
    return out


def stored(fields: tuple[Field, ...]) -> list[tuple[str, Kind]]:
    """The (name, kind) of every field kept on a run graph's node, G-Eval's for `GEVAL_ASPECTS`."""
    return [(name, f.kind) for f in fields if f.stored for name in f.names()]


def declared(fields: tuple[Field, ...]) -> list[Field]:
    """The fields a typed record declares: all but G-Eval's per-aspect ones (the record's extra keys)."""
    return [f for f in fields if not f.each_aspect]


__all__ = ["BOOL", "FLOAT", "GEVAL_ASPECTS", "INT", "PER_ANSWER", "STRING", "SUMMARY", "Field", "declared",
           "read_fields", "stored", "unknown_paths"]
