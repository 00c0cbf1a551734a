"""Human check of text–citation alignment (KaLMA §5.4, Table 6; instructions: Table 8).

    exported = export_pairs("runs/eval", "ann/pairs.csv", n=100, seed=0)
    # annotators fill the `human_label` column of ann/pairs.csv (or copies of it)
    report = compare_labels(["ann/pairs.csv"])          # key: ann/pairs.key.csv

`export_pairs` reads the per-citation verdicts `kalma-graph evaluate --out DIR` writes
(`DIR/answers_scored.jsonl`: per answer, each sentence's `clean_text` and each citation's `entailment`
probability and `entailed` verdict; `DIR/results.json` for the run id, threshold and overall
alignment), draws a seeded sample of sentence–citation pairs and writes

- `pairs.csv` — `pair_id, answer_id, sentence, citation, human_label` (empty), what annotators see;
- `pairs.key.csv` — the automatic label of each pair (and where it came from), kept apart so the
  annotators are not biased by it;
- `pairs.instructions.md` — the annotation instructions (data: `prompts/annotate/alignment.json`).

The sample is stratified by the automatic label with proportional allocation (largest remainder),
and at least one pair of each label when both occur and n ≥ 2: the sample's automatic rate stays
close to the run's (so the human rate estimates the same quantity, as in Table 6), while a small
sample still contains both labels. The pairs are shuffled before ids are given.

`compare_labels` joins one or more filled copies (one per annotator) with the key and reports, per
annotator and overall, n, agreement (accuracy), precision / recall / F1 of the automatic label
against the human one for the `aligned` class and Cohen's kappa (`metrics.agreement`), the Table 6
row (automatic alignment vs human average) and, with two or more annotators, their agreement.
Unfilled or unreadable labels are reported as `file:line` and left out — never guessed.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from pydantic import ValidationError

from kalma_graph.errors import BadInputError
from kalma_graph.evaluation.metrics.agreement import cohen_kappa, label_agreement
from kalma_graph.evaluation.metrics.ratios import mean
from kalma_graph.evaluation_result import EvaluationResult
from kalma_graph.files import atomic_write_json, atomic_write_text
from kalma_graph.records import describe_error

KIND = "kalma-graph.alignment-annotation"
VERSION = 1
ALIGNED, NOT_ALIGNED = "aligned", "not_aligned"
PAIRS_COLUMNS = ("pair_id", "answer_id", "sentence", "citation", "human_label")
KEY_COLUMNS = ("pair_id", "answer_id", "sentence_position", "citation_position", "qid", "prop", "value",
               "entailment", "auto_label", "threshold", "text_sha256", "run_id", "run_alignment_micro")
INSTRUCTIONS_PROMPT = "annotate/alignment"
_SPELLINGS = {"aligned": ALIGNED, "1": ALIGNED, "yes": ALIGNED,
              "not_aligned": NOT_ALIGNED, "0": NOT_ALIGNED, "no": NOT_ALIGNED}


class AnnotateError(BadInputError, ValueError):
    """Input the annotation commands cannot use; the message names the file (and line)."""


# --- reading the evaluation output -----------------------------------------------------------------


@dataclass
class ScoredRun:
    details_path: Path
    answers: list[dict]
    results: EvaluationResult | None = None  # results.json next to the details file, when present
    results_path: Path | None = None

    @property
    def run_id(self) -> str | None:
        return self.results.run_id if self.results else None

    @property
    def threshold(self) -> float | None:
        value = self.results.header.choices.get("evaluation.threshold") if self.results else None
        return float(value) if isinstance(value, (int, float)) else None

    @property
    def alignment_micro(self) -> float | None:
        return self.results.summary.alignment_micro if self.results else None


def load_scored(path: str | os.PathLike[str]) -> ScoredRun:
    """An evaluate output directory (its `answers_scored.jsonl`) or the JSONL file itself."""
    from kalma_graph.lines import json_lines
    from kalma_graph.reporting.files import DETAILS_NAME, JSON_NAME

    path = Path(path)
    details = path / DETAILS_NAME if path.is_dir() else path
    if not details.is_file():
        where = f"{path} has no {DETAILS_NAME}" if path.is_dir() else f"{path}: no such file"
        raise AnnotateError(f"{where}; pass the --out directory of `kalma-graph evaluate` or its {DETAILS_NAME}")
    answers = []
    for where, record in json_lines(details, what="scored answers file", error=AnnotateError):
        if not isinstance(record, dict) or not isinstance(record.get("sentences"), list):
            raise AnnotateError(f"{where}: not a scored answer (no 'sentences' list); "
                                f"is this the {DETAILS_NAME} of `kalma-graph evaluate`?")
        record["_line"] = int(where.rpartition(":")[2])
        answers.append(record)
    results_path = details.with_name(JSON_NAME)
    results = None
    if results_path.is_file():
        try:
            results = EvaluationResult.model_validate(json.loads(results_path.read_text(encoding="utf-8")))
        except json.JSONDecodeError as exc:
            raise AnnotateError(f"{results_path}: not JSON ({exc.msg})") from None
        except ValidationError as exc:
            raise AnnotateError(f"{results_path}: not the results.json of `kalma-graph evaluate` "
                                f"({describe_error(exc)})") from None
    return ScoredRun(details, answers, results, results_path if results is not None else None)


def alignment_pairs_of(run: ScoredRun) -> tuple[list[dict], int]:
    """Every (sentence, citation) pair with an automatic verdict, in file order, and the number of
    pairs without one (alignment not run for that answer)."""
    pairs, without = [], 0
    for answer in run.answers:
        for s_index, sentence in enumerate(answer["sentences"]):
            if not isinstance(sentence, dict):
                raise AnnotateError(f"{run.details_path}:{answer['_line']}: a sentence is not an object")
            for c_index, citation in enumerate(sentence.get("citations") or []):
                entailed = citation.get("entailed")
                if not isinstance(entailed, bool):
                    without += 1
                    continue
                pairs.append({
                    "answer_id": str(answer.get("id")),
                    "sentence_position": sentence.get("position", s_index),
                    "citation_position": c_index,
                    "sentence": str(sentence.get("clean_text") or ""),
                    "qid": str(citation.get("qid") or ""),
                    "prop": str(citation.get("prop") or ""),
                    "value": str(citation.get("value") or ""),
                    "entailment": citation.get("entailment"),
                    "auto_label": ALIGNED if entailed else NOT_ALIGNED,
                })
    return pairs, without


def citation_text(qid: str, prop: str, value: str) -> str:
    """`Q206534, place of birth: Newark` (a citation as the answer wrote it, without brackets)."""
    return f"{qid}, {prop}: {value}" if qid else f"{prop}: {value}"


# --- sampling --------------------------------------------------------------------------------------


def allocate(sizes: Mapping[str, int], n: int) -> dict[str, int]:
    """How many of `n` to draw from each stratum: proportional (largest remainder, ties by stratum
    name), at least one from each non-empty stratum when n allows, never more than a stratum holds.

    >>> allocate({"aligned": 90, "not_aligned": 10}, 10), allocate({"aligned": 99, "not_aligned": 1}, 10)
    ({'aligned': 9, 'not_aligned': 1}, {'aligned': 9, 'not_aligned': 1})
    >>> allocate({"aligned": 5, "not_aligned": 0}, 10)
    {'aligned': 5, 'not_aligned': 0}
    """
    total = sum(sizes.values())
    n = min(n, total)
    if n <= 0:
        return {k: 0 for k in sizes}
    exact = {k: n * v / total for k, v in sizes.items()}
    counts = {k: int(exact[k]) for k in sizes}
    for k in sorted(sizes, key=lambda k: (-(exact[k] - counts[k]), k))[: n - sum(counts.values())]:
        counts[k] += 1
    nonempty = [k for k in sizes if sizes[k]]
    if n >= len(nonempty):
        for k in nonempty:
            while counts[k] == 0:
                donor = max((d for d in sizes if counts[d] > 1), key=lambda d: (counts[d], d))
                counts[donor] -= 1
                counts[k] += 1
    return counts


def sample_pairs(pairs: Sequence[dict], n: int, seed: int) -> list[dict]:
    """A seeded stratified sample (by `auto_label`), shuffled; the same inputs give the same sample."""
    rng = random.Random(seed)
    strata = {label: [p for p in pairs if p["auto_label"] == label] for label in (ALIGNED, NOT_ALIGNED)}
    counts = allocate({k: len(v) for k, v in strata.items()}, n)
    chosen = [p for label in (ALIGNED, NOT_ALIGNED) for p in rng.sample(strata[label], counts[label])]
    rng.shuffle(chosen)
    return chosen


# --- export ----------------------------------------------------------------------------------------


def sidecar_paths(pairs_csv: str | os.PathLike[str]) -> dict[str, Path]:
    """`pairs.csv` → `pairs.key.csv` and `pairs.instructions.md` next to it."""
    path = Path(pairs_csv)
    stem = path.name[: -len(".csv")] if path.name.lower().endswith(".csv") else path.name
    return {"key": path.with_name(f"{stem}.key.csv"), "instructions": path.with_name(f"{stem}.instructions.md")}


def export_pairs(scored: str | os.PathLike[str] | ScoredRun, out: str | os.PathLike[str], *, n: int = 100,
                 seed: int = 0, force: bool = False) -> dict:
    """Sample `n` sentence–citation pairs of an evaluate run and write the annotation files."""
    from kalma_graph.prompts import load_prompt

    if n < 1:
        raise AnnotateError(f"--n must be at least 1 (got {n})")
    run = scored if isinstance(scored, ScoredRun) else load_scored(scored)
    out = Path(out)
    sidecars = sidecar_paths(out)
    if not force:
        existing = [str(p) for p in (out, *sidecars.values()) if p.exists()]
        if existing:
            raise AnnotateError(f"{existing[0]} exists (filled labels would be lost); choose another --out "
                                "or pass --force")
    pool, without = alignment_pairs_of(run)
    if not pool:
        reason = (f"{without} citations have no alignment verdict: evaluate with an NLI model (--nli), "
                  "not --no-nli" if without else "the answers have no citations")
        raise AnnotateError(f"{run.details_path}: no sentence–citation pair with an automatic alignment label; "
                            f"{reason}")
    chosen = sample_pairs(pool, n, seed)
    width = max(3, len(str(len(chosen))))
    threshold = run.threshold
    pair_rows, key_rows = [], []
    for i, pair in enumerate(chosen, start=1):
        pair_id = f"p{i:0{width}d}"
        citation = citation_text(pair["qid"], pair["prop"], pair["value"])
        pair_rows.append({"pair_id": pair_id, "answer_id": pair["answer_id"], "sentence": pair["sentence"],
                          "citation": citation, "human_label": ""})
        key_rows.append({
            "pair_id": pair_id, "answer_id": pair["answer_id"], "sentence_position": pair["sentence_position"],
            "citation_position": pair["citation_position"], "qid": pair["qid"], "prop": pair["prop"],
            "value": pair["value"], "entailment": _num(pair["entailment"]), "auto_label": pair["auto_label"],
            "threshold": _num(threshold), "text_sha256": text_digest(pair["sentence"], citation),
            "run_id": run.run_id or "", "run_alignment_micro": _num(run.alignment_micro),
        })
    prompt = load_prompt(INSTRUCTIONS_PROMPT)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out, _csv_text(PAIRS_COLUMNS, pair_rows))
    atomic_write_text(sidecars["key"], _csv_text(KEY_COLUMNS, key_rows))
    atomic_write_text(sidecars["instructions"], instructions_markdown(prompt, out.name, len(pair_rows)))
    sampled = {label: sum(1 for p in chosen if p["auto_label"] == label) for label in (ALIGNED, NOT_ALIGNED)}
    return {
        "kind": f"{KIND}.export",
        "version": VERSION,
        "scored": str(run.details_path),
        "run_id": run.run_id,
        "seed": seed,
        "requested": n,
        "pairs": len(pair_rows),
        "pool": {"pairs": len(pool), ALIGNED: sum(1 for p in pool if p["auto_label"] == ALIGNED),
                 NOT_ALIGNED: sum(1 for p in pool if p["auto_label"] == NOT_ALIGNED),
                 "without_verdict": without},
        "sampled": sampled,
        "sampling": "stratified by automatic label, proportional (largest remainder), at least one per label "
                    "when both occur; seeded; shuffled",
        "instructions": {"name": prompt["name"], "version": prompt["version"], "sha256": prompt["sha256"]},
        "files": {"pairs": str(out), "key": str(sidecars["key"]), "instructions": str(sidecars["instructions"])},
    }


def instructions_markdown(prompt: Mapping[str, Any], pairs_name: str, n: int) -> str:
    lines = [f"# {prompt['title']}", "", f"File: `{pairs_name}` ({n} pairs).", "", prompt["instruction"], "",
             "## Labels", ""]
    lines += [f"- `{label}`: {meaning}" for label, meaning in prompt["labels"].items()]
    lines += ["", "## Examples", ""]
    for example in prompt["examples"]:
        lines += [f"- Sentence: {example['sentence']}", f"  Citation: `{example['citation']}`",
                  f"  Label: `{example['label']}` — {example['reason']}", ""]
    lines += ["## Filling in the file", ""] + [f"- {item}" for item in prompt["form"]]
    lines += ["", f"<sub>Instructions `{prompt['name']}` v{prompt['version']} after {prompt['source']}</sub>", ""]
    return "\n".join(lines)


# --- reading labels --------------------------------------------------------------------------------


def parse_label(value: str | None) -> str | None:
    """`aligned` / `not_aligned` from the accepted spellings (case and surrounding space ignored;
    `not aligned` and `not-aligned` too); None for anything else. Empty input is the caller's case.

    >>> [parse_label(v) for v in ("Aligned", " 1 ", "YES", "not-aligned", "0", "no", "maybe")]
    ['aligned', 'aligned', 'aligned', 'not_aligned', 'not_aligned', 'not_aligned', None]
    """
    key = " ".join(str(value or "").strip().lower().replace("-", " ").replace("_", " ").split()).replace(" ", "_")
    return _SPELLINGS.get(key)


@dataclass
class Issue:
    where: str  # file:line
    pair_id: str | None
    kind: str  # empty | unreadable | unknown_pair_id | duplicate | text_changed
    problem: str
    excluded: bool = True

    def as_dict(self) -> dict:
        return {"where": self.where, "pair_id": self.pair_id, "kind": self.kind, "problem": self.problem,
                "excluded": self.excluded}


@dataclass
class LabelFile:
    path: Path
    labels: dict[str, str] = field(default_factory=dict)  # pair_id → aligned | not_aligned
    issues: list[Issue] = field(default_factory=list)
    rows: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.path.name[:-4] if self.path.name.lower().endswith(".csv") else self.path.name


def read_key(path: str | os.PathLike[str]) -> dict[str, dict]:
    """pair_id → key row (auto_label checked)."""
    path = Path(path)
    if not path.is_file():
        raise AnnotateError(f"{path}: no such key file (the `.key.csv` that `annotate export` wrote); pass --key")
    key: dict[str, dict] = {}
    for line, row in _csv_rows(path, ("pair_id", "auto_label")):
        pair_id = row["pair_id"].strip()
        if row["auto_label"].strip() not in (ALIGNED, NOT_ALIGNED):
            raise AnnotateError(f"{path}:{line}: auto_label {row['auto_label']!r} is not aligned / not_aligned")
        if pair_id in key:
            raise AnnotateError(f"{path}:{line}: pair_id {pair_id!r} appears twice")
        key[pair_id] = {**row, "pair_id": pair_id, "auto_label": row["auto_label"].strip()}
    if not key:
        raise AnnotateError(f"{path}: the key file has no pairs")
    return key


def read_labels(path: str | os.PathLike[str], key: Mapping[str, Mapping[str, str]]) -> LabelFile:
    """The human labels of one filled pairs file; every row that cannot be used is an issue."""
    path = Path(path)
    if not path.is_file():
        raise AnnotateError(f"{path}: no such pairs file")
    out = LabelFile(path)
    seen: dict[str, int] = {}
    rows = list(_csv_rows(path, ("pair_id", "human_label")))
    ids = [row["pair_id"].strip() for _, row in rows]
    duplicated = {i for i in ids if ids.count(i) > 1}
    for line, row in rows:
        out.rows += 1
        where = f"{path}:{line}"
        pair_id = row["pair_id"].strip()
        raw = row["human_label"] or ""
        if not pair_id:
            out.issues.append(Issue(where, None, "unknown_pair_id", "no pair_id"))
        elif pair_id not in key:
            out.issues.append(Issue(where, pair_id, "unknown_pair_id",
                                    f"pair_id {pair_id!r} is not in the key file"))
        elif pair_id in duplicated:
            first = seen.setdefault(pair_id, line)
            out.issues.append(Issue(where, pair_id, "duplicate", f"pair_id {pair_id!r} appears more than once"
                                    + (f" (first on line {first})" if first != line else "")))
        elif not raw.strip():
            out.issues.append(Issue(where, pair_id, "empty", "human_label is empty"))
        elif (label := parse_label(raw)) is None:
            out.issues.append(Issue(where, pair_id, "unreadable",
                                    f"human_label {raw.strip()!r} is not aligned / not_aligned (or 1/0, yes/no)"))
        else:
            out.labels[pair_id] = label
            digest = key[pair_id].get("text_sha256")
            if digest and "sentence" in row and "citation" in row \
                    and text_digest(row["sentence"] or "", row["citation"] or "") != digest:
                out.issues.append(Issue(where, pair_id, "text_changed",
                                        "sentence or citation differs from the export (label kept)", excluded=False))
    present = set(ids)
    missing = [pid for pid in key if pid not in present]
    kinds = [i.kind for i in out.issues]
    out.counts = {
        "rows": out.rows,
        "labelled": len(out.labels),
        "empty": kinds.count("empty"),
        "unreadable": kinds.count("unreadable"),
        "unknown_pair_id": kinds.count("unknown_pair_id"),
        "duplicate_rows": kinds.count("duplicate"),
        "text_changed": kinds.count("text_changed"),
        "missing_rows": len(missing),
    }
    return out


# --- compare ---------------------------------------------------------------------------------------


def compare_labels(pairs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], *,
                   key: str | os.PathLike[str] | None = None) -> dict:
    """Join filled pairs files (one per annotator) with the key; agreement of the automatic label
    with each annotator, overall (pooled over annotators), the Table 6 row and inter-annotator
    agreement. Raises `AnnotateError` for unusable files; rows it cannot use are `issues`."""
    paths = [Path(pairs)] if isinstance(pairs, (str, os.PathLike)) else [Path(p) for p in pairs]
    if not paths:
        raise AnnotateError("no pairs file given")
    key_path = Path(key) if key is not None else sidecar_paths(paths[0])["key"]
    if key is None and not key_path.is_file():
        raise AnnotateError(f"{key_path}: no key file next to {paths[0]}; pass --key PAIRS.key.csv "
                            "(the file `annotate export` wrote)")
    key_rows = read_key(key_path)
    files = [read_labels(p, key_rows) for p in paths]
    names = [f.name for f in files]
    if len(set(names)) < len(names):
        names = [str(f.path) for f in files]
    annotators = []
    pooled_human, pooled_auto = [], []
    for name, f in zip(names, files):
        ids = [pid for pid in key_rows if pid in f.labels]
        human = [f.labels[pid] for pid in ids]
        auto = [key_rows[pid]["auto_label"] for pid in ids]
        pooled_human += human
        pooled_auto += auto
        result = label_agreement(human, auto, positive=ALIGNED)
        annotators.append({"annotator": name, "file": str(f.path), **f.counts, "metrics": result,
                           "human_alignment": result["reference_positive_share"],
                           "auto_alignment": result["predicted_positive_share"]})
    overall = label_agreement(pooled_human, pooled_auto, positive=ALIGNED)
    issues = [i.as_dict() for f in files for i in f.issues]
    labelled_any = [pid for pid in key_rows if any(pid in f.labels for f in files)]
    auto_sample = mean(1.0 if key_rows[pid]["auto_label"] == ALIGNED else 0.0 for pid in labelled_any)
    human_avg = mean(a["human_alignment"] for a in annotators)
    run_alignment = _float((next(iter(key_rows.values())) or {}).get("run_alignment_micro"))
    run_id = next(iter(key_rows.values())).get("run_id") or None
    report = {
        "kind": f"{KIND}.comparison",
        "version": VERSION,
        "key": str(key_path),
        "run_id": run_id,
        "exported_pairs": len(key_rows),
        "annotators": annotators,
        "n": overall["n"],
        "accuracy": overall["agreement"],
        "precision": overall["precision"],
        "recall": overall["recall"],
        "f1": overall["f1"],
        "cohen_kappa": overall["cohen_kappa"],
        "overall": overall,
        "table6": {
            "system": run_id or key_path.name,
            "alignment_run": run_alignment,
            "alignment_sample": auto_sample,
            "human_avg": human_avg,
            "gap": (auto_sample - human_avg) if auto_sample is not None and human_avg is not None else None,
            "pairs_labelled": len(labelled_any),
        },
        "inter_annotator": inter_annotator(dict(zip(names, (f.labels for f in files)))),
        "issues": issues,
        "excluded": sum(1 for i in issues if i["excluded"]),
        "choices": {
            "positive_class": ALIGNED,
            "reference": "human label",
            "prediction": "automatic (NLI) label",
            "overall": "pooled over annotators" if len(files) > 1 else "the one annotator",
            "unfilled_or_unreadable": "reported and excluded",
            "kappa_when_expected_agreement_is_1": "undefined (None)",
        },
    }
    report["markdown"] = comparison_markdown(report)
    return report


def inter_annotator(labels: Mapping[str, Mapping[str, str]]) -> dict | None:
    """Percent agreement and kappa between every two annotators on the pairs both labelled, and
    their means (the paper reports percent agreement); None with fewer than two annotators."""
    names = list(labels)
    if len(names) < 2:
        return None
    rows: list[dict[str, Any]] = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            common = [pid for pid in labels[a] if pid in labels[b]]
            la, lb = [labels[a][p] for p in common], [labels[b][p] for p in common]
            rows.append({"a": a, "b": b, "n": len(common),
                         "agreement": (sum(x == y for x, y in zip(la, lb)) / len(common)) if common else None,
                         "cohen_kappa": cohen_kappa(la, lb)})
    return {"pairs": rows, "agreement": mean(r["agreement"] for r in rows),
            "cohen_kappa": mean(r["cohen_kappa"] for r in rows)}


def comparison_markdown(report: Mapping[str, Any]) -> str:
    t = report["table6"]
    lines = ["# Human check of text–citation alignment", "",
             f"- key: `{report['key']}` ({report['exported_pairs']} pairs exported)",
             f"- run: `{report['run_id'] or 'unknown'}`",
             f"- labelled pairs used: {report['n']} (excluded rows: {report['excluded']})",
             "- automatic label = NLI entailment at the run's threshold; reference = the human label; "
             "positive class `aligned`", "",
             "## Alignment, automatic vs human (Table 6 layout)", "",
             *_md_table(["system", "Alignment (run)", "Alignment (sample)", "Human Avg.", "gap"],
                        [[t["system"], _pct(t["alignment_run"]), _pct(t["alignment_sample"]), _pct(t["human_avg"]),
                          _pct(t["gap"])]]),
             "", "## Automatic label against the human one", "",
             *_md_table(["annotator", "n", "agreement", "precision", "recall", "F1", "Cohen's κ", "empty",
                         "unreadable"],
                        [[a["annotator"], a["metrics"]["n"], _pct(a["metrics"]["agreement"]),
                          _pct(a["metrics"]["precision"]), _pct(a["metrics"]["recall"]), _pct(a["metrics"]["f1"]),
                          _num2(a["metrics"]["cohen_kappa"]), a["empty"], a["unreadable"]]
                         for a in report["annotators"]]
                        + ([["all (pooled)", report["n"], _pct(report["accuracy"]), _pct(report["precision"]),
                             _pct(report["recall"]), _pct(report["f1"]), _num2(report["cohen_kappa"]),
                             "", ""]] if len(report["annotators"]) > 1 else [])),
             ""]
    iaa = report.get("inter_annotator")
    if iaa:
        lines += ["## Inter-annotator agreement", "",
                  *_md_table(["annotators", "n", "agreement", "Cohen's κ"],
                             [[f"{r['a']} / {r['b']}", r["n"], _pct(r["agreement"]), _num2(r["cohen_kappa"])]
                              for r in iaa["pairs"]]), ""]
    if report["issues"]:
        lines += ["## Rows not used", ""]
        lines += [f"- `{i['where']}`: {i['problem']}" for i in report["issues"]]
        lines.append("")
    lines.append("Percentages on the paper's 0–100 scale; κ undefined (n/a) when both labelings use one class only.")
    return "\n".join(lines) + "\n"


def write_comparison(report: Mapping[str, Any], out: str | os.PathLike[str]) -> dict[str, str]:
    """`report.json` (without the Markdown) and `report.md` next to it."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    md = out.with_suffix(".md") if out.suffix.lower() == ".json" else out.with_name(out.name + ".md")
    atomic_write_json(out, {k: v for k, v in report.items() if k != "markdown"}, default=None)
    atomic_write_text(md, report["markdown"])
    return {"json": str(out), "markdown": str(md)}


# --- helpers ---------------------------------------------------------------------------------------


def text_digest(sentence: str, citation: str) -> str:
    return hashlib.sha256(f"{sentence.strip()}\x1f{citation.strip()}".encode("utf-8")).hexdigest()[:16]


def _csv_rows(path: Path, required: Sequence[str]) -> Iterable[tuple[int, dict[str, str]]]:
    """(first physical line of the record, row) for every non-blank record; the delimiter (`,` `;`
    or tab, as spreadsheet programs save) is read from the header line."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise AnnotateError(f"{path}: not UTF-8 text ({exc.reason}); save the sheet as CSV UTF-8") from None
    first = text.split("\n", 1)[0]
    delimiter = next((d for d in (",", ";", "\t")
                      if all(c in [h.strip().strip('"') for h in first.split(d)] for c in required)), ",")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header = [h.strip() for h in next(reader, [])]
    lacking = [c for c in required if c not in header]
    if lacking:
        raise AnnotateError(f"{path}:1: no {', '.join(lacking)} column (header: {', '.join(header) or 'empty'})")
    while True:
        start = reader.line_num + 1
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise AnnotateError(f"{path}:{start}: not CSV ({exc})") from None
        if not any(c.strip() for c in cells):
            continue
        yield start, {name: (cells[i] if i < len(cells) else "") for i, name in enumerate(header)}


def _csv_text(columns: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def _num(value: Any) -> str:
    return "" if value is None else f"{float(value):.6g}"


def _float(value: Any) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


def _pct(value: Any) -> str:
    return "n/a" if value is None else f"{100 * float(value):.1f}"


def _num2(value: Any) -> str:
    return "n/a" if value is None else f"{float(value):.2f}"


def _md_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    from kalma_graph.reporting.markdown import table

    return table(headers, rows)


__all__ = [
    "ALIGNED",
    "NOT_ALIGNED",
    "AnnotateError",
    "allocate",
    "compare_labels",
    "export_pairs",
    "inter_annotator",
    "load_scored",
    "parse_label",
    "read_key",
    "read_labels",
    "sample_pairs",
    "write_comparison",
]
