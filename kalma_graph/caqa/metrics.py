"""Table 5 metrics: F1 per category, micro-F1 overall and per complexity; confusion matrices.

Definitions (written out because the paper leaves them implicit):

- **F1 per category**: one-vs-rest F1 of that category. A category the evaluator cannot output
  (partially supportive for a 3-way evaluator; everything but supportive for a 2-way one) is "-",
  as in Table 5's AutoIS / AttrScore rows.
- **micro-F1** over the four categories: TP = correct predictions, FP = wrong predictions *of a
  category*, FN = samples not predicted correctly. An unparsed judge output (label None) is a false
  negative but not a false positive, so micro-F1 ≥ accuracy; both are reported, with the number of
  unparsed outputs. A 2-way evaluator gets no overall micro-F1 ("-"), only Sup. F1 (and binary
  accuracy in the JSON).
- **Undefined values**: every F1 is 2·TP / (2·TP + FP + FN) (`ratios.f1_counts`), None only for
  0/0: a category no sample has and no output names, or a complexity without samples; accuracy of
  no samples is None. 0.0 is a real zero (a category missed or only wrongly predicted). Table 5
  prints None as "-".

>>> r = scores(["supportive", "contradictory"], ["supportive", None], ["single", "union"],
...            ("supportive", "partially_supportive", "contradictory", "irrelevant"))
>>> r["overall"], r["accuracy"], r["unparsed"], r["complexity"]["union"]
(0.6667, 0.5, 1, 0.0)
>>> r["category"]  # no partially supportive / irrelevant sample, none predicted: 0/0
{'supportive': 1.0, 'partially_supportive': None, 'contradictory': 0.0, 'irrelevant': None}
>>> r["complexity"]["concatenation"], scores([], [], [], ("supportive",))["accuracy"]
(None, None)
"""

from __future__ import annotations

from typing import Any, Sequence

from kalma_graph.caqa.model import CATEGORIES, CATEGORY_SHORT, COMPLEXITIES, NOT_SUPPORTIVE, SUPPORTIVE
from kalma_graph.evaluation.metrics.ratios import f1_counts, ratio

UNPARSED = "unparsed"


def category_f1(gold: Sequence[str], pred: Sequence[str | None], category: str) -> float | None:
    """One-vs-rest F1 of `category`; None when no sample has it and none is predicted."""
    tp = sum(1 for g, p in zip(gold, pred) if g == category and p == category)
    fp = sum(1 for g, p in zip(gold, pred) if g != category and p == category)
    fn = sum(1 for g, p in zip(gold, pred) if g == category and p != category)
    return f1_counts(tp, fp, fn)


def micro_f1(gold: Sequence[str], pred: Sequence[str | None], labels: Sequence[str] = CATEGORIES) -> float | None:
    """Micro-F1 over `labels` (an unparsed output is a false negative only); None without samples."""
    tp = sum(1 for g, p in zip(gold, pred) if g == p and p in labels)
    fp = sum(1 for g, p in zip(gold, pred) if p in labels and g != p)
    fn = sum(1 for g, p in zip(gold, pred) if g != p)
    return f1_counts(tp, fp, fn)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def scores(gold: Sequence[str], pred: Sequence[str | None], complexity: Sequence[str],
           evaluator_labels: Sequence[str]) -> dict[str, Any]:
    """The Table 5 row of one evaluator (values rounded to 4 places; None = "-")."""
    two_way = NOT_SUPPORTIVE in evaluator_labels
    out: dict[str, Any] = {"n": len(gold), "unparsed": sum(1 for p in pred if p is None)}
    out["category"] = {
        c: (_round(category_f1(gold, pred, c)) if c in evaluator_labels else None) for c in CATEGORIES
    }
    if two_way:
        binary_gold = [g == SUPPORTIVE for g in gold]
        binary_pred = [None if p is None else p == SUPPORTIVE for p in pred]
        out["overall"] = None
        out["accuracy"] = _round(ratio(sum(1 for g, p in zip(binary_gold, binary_pred) if g == p), len(gold)))
        out["complexity"] = {c: None for c in COMPLEXITIES}
        out["binary"] = True
        return out
    out["overall"] = _round(micro_f1(gold, pred))
    out["accuracy"] = _round(ratio(sum(1 for g, p in zip(gold, pred) if g == p), len(gold)))
    out["complexity"] = {}
    for c in COMPLEXITIES:
        idx = [i for i, x in enumerate(complexity) if x == c]
        out["complexity"][c] = _round(micro_f1([gold[i] for i in idx], [pred[i] for i in idx]))
    out["support"] = {c: sum(1 for x in complexity if x == c) for c in COMPLEXITIES}
    return out


def confusion(gold: Sequence[str], pred: Sequence[str | None], evaluator_labels: Sequence[str]) -> dict[str, Any]:
    columns = [lab for lab in (*CATEGORIES, NOT_SUPPORTIVE) if lab in evaluator_labels] + [UNPARSED]
    matrix = [[0] * len(columns) for _ in CATEGORIES]
    for g, p in zip(gold, pred):
        matrix[CATEGORIES.index(g)][columns.index(p if p is not None else UNPARSED)] += 1
    return {"rows": list(CATEGORIES), "columns": columns, "matrix": matrix}


def confusion_png(conf: dict[str, Any], path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    short = {**CATEGORY_SHORT, NOT_SUPPORTIVE: "Not sup.", UNPARSED: "Unparsed"}
    matrix = conf["matrix"]
    fig, ax = plt.subplots(figsize=(1.3 * len(conf["columns"]) + 1.5, 4.2))
    ax.imshow(matrix, cmap="Blues")
    ax.set_xticks(range(len(conf["columns"])), [short[c] for c in conf["columns"]])
    ax.set_yticks(range(len(conf["rows"])), [short[r] for r in conf["rows"]])
    ax.set_xlabel("predicted")
    ax.set_ylabel("gold")
    top = max((max(r) for r in matrix), default=0) or 1
    for i, row in enumerate(matrix):
        for j, v in enumerate(row):
            ax.text(j, i, str(v), ha="center", va="center", color="white" if v > top / 2 else "black")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def table5_markdown(rows: dict[str, dict[str, Any]]) -> str:
    """Rows keyed by evaluator name, in Table 5's column layout."""
    comps = ("single", "concatenation", "intersection", "union")
    header = ("| Evaluator | Sup. | Par. | Con. | Irr. | Overall | Single | Concatenation | Intersection | Union "
              "| n | unparsed |")
    lines = [header, "|---|" + "---:|" * 11]
    for name, r in rows.items():
        cats = " | ".join(_fmt(r["category"][c]) for c in CATEGORIES)
        comp = " | ".join(_fmt(r["complexity"].get(c)) for c in comps)
        lines.append(f"| {name} | {cats} | {_fmt(r['overall'])} | {comp} | {r['n']} | {r['unparsed']} |")
    return "\n".join(lines) + "\n"
