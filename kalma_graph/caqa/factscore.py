"""FActScore on partially supportive samples (§6.3, Appendix D.2).

The sub-facts of a partially supportive sample are the triples of its subgraph *before* deletion
(`supportive_facts`), verbalised one sentence each (the template sentence; the paper used ChatGPT
with "Your task is to convert a triple into natural language statement", available here as the
prompt `caqa/triple_to_fact` for an LLM). Then:

- **CAQA FActScore** of a sample = share of its sub-facts still in the cited subgraph — computed
  from the triples before and after deletion, no model involved;
- **an evaluator's FActScore** = share of sub-facts it judges supported by the sample's citation
  (`Evaluator.supported`: NLI entailment, the LLM's True/False, or a fine-tuned classifier's
  "supportive").

Scores are averaged over samples (FActScore is a per-response precision). The report gives each
evaluator's FActScore and its gap to CAQA's own (Table 6's "Hum-Gap", with CAQA's automatic
annotation standing in for the human one).

>>> caqa_factscore({"facts": [{"subject": "a", "pid": "p", "object": "b"}],
...                 "supportive_facts": [{"subject": "a", "pid": "p", "object": "b"},
...                                      {"subject": "b", "pid": "q", "object": "c"}]})
0.5
"""

from __future__ import annotations

from typing import Any, Sequence

from kalma_graph.caqa.model import PARTIAL, Fact, Sample
from kalma_graph.caqa.verbalise import fact_sentence


def caqa_factscore(sample: Sample | dict) -> float:
    d = sample if isinstance(sample, dict) else sample.as_dict()
    before = {(f["subject"], f["pid"], f["object"]) for f in d["supportive_facts"] or []}
    after = {(f["subject"], f["pid"], f["object"]) for f in d["facts"]}
    return len(before & after) / len(before) if before else 0.0


def sub_facts(sample: Sample) -> list[str]:
    return [fact_sentence(Fact.from_dict(f)) for f in sample.supportive_facts or []]


def factscore_report(evaluators: Sequence, samples: Sequence[Sample], limit: int | None = 200) -> dict[str, Any]:
    """FActScore of CAQA's annotation and of each evaluator on (up to `limit`) partially supportive
    samples, in file order."""
    partial = [s for s in samples if s.category == PARTIAL and s.supportive_facts]
    if limit is not None:
        partial = partial[:limit]
    out: dict[str, Any] = {"n": len(partial)}
    if not partial:
        return out
    caqa = sum(caqa_factscore(s) for s in partial) / len(partial)
    out["caqa"] = round(caqa, 4)
    out["evaluators"] = {}
    facts, citations, owner = [], [], []
    for i, s in enumerate(partial):
        for f in sub_facts(s):
            facts.append(f)
            citations.append(s.citation)
            owner.append(i)
    for ev in evaluators:
        verdicts = ev.supported(facts, citations)
        per: list[list[bool]] = [[] for _ in partial]
        unparsed = 0
        for o, v in zip(owner, verdicts):
            if v is None:
                unparsed += 1  # left out of the score (counted), never taken as True or False
                continue
            per[o].append(bool(v))
        scored = [sum(p) / len(p) for p in per if p]
        if not scored:
            out["evaluators"][ev.name] = {"factscore": None, "gap": None, "sub_facts": len(facts), "unparsed": unparsed}
            continue
        score = sum(scored) / len(scored)
        out["evaluators"][ev.name] = {"factscore": round(score, 4), "gap": round(abs(score - caqa), 4),
                                      "sub_facts": len(facts), "unparsed": unparsed, "samples_scored": len(scored)}
    return out


def factscore_markdown(report: dict[str, Any]) -> str:
    if report.get("skipped"):
        return "FActScore not computed (factscore limit 0).\n"
    if not report.get("n"):
        return "No partially supportive samples: no FActScore.\n"
    lines = [f"FActScore on {report['n']} partially supportive samples (gap = |evaluator − CAQA|)", "",
             "| Evaluator | FActScore | Gap | unparsed sub-facts |", "|---|---:|---:|---:|"]
    for name, r in report["evaluators"].items():
        score = "-" if r["factscore"] is None else f"{r['factscore']:.3f}"
        gap = "-" if r["gap"] is None else f"{r['gap']:.3f}"
        lines.append(f"| {name} | {score} | {gap} | {r['unparsed']} |")
    lines.append(f"| CAQA annotation (triples after / before deletion) | {report['caqa']:.3f} | 0.000 | - |")
    return "\n".join(lines) + "\n"
