"""Held-out quality figures for an `NLIModel`: pure functions returning dicts.

- `eval_nli`: accuracy and macro-F1 on labelled NLI rows (3-way; collapsed to entailment vs not
  when the model or the rows are 2-way), per source as well.
- `eval_attribution`: binary attribution on claim-evidence rows: ROC-AUC of P(entailment), accuracy
  at 0.5, and accuracy at a threshold calibrated on dev data only: either k-fold cross-validated
  (the threshold for each fold is fitted on the other folds; accuracy pooled over all rows) or with
  an explicit dev/test split.
- `eval_kg`: `eval_nli` on KG-generated pairs plus accuracy per generation kind and the binary
  supported-vs-not view used for citations.

Card
----
Definitions
    - ``accuracy``: share of rows whose predicted label is the gold label.
    - ``macro_f1``: mean over the labels (the three NLI labels, or entailment / not_entailment) of
      each label's one-vs-rest F1 = 2·TP / (2·TP + FP + FN) (`ratios.f1_counts`).
    - ``roc_auc``: ROC-AUC of P(entailment) against the binary label (scikit-learn).
Undefined values
    A label no row has and the model never predicts has no F1 (0/0: None) and is left out of the
    macro mean, as everywhere in the evaluation metrics (`kalma_graph.evaluation.metrics.ratios`);
    ``macro_f1`` is None only when no label has one. ROC-AUC is None when the rows hold one class.

>>> macro_f1(["entailment", "neutral", "neutral"], ["entailment", "neutral", "entailment"], THREE_WAY)
0.6666666666666666
>>> label_f1(["entailment"], ["entailment"], THREE_WAY)  # the other two: 0/0, left out of the mean
{'entailment': 1.0, 'neutral': None, 'contradiction': None}
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any, Sequence

import numpy as np

from kalma_graph.evaluation.metrics.ratios import f1_counts, mean
from kalma_graph.models.nli import ENTAILMENT, NOT_ENTAILMENT, NLIModel
from kalma_graph.nli.data import bucket

THREE_WAY = ("entailment", "neutral", "contradiction")


def label_f1(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str]) -> dict[str, float | None]:
    """One-vs-rest F1 of each label; None for a label neither gold nor predicted."""
    out: dict[str, float | None] = {}
    for label in labels:
        tp = sum(1 for g, p in zip(gold, pred) if g == label and p == label)
        fp = sum(1 for g, p in zip(gold, pred) if g != label and p == label)
        fn = sum(1 for g, p in zip(gold, pred) if g == label and p != label)
        out[label] = f1_counts(tp, fp, fn)
    return out


def macro_f1(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str]) -> float | None:
    """Mean of the labels' defined F1 values (`label_f1`)."""
    return mean(label_f1(gold, pred, labels).values())


def eval_nli(model: NLIModel, rows: Sequence[dict[str, Any]], *, batch_size: int | None = None,
             window: bool = False) -> dict[str, Any]:
    """Accuracy / macro-F1 of the model's argmax label against `row["label"]`."""
    if not rows:
        raise ValueError("no rows to evaluate")
    start = time.perf_counter()
    probs = model.predict_proba([r["premise"] for r in rows], [r["hypothesis"] for r in rows],
                                batch_size=batch_size, window=window)
    return _nli_figures(model, rows, probs, time.perf_counter() - start)


def _nli_figures(model: NLIModel, rows: Sequence[dict[str, Any]], probs: np.ndarray, seconds: float) -> dict[str, Any]:
    gold = [str(r["label"]).lower() for r in rows]
    binary = set(model.labels) == {ENTAILMENT, NOT_ENTAILMENT} or any(g == NOT_ENTAILMENT for g in gold)
    if binary:
        ent = probs[:, model.entailment_index]
        pred = [ENTAILMENT if p >= 0.5 else NOT_ENTAILMENT for p in ent]
        gold = [ENTAILMENT if g == ENTAILMENT else NOT_ENTAILMENT for g in gold]
        labels: tuple[str, ...] = (ENTAILMENT, NOT_ENTAILMENT)
    else:
        pred = [model.labels[i] for i in probs.argmax(axis=1)]
        labels = THREE_WAY
    correct = np.array([g == p for g, p in zip(gold, pred)])
    by_source: dict[str, list[bool]] = defaultdict(list)
    for r, ok in zip(rows, correct):
        by_source[str(r.get("source", ""))].append(bool(ok))
    confusion = {g: {p: 0 for p in labels} for g in labels}
    for g, p in zip(gold, pred):
        if g in confusion and p in confusion[g]:
            confusion[g][p] += 1
    return {
        "n": len(rows),
        "mode": "2-way" if binary else "3-way",
        "accuracy": float(correct.mean()),
        "macro_f1": macro_f1(gold, pred, labels),
        "by_source": {k: {"n": len(v), "accuracy": float(np.mean(v))} for k, v in sorted(by_source.items())},
        "confusion": confusion,
        "seconds": round(seconds, 2),
        "pairs_per_s": round(len(rows) / seconds, 1) if seconds > 0 else None,
    }


def best_threshold(scores: Sequence[float], labels: Sequence[int]) -> float:
    """The threshold (score >= t means positive) with the highest accuracy; ties -> closest to 0.5.

    >>> best_threshold([0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1])
    0.5
    """
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=int)
    uniq = np.unique(s)
    candidates = np.concatenate(([0.0, 0.5], (uniq[:-1] + uniq[1:]) / 2, [uniq[-1] + 1e-9, 1.0 + 1e-9]))
    best_t, best_acc = 0.5, -1.0
    for t in candidates:
        acc = float(np.mean((s >= t) == (y == 1)))
        if acc > best_acc + 1e-12 or (abs(acc - best_acc) <= 1e-12 and abs(t - 0.5) < abs(best_t - 0.5)):
            best_t, best_acc = float(t), acc
    return best_t


def _auc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(labels, scores)) if len(set(labels)) == 2 else None


def eval_attribution(
    model: NLIModel,
    rows: Sequence[dict[str, Any]],
    *,
    folds: int = 5,
    dev_ids: set[str] | None = None,
    window: bool = True,
    batch_size: int | None = None,
) -> dict[str, Any]:
    """Binary attribution figures; `rows` from `kalma_graph.nli.data.load_attribution`.

    Calibration is on dev data only: with `dev_ids` the threshold is fitted on those rows and
    accuracy reported on the others; otherwise `folds`-fold cross-validation by a hash of the row id.
    """
    if not rows:
        raise ValueError("no rows to evaluate")
    start = time.perf_counter()
    scores = model.entailment_prob([r["premise"] for r in rows], [r["hypothesis"] for r in rows],
                                   window=window, batch_size=batch_size)
    seconds = time.perf_counter() - start
    y = np.array([int(r["label"]) for r in rows])
    result: dict[str, Any] = {
        "n": len(rows),
        "roc_auc": _auc(y.tolist(), scores.tolist()),
        "accuracy_at_0.5": float(np.mean((scores >= 0.5) == (y == 1))),
        "window": window,
        "seconds": round(seconds, 2),
    }
    if dev_ids is not None:
        is_dev = np.array([r["id"] in dev_ids for r in rows])
        t = best_threshold(scores[is_dev], y[is_dev])
        test = ~is_dev
        result["calibration"] = {"method": "dev split", "n_dev": int(is_dev.sum()), "n_test": int(test.sum()),
                                 "threshold": t}
        result["accuracy"] = float(np.mean((scores[test] >= t) == (y[test] == 1)))
        result["roc_auc_test"] = _auc(y[test].tolist(), scores[test].tolist())
    else:
        fold = np.array([int(bucket(str(r["id"]), "attr-fold") * folds) for r in rows])
        pred = np.zeros(len(rows), dtype=bool)
        thresholds = []
        for k in range(folds):
            held = fold == k
            t = best_threshold(scores[~held], y[~held])
            thresholds.append(t)
            pred[held] = scores[held] >= t
        result["calibration"] = {"method": f"{folds}-fold cross-validation", "thresholds": thresholds}
        result["accuracy"] = float(np.mean(pred == (y == 1)))
    by_source: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        by_source[str(r.get("source", ""))].append(i)
    result["by_source"] = {
        s: {"n": len(ix), "roc_auc": _auc(y[ix].tolist(), scores[ix].tolist())} for s, ix in sorted(by_source.items())
    }
    return result


def eval_kg(model: NLIModel, rows: Sequence[dict[str, Any]], *, batch_size: int | None = None) -> dict[str, Any]:
    """3-way figures on KG-generated pairs, per generation kind, and supported-vs-not (binary)."""
    if not rows:
        raise ValueError("no rows to evaluate")
    start = time.perf_counter()
    probs = model.predict_proba([r["premise"] for r in rows], [r["hypothesis"] for r in rows], batch_size=batch_size)
    base = _nli_figures(model, rows, probs, time.perf_counter() - start)
    pred = [model.labels[i] for i in probs.argmax(axis=1)]
    ent = probs[:, model.entailment_index]
    y = np.array([1 if r["label"] == ENTAILMENT else 0 for r in rows])
    by_kind: dict[str, list[bool]] = defaultdict(list)
    for r, p in zip(rows, pred):
        by_kind[str(r.get("kind", ""))].append(p == r["label"])
    base["by_kind"] = {k: {"n": len(v), "accuracy": float(np.mean(v))} for k, v in sorted(by_kind.items())}
    base["binary"] = {"roc_auc": _auc(y.tolist(), ent.tolist()),
                      "accuracy_at_0.5": float(np.mean((ent >= 0.5) == (y == 1)))}
    return base


def select_nli_rows(rows: Sequence[dict[str, Any]], *, portion: str = "all", source: str | None = None,
                    limit: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
    """Rows of a labelled NLI file: `portion` "all" or one of our fixed portions (`mnli_dev`,
    `anli_dev`, `train`; see `kalma_graph.nli.data.nli_portions`), optionally only sources starting
    with `source`, optionally a deterministic sample of `limit` rows."""
    from kalma_graph.nli.data import nli_portions

    selected = list(rows) if portion == "all" else nli_portions(rows).get(portion)
    if selected is None:
        raise ValueError(f"unknown portion {portion!r}; use all, mnli_dev, anli_dev or train")
    if source:
        selected = [r for r in selected if str(r.get("source", "")).lower().startswith(source.lower())]
    if limit is not None and len(selected) > limit:
        selected = sorted(selected,
                          key=lambda r: bucket(f"{r['premise']}\x1f{r['hypothesis']}", f"limit:{seed}"))[:limit]
    return selected


def evaluate_files(
    model: NLIModel,
    *,
    nli_files: Sequence[str] = (),
    portion: str = "all",
    source: str | None = None,
    attribution_files: Sequence[str] = (),
    with_question: bool = False,
    folds: int = 5,
    window: bool = True,
    kg_pair_files: Sequence[str] = (),
    kg_record_files: Sequence[str] = (),
    kg_split: str = "test",
    seed: int = 0,
    limit: int | None = None,
    batch_size: int | None = None,
) -> dict[str, Any]:
    """Evaluate one model on labelled files; the dict `kalma-graph nli eval` prints and writes."""
    from kalma_graph.nli.data import load_attribution, read_jsonl

    report: dict[str, Any] = {"model": model.describe(), "nli": {}, "attribution": {}, "kg": {}}
    for path in nli_files:
        rows = select_nli_rows(read_jsonl(path), portion=portion, source=source, limit=limit)
        report["nli"][str(path)] = {"portion": portion, "source": source,
                                    **eval_nli(model, rows, batch_size=batch_size)}
    for path in attribution_files:
        rows = load_attribution(path, with_question=with_question)
        if limit is not None:
            rows = sorted(rows, key=lambda r: bucket(str(r["id"]), "limit"))[:limit]
        report["attribution"][str(path)] = eval_attribution(model, rows, folds=folds, window=window,
                                                            batch_size=batch_size)
    for path in kg_pair_files:
        rows = read_jsonl(path)
        if limit is not None:
            rows = sorted(rows, key=lambda r: bucket(f"{r['premise']}\x1f{r['hypothesis']}", "limit"))[:limit]
        report["kg"][str(path)] = eval_kg(model, rows, batch_size=batch_size)
    for path in kg_record_files:  # BioKaLMA-format graph records: pairs of the held-out entities
        from kalma_graph.nli.kg_pairs import kg_pairs_by_split, records_from_biokalma

        rows = kg_pairs_by_split(records_from_biokalma(path), seed=seed)[kg_split]
        if limit is not None:
            rows = sorted(rows, key=lambda r: bucket(f"{r['premise']}\x1f{r['hypothesis']}", "limit"))[:limit]
        report["kg"][f"{path}#{kg_split}"] = eval_kg(model, rows, batch_size=batch_size)
    return report
