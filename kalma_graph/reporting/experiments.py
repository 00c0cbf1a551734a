"""Reports of the KaLMA experiments: one row per setting (removal round, retrieval accuracy, question
variant), in the layouts of the paper's Table 5, Figure 4, Figure 5 and Table 7."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from kalma_graph.files import atomic_write_json, atomic_write_text
from kalma_graph.reporting.files import per_answer_csv
from kalma_graph.reporting.markdown import align_label, num, pct, table

CITATION_COLUMNS = ("correctness", "precision_micro", "recall_micro", "f1_micro")
NA_COLUMNS = ("na_precision", "na_recall", "na_f1")
GEVAL_COLUMNS = ("geval_coherence", "geval_consistency", "geval_fluency", "geval_relevance")

TITLES = {
    "conscious": "Conscious incompetence: knowledge removal (KaLMA §5.2, Table 5 and Figure 4)",
    "retrieval": "Retrieval accuracy ablation (KaLMA §5.3, Figure 5)",
    "variants": "General vs specific questions (KaLMA §5.5, Table 7)",
    "strategies": "Models and citation strategies (KaLMA §5.1, Tables 3 and 4)",
}
SETTING_LABELS = {"conscious": "Removed", "retrieval": "Retrieval accuracy", "variants": "Setting",
                  "strategies": "Model / strategy"}


def write_experiment_report(kind: str, rows: Sequence[Mapping[str, Any]], out_dir: str | os.PathLike[str], *,
                            header: Mapping[str, Any] | None = None, plots: bool = True) -> dict[str, Path]:
    """`experiment.json`, `experiment.csv`, `experiment.md` and the plots of an experiment.

    Each row holds `setting` (e.g. 0, 1, 2, 3 removed; 100, 80, … accuracy; general, specific) and the
    summary scores of that setting's evaluation (`kalma_graph.evaluation.evaluate` `summary` keys)."""
    if kind not in TITLES:
        raise ValueError(f"unknown experiment {kind!r}; expected one of {sorted(TITLES)}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = {"json": out / "experiment.json", "csv": out / "experiment.csv", "markdown": out / "experiment.md"}
    if plots:
        files |= experiment_plots(kind, rows, out / "plots")
    payload = {"kind": f"kalma-graph.experiment.{kind}", "header": dict(header or {}), "rows": list(rows),
               "files": {k: str(v) for k, v in files.items()}}
    atomic_write_json(files["json"], payload)
    atomic_write_text(files["csv"], per_answer_csv(list(rows)))
    atomic_write_text(files["markdown"], experiment_markdown(kind, rows, header or {}))
    return files


def experiment_markdown(kind: str, rows: Sequence[Mapping[str, Any]], header: Mapping[str, Any]) -> str:
    label = SETTING_LABELS[kind]
    lines = [f"# {TITLES[kind]}", ""]
    for key, value in header.items():
        lines.append(f"- {key}: {json.dumps(value, default=str) if isinstance(value, (dict, list)) else value}")
    lines += ["", "## Citation quality (micro, %)", ""]
    lines += table([label, "answers", align_label(rows), "Corr.", "Prec.", "Rec.", "F1"],
                   [[r.get("setting"), r.get("answers"), pct(r.get("alignment_micro"))] +
                    [pct(r.get(c)) for c in CITATION_COLUMNS] for r in rows])
    if kind == "conscious":
        lines += ["", "## [NA] quality (%)", ""]
        lines += table([label, "Prec.", "Rec.", "F1", "absent triples"],
                       [[r.get("setting")] + [pct(r.get(c)) for c in NA_COLUMNS] + [r.get("absent_triples")]
                        for r in rows])
    if any(r.get(c) is not None for r in rows for c in GEVAL_COLUMNS):
        lines += ["", "## Text quality (G-Eval, 1–5)", ""]
        lines += table([label, "Coh.", "Con.", "Flu.", "Rel."],
                       [[r.get("setting")] + [num(r.get(c)) for c in GEVAL_COLUMNS] for r in rows])
    dirs = [(r.get("setting"), r.get("out_dir")) for r in rows if r.get("out_dir")]
    if dirs:
        lines += ["", "Per-setting reports: " + ", ".join(f"{s}: `{d}`" for s, d in dirs)]
    return "\n".join(lines) + "\n"


def experiment_plots(kind: str, rows: Sequence[Mapping[str, Any]], plot_dir: Path) -> dict[str, Path]:
    from kalma_graph.reporting.plots import grouped_bars, line_chart

    settings = [r.get("setting") for r in rows]
    names = {"correctness": "Correctness", "precision_micro": "Precision", "recall_micro": "Recall",
             "f1_micro": "F1", "alignment_micro": "Alignment"}
    out: dict[str, Path] = {}
    if kind == "conscious":
        out["plot_citation_quality"] = line_chart(
            plot_dir / "removal_citation_quality.png", settings,
            {names[c]: [r.get(c) for r in rows] for c in CITATION_COLUMNS},
            title="Citation quality with N minimum-set triples removed (Table 5)", xlabel="knowledge removed")
        out["plot_na"] = line_chart(
            plot_dir / "removal_na_quality.png", settings,
            {"[NA] precision": [r.get("na_precision") for r in rows], "[NA] recall": [r.get("na_recall") for r in rows],
             "[NA] F1": [r.get("na_f1") for r in rows]},
            title="[NA] precision, recall and F1 (Figure 4)", xlabel="knowledge removed")
    elif kind == "retrieval":
        out["plot_citation_quality"] = line_chart(
            plot_dir / "retrieval_citation_quality.png", settings,
            {names[c]: [r.get(c) for r in rows] for c in CITATION_COLUMNS},
            title="Citation quality (micro) by retrieval accuracy (Figure 5)", xlabel="retrieval accuracy (%)")
    elif kind == "strategies":
        columns = ("alignment_micro",) + CITATION_COLUMNS
        out["plot_citation_quality"] = grouped_bars(
            plot_dir / "strategies_citation_quality.png", [names[c] for c in columns],
            {str(r.get("setting")): [r.get(c) for c in columns] for r in rows},
            title="Citation quality by model and strategy (Table 3)")
    else:
        columns = ("alignment_micro",) + CITATION_COLUMNS
        out["plot_citation_quality"] = grouped_bars(
            plot_dir / "variants_citation_quality.png", [names[c] for c in columns],
            {str(r.get("setting")): [r.get(c) for c in columns] for r in rows},
            title="General vs specific questions (Table 7)")
        if any(r.get(c) is not None for r in rows for c in GEVAL_COLUMNS):
            out["plot_geval"] = grouped_bars(
                plot_dir / "variants_geval.png", ["Coh.", "Con.", "Flu.", "Rel."],
                {str(r.get("setting")): [r.get(c) for c in GEVAL_COLUMNS] for r in rows},
                title="G-Eval, general vs specific (Table 7)", ylabel="score (1-5)", scale=1.0, ylim=(1, 5))
    return out
