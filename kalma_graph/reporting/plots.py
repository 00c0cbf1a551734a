"""PNG plots with matplotlib's Agg canvas (no display, no pyplot global state, safe in threads).

Ratios are drawn on the paper's 0–100 scale; undefined values are drawn as gaps and labelled `n/a`,
never as 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from kalma_graph.evaluation_result import EvaluationResult

DPI = 120


def _figure(width: float = 6.4, height: float = 4.0):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(figure)
    return figure


def _save(figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.tight_layout()
    tmp = path.with_name(path.stem + ".tmp.png")
    figure.savefig(tmp, format="png")
    tmp.replace(path)
    return path


def _scaled(values: Sequence[Any], scale: float) -> list[float | None]:
    return [None if v is None else float(v) * scale for v in values]


def bar_chart(path: Path, labels: Sequence[str], values: Sequence[Any], *, title: str, ylabel: str,
              ylim: tuple[float, float] = (0, 105), scale: float = 100.0, notes: Sequence[str] | None = None) -> Path:
    figure = _figure()
    ax = figure.add_subplot(1, 1, 1)
    scaled = _scaled(values, scale)
    xs = list(range(len(labels)))
    bars = ax.bar(xs, [v if v is not None else 0 for v in scaled], color="#4C72B0")
    for x, bar, v, note in zip(xs, bars, scaled, notes or [""] * len(labels)):
        if v is None:
            bar.set_alpha(0.0)
            ax.text(x, ylim[0] + 0.02 * (ylim[1] - ylim[0]), "n/a", ha="center", va="bottom", fontsize=8)
        else:
            ax.text(x, v, f"{v:.1f}" + (f"\n{note}" if note else ""), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(xs)
    ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=8)
    ax.set_ylim(*ylim)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    return _save(figure, path)


def line_chart(path: Path, x: Sequence[Any], series: Mapping[str, Sequence[Any]], *, title: str, xlabel: str,
               ylabel: str = "%", scale: float = 100.0, ylim: tuple[float, float] | None = (0, 105)) -> Path:
    figure = _figure()
    ax = figure.add_subplot(1, 1, 1)
    xs = list(range(len(x)))
    for name, values in series.items():
        ys = _scaled(values, scale)
        ax.plot(xs, [float("nan") if v is None else v for v in ys], marker="o", label=name)
        for xi, v in zip(xs, ys):
            if v is not None:
                ax.annotate(f"{v:.1f}", (xi, v), textcoords="offset points", xytext=(0, 5), ha="center", fontsize=7)
    ax.set_xticks(xs)
    ax.set_xticklabels([str(v) for v in x])
    if ylim:
        ax.set_ylim(*ylim)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return _save(figure, path)


def grouped_bars(path: Path, groups: Sequence[str], series: Mapping[str, Sequence[Any]], *, title: str,
                 ylabel: str = "%", scale: float = 100.0, ylim: tuple[float, float] = (0, 105)) -> Path:
    figure = _figure(7.2, 4.0)
    ax = figure.add_subplot(1, 1, 1)
    n = max(len(series), 1)
    width = 0.8 / n
    for k, (name, values) in enumerate(series.items()):
        xs = [i + (k - (n - 1) / 2) * width for i in range(len(groups))]
        ys = _scaled(values, scale)
        ax.bar(xs, [v if v is not None else 0 for v in ys], width=width, label=name)
        for x, v in zip(xs, ys):
            ax.text(x, (v if v is not None else ylim[0]), "n/a" if v is None else f"{v:.1f}",
                    ha="center", va="bottom", fontsize=7)
    ax.set_xticks(list(range(len(groups))))
    ax.set_xticklabels(groups, fontsize=8)
    ax.set_ylim(*ylim)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    return _save(figure, path)


def histogram(path: Path, values: Sequence[int], *, title: str, xlabel: str) -> Path:
    figure = _figure()
    ax = figure.add_subplot(1, 1, 1)
    top = max(values, default=0)
    ax.hist(values, bins=[b - 0.5 for b in range(0, top + 2)], color="#55A868", edgecolor="white")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("answers")
    ax.set_title(title, fontsize=10)
    return _save(figure, path)


def evaluation_plots(results: EvaluationResult, plot_dir: Path) -> dict[str, Path]:
    """The plots of one evaluation run; returns {name: path}."""
    metrics = results.metrics
    q = metrics.citation_quality
    al = metrics.alignment or {}
    out: dict[str, Path] = {}
    labels = ["Align.", "Corr.", "Prec. micro", "Rec. micro", "F1 micro", "Prec. macro", "Rec. macro", "F1 macro"]
    values = [al.get("alignment_micro"), q.get("correctness"), q.get("precision_micro"), q.get("recall_micro"),
              q.get("f1_micro"), q.get("precision_macro"), q.get("recall_macro"), q.get("f1_macro")]
    run = results.run_id or ""
    out["citation_quality"] = bar_chart(plot_dir / "citation_quality.png", labels, values,
                                        title=f"Citation quality and alignment {run}", ylabel="%")
    na = metrics.na_quality
    if na:
        out["na_quality"] = bar_chart(plot_dir / "na_quality.png", ["Prec.", "Rec.", "F1"],
                                      [na.get("precision"), na.get("recall"), na.get("f1")],
                                      title=f"[NA] quality ({na.get('choices', {}).get('absent_set')}) {run}",
                                      ylabel="%")
    ge = metrics.geval
    if ge:
        aspects = ge.get("aspects") or {}
        out["geval"] = bar_chart(plot_dir / "geval.png", list(aspects), [r.get("mean") for r in aspects.values()],
                                 title=f"G-Eval {run}", ylabel="score (1-5)", ylim=(1, 5), scale=1.0,
                                 notes=[f"missing {r.get('missing')}" if r.get("missing") else ""
                                        for r in aspects.values()])
    counts = [row.citations for row in results.per_answer]
    if counts:
        out["citations_per_answer"] = histogram(plot_dir / "citations_per_answer.png", counts,
                                                title=f"Citations per answer {run}", xlabel="citations")
    return out
