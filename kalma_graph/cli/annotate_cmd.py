"""`kalma-graph annotate`: the human check of text–citation alignment (KaLMA §5.4, Table 6).

Thin: `export` and `compare` parse options and call `kalma_graph.evaluation.annotate.export_pairs` /
`compare_labels`, which return dicts; this module prints them."""

from __future__ import annotations

import click
from rich.markup import escape
from rich.table import Table

from .common import KalmaGroup, console, err_console, fail, figure, json_option, print_json


def _pct(value) -> str:
    return figure(value, 1, scale=100)


def _num(value) -> str:
    return figure(value, 2)


@click.group("annotate", cls=KalmaGroup)
def annotate() -> None:
    """Human check of text–citation alignment: export pairs to label, compare the labels.

    `export` samples sentence–citation pairs from an `evaluate --out` directory into a CSV for
    annotators (automatic labels kept apart in PAIRS.key.csv); `compare` joins the filled labels with
    the automatic ones (agreement, precision / recall / F1 for `aligned`, Cohen's kappa).
    """


@annotate.command("export")
@click.option("--scored", required=True, type=click.Path(exists=True),
              help="The --out directory of `kalma-graph evaluate` (or its answers_scored.jsonl).")
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False),
              help="Pairs CSV to write; PAIRS.key.csv and PAIRS.instructions.md go next to it.")
@click.option("--n", "n", type=int, default=100, show_default=True,
              help="Pairs to sample (the paper: 100 per system); all of them when there are fewer.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the sample and of the row order.")
@click.option("--force", is_flag=True, help="Overwrite existing pairs / key / instructions files.")
@json_option
def export_cmd(scored, out_path, n, seed, force, as_json):
    """Sample sentence–citation pairs (stratified by the automatic label) for human annotation."""
    from kalma_graph.evaluation.annotate import export_pairs

    result = export_pairs(scored, out_path, n=n, seed=seed, force=force)
    if as_json:
        print_json(result)
        return
    pool, sampled = result["pool"], result["sampled"]
    console.print(f"wrote {result['pairs']} pairs → {result['files']['pairs']} "
                  f"(of {pool['pairs']}: {pool['aligned']} aligned, {pool['not_aligned']} not aligned by NLI; "
                  f"sampled {sampled['aligned']} / {sampled['not_aligned']}, seed {result['seed']})")
    if pool["without_verdict"]:
        console.print(f"[yellow]{pool['without_verdict']} citations had no alignment verdict and were not sampled[/]")
    console.print(f"key (keep it from the annotators): {result['files']['key']}")
    console.print(f"instructions: {result['files']['instructions']}")


@annotate.command("compare")
@click.option("--pairs", "pairs_paths", required=True, multiple=True, type=click.Path(dir_okay=False),
              help="Filled pairs CSV; repeat for several annotators' copies of the same export.")
@click.option("--key", "key_path", type=click.Path(dir_okay=False), default=None,
              help="The key file `export` wrote [default: PAIRS.key.csv next to the first --pairs].")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None,
              help="Write the report as JSON here, and as Markdown next to it (.md).")
@json_option
def compare_cmd(pairs_paths, key_path, out_path, as_json):
    """Agreement of the automatic alignment label with the human one (Table 6 layout)."""
    from kalma_graph.evaluation.annotate import compare_labels, write_comparison

    report = compare_labels(list(pairs_paths), key=key_path)
    for issue in report["issues"]:
        mark = "excluded" if issue["excluded"] else "kept"
        err_console.print(f"[yellow]{escape(issue['where'])}: {escape(issue['problem'])} ({mark})[/]")
    if report["n"] == 0:
        fail(f"no usable human label in {', '.join(pairs_paths)} ({report['excluded']} rows excluded, listed "
              "above); fill the human_label column with aligned / not_aligned")
    if out_path:
        report["files"] = write_comparison(report, out_path)
    if as_json:
        print_json({k: v for k, v in report.items() if k != "markdown"})
        return
    t = report["table6"]
    table6 = Table(title="Alignment, automatic vs human (KaLMA Table 6 layout)")
    for col in ("system", "Alignment (run)", "Alignment (sample)", "Human Avg.", "gap"):
        table6.add_column(col, justify="left" if col == "system" else "right", no_wrap=True)
    table6.add_row(escape(str(t["system"])), _pct(t["alignment_run"]), _pct(t["alignment_sample"]),
                   _pct(t["human_avg"]), _pct(t["gap"]))
    console.print(table6)
    table = Table(title="Automatic label against the human one (P / R / F1 of `aligned`, Cohen's κ)")
    for col in ("annotator", "n", "agree", "P", "R", "F1", "κ", "empty", "unread."):
        table.add_column(col, justify="left" if col == "annotator" else "right", no_wrap=True)
    for a in report["annotators"]:
        m = a["metrics"]
        table.add_row(escape(a["annotator"]), str(m["n"]), _pct(m["agreement"]), _pct(m["precision"]),
                      _pct(m["recall"]), _pct(m["f1"]), _num(m["cohen_kappa"]), str(a["empty"]), str(a["unreadable"]))
    if len(report["annotators"]) > 1:
        table.add_row("all (pooled)", str(report["n"]), _pct(report["accuracy"]), _pct(report["precision"]),
                      _pct(report["recall"]), _pct(report["f1"]), _num(report["cohen_kappa"]), "", "")
    console.print(table)
    iaa = report["inter_annotator"]
    if iaa:
        console.print(f"inter-annotator agreement: {_pct(iaa['agreement'])} % (κ {_num(iaa['cohen_kappa'])})")
    if report["excluded"]:
        console.print(f"[yellow]{report['excluded']} rows excluded (listed above)[/]")
    if out_path:
        console.print(f"report → {report['files']['json']}, {report['files']['markdown']}")
