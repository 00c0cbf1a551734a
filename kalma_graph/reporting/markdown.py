"""The Markdown summary of an evaluation run: the header (every choice) before any number, then the
tables in the KaLMA paper's layout (Table 3: citation quality and alignment; Table 4: G-Eval)."""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping, Sequence

from kalma_graph.evaluation_result import EvaluationResult


def pct(value: Any) -> str:
    """A ratio as a percentage with one decimal (the paper's scale); `n/a` when undefined."""
    return "n/a" if value is None else f"{100 * float(value):.1f}"


def num(value: Any, digits: int = 2) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in row) + " |")
    return out


def section(title: str) -> list[str]:
    """A second-level heading set off by blank lines: how every part after the first starts."""
    return ["", f"## {title}", ""]


def summary_markdown(results: EvaluationResult) -> str:
    lines = (_inputs(results) + _models(results) + _citation_quality(results) + _na_and_geval(results)
             + _how_answers_cite(results))
    return "\n".join(lines) + "\n"


def _inputs(results: EvaluationResult) -> list[str]:
    """The answers and gold sets scored, and when."""
    header = results.header
    lines: list[str] = []
    lines += [f"# Evaluation `{results.run_id or ''}`", ""]
    answers = header.answers
    if answers:
        lines.append(f"Answers: `{answers.path}` — {answers.records} records, sha256 `{str(answers.sha256)[:16]}…`")
    gold = header.gold
    lines.append(f"Gold minimum knowledge sets: `{gold.path or 'given in memory'}` ({gold.questions} questions, sha256 "
                 f"`{str(gold.sha256)[:16]}…`)" if gold else
                 "Gold minimum knowledge sets: **none** — citation precision, recall and F1 are not computed; "
                 "correctness and alignment only.")
    if header.evaluated_at:
        lines.append(f"Evaluated at {header.evaluated_at}.")
    lines.append("")
    return lines


def _models(results: EvaluationResult) -> list[str]:
    """The choices, and the models and library versions that made the figures."""
    header = results.header
    lines: list[str] = []
    lines += ["## Choices", ""]
    lines += table(["choice", "value"], sorted(header.choices.items()))
    lines += section("Models and versions")
    model_rows = []
    for model in header.answer_models:
        model_rows.append(("answering model", _model_line(model)))
    for params in header.answer_params:
        model_rows.append(("answering parameters", json.dumps(params, sort_keys=True)))
    if header.variants:
        model_rows.append(("answer variants", ", ".join(header.variants)))
    nli = header.nli
    model_rows.append(("NLI model", f"{nli.get('name_or_path')} (weights sha256 `{nli.get('model_hash')}`, "
                                    f"{nli.get('device')} {nli.get('dtype')})" if nli else "none"))
    judge = header.judge
    if judge:
        model_rows.append(("G-Eval judge", f"{judge.get('model_file')} (sha256 `{judge.get('model_sha256')}`, "
                                           f"{judge.get('device')}, seed {judge.get('seed')})"))
        for aspect, p in (judge.get("prompts") or {}).items():
            model_rows.append(
                (f"G-Eval prompt {aspect}", f"{p['name']} v{p['version']} (sha256 `{p['sha256'][:16]}…`)"))
    else:
        model_rows.append(("G-Eval judge", "none"))
    libs = header.libraries
    model_rows.append(("libraries", ", ".join(f"{k} {v}" for k, v in libs.items() if v)))
    lines += table(["", ""], model_rows)
    return lines


def _citation_quality(results: EvaluationResult) -> list[str]:
    """Table 3's figures for this run, and what alignment's judge found."""
    metrics = results.metrics
    q = metrics.citation_quality
    al = metrics.alignment or {}
    lines = section("Citation quality and alignment (%)") + [
        "Micro: over all citations / gold triples; macro: mean over answers (Table 3 layout).", ""]
    lines += table(
        ["Align.", "Corr.", "Prec. (micro)", "Rec. (micro)", "F1 (micro)", "Prec. (macro)",
         "Rec. (macro)", "F1 (macro)"],
        [[pct(al.get("alignment_micro")), pct(q.get("correctness")), pct(q.get("precision_micro")),
          pct(q.get("recall_micro")), pct(q.get("f1_micro")), pct(q.get("precision_macro")),
          pct(q.get("recall_macro")), pct(q.get("f1_macro"))]],
    )
    lines += ["", f"{q.get('citations', 0)} citations in {q.get('answers', 0)} answers; {q.get('correct', 0)} correct"
              + (f"; {q.get('precise')} in the gold sets; "
                 f"{q.get('gold_hit')} of {q.get('gold_triples')} gold triples hit"
                 if q.get("gold_triples") is not None else "") + "."]
    if al.get("choices", {}).get("method") == "verifier":
        claims = al.get("claims") or {}
        nli_al = getattr(metrics, "alignment_nli", None) or (metrics.model_extra or {}).get("alignment_nli") or {}
        lines.append(
            f"Alignment (graph-grounded verifier): {al.get('supported')} of {al.get('pairs')} citations supported by "
            f"their sentence, {al.get('partial')} partly, {al.get('unsupported')} not "
            f"(macro {pct(al.get('alignment_macro'))}); "
            + (f"the paper's NLI alignment: {pct(nli_al.get('alignment_micro'))} %. " if nli_al
               else "no NLI model: no NLI column. ")
            + f"{al.get('fully_supported_sentences')} of {al.get('cited_sentences')} cited sentences fully "
            f"supported by their citations. Claims: {claims.get('supported', 0)} supported by a citation, "
            f"{claims.get('supported_uncited', 0)} held by the graph but uncited, "
            f"{claims.get('absent', 0)} absent from the graph, "
            f"{claims.get('contradicted', 0)} contradicted by it (per_sentence.csv lists them).")
        if results.summary.alignment_self_scored:
            before = al.get("before_filter") or {}
            lines.append("**Self-scored:** the verifier that scored alignment also chose these citations (a "
                         "strategy that filters its citations with it: `--cite verified` / `grounded`), so alignment "
                         "agrees with its own choices by construction"
                         + (f". Of the citations as written, before the filter ({before.get('answers')} answers), the "
                            f"verifier supports {before.get('supported')} of {before.get('pairs')} "
                            f"({pct(before.get('alignment_micro'))} %): {before.get('what')}."
                            if before else "; the NLI column is the independent figure."))
    elif al:
        lines.append(
            f"Alignment (NLI, the paper's): {al.get('entailed')} of {al.get('pairs')} sentence–citation pairs entailed "
            f"(macro {pct(al.get('alignment_macro'))}; answers evaluated: "
            f"{al.get('choices', {}).get('answers_evaluated')}).")
        if results.summary.alignment_self_scored:
            lines.append("**Self-scored:** the NLI model that scored alignment also placed these (post-hoc) "
                         "citations, so alignment agrees with its own choices by construction.")
    return lines


def _na_and_geval(results: EvaluationResult) -> list[str]:
    """[NA] quality and G-Eval, or why they were not computed."""
    metrics = results.metrics
    na = metrics.na_quality
    lines = section("[NA] quality (conscious incompetence) (%)")
    if na:
        lines += table(
            ["Prec.", "Rec.", "F1", "Prec. (macro)", "Rec. (macro)", "F1 (macro)", "[NA] sentences", "absent triples"],
            [[pct(na.get("precision")), pct(na.get("recall")), pct(na.get("f1")), pct(na.get("precision_macro")),
              pct(na.get("recall_macro")), pct(na.get("f1_macro")), na.get("na_sentences"),
              na.get("absent_triples")]])
        lines.append("")
        lines.append(f"Absent set: `{na.get('choices', {}).get('absent_set')}`.")
    else:
        lines.append(f"Not computed: {results.skipped.get('na_quality', 'skipped')}.")

    ge = metrics.geval
    lines += section("Text quality (G-Eval, 1–5)")
    if ge:
        aspects = ge.get("aspects") or {}
        lines += table(["aspect", "mean", "scored", "missing", "missing reasons", "mean mass on 1–5"],
                       [[a, num(r.get("mean")), r.get("scored"), r.get("missing"),
                         ", ".join(f"{k}: {v}" for k, v in (r.get("missing_reasons") or {}).items() if v) or "—",
                         num(r.get("mean_mass"), 3)] for a, r in aspects.items()])
        lines.append("")
        lines.append(f"Judged: {ge.get('choices', {}).get('answers_judged')} ({ge.get('answers_judged')} of "
                     f"{ge.get('answers')} answers). Missing scores are left out of the means, never defaulted.")
    else:
        lines.append(f"Not computed: {results.skipped.get('geval', 'skipped')}.")
    return lines


def _how_answers_cite(results: EvaluationResult) -> list[str]:
    """How the answers cite, what was skipped, timings, the run in the graph, the files."""
    d = results.metrics.answer_descriptives
    lines = section("How the answers cite") + table(["", ""], [
        ("answers", d.get("answers")),
        ("answers with no citation", d.get("answers_without_citation")),
        ("answers with no mark at all", d.get("answers_without_any_mark")),
        ("citations per answer (mean / max)",
         f"{num(d.get('citations_per_answer'))} / {d.get('citations_per_answer_max')}"),
        ("[NA] marks per answer", num(d.get("na_per_answer"))),
        ("answers with [NA]", d.get("answers_with_na")),
        ("sloppy citations (share)", f"{d.get('sloppy_citations')} ({pct(d.get('sloppy_share'))}%)"),
        ("sloppy [NA] marks", d.get("na_sloppy")),
        ("entity-only marks", d.get("entity_only")),
        ("truncated answers (max_tokens)", d.get("truncated")),
        ("parse issues", ", ".join(f"{k}: {v}" for k, v in (d.get("parse_issues") or {}).items() if v) or "none"),
    ])

    skipped = results.skipped
    notes = results.notes
    if skipped or notes:
        lines += section("Skipped parts and notes")
        lines += [f"- **{k}** skipped: {v}" for k, v in skipped.items()]
        lines += [f"- {n}" for n in notes]
    t = results.throughput
    lines += section("Timings") + [
        f"{num(results.timings.get('total'))} s in all; "
        f"{num(t.answers_per_second, 1)} answers/s; NLI {t.nli_pairs} pairs"
        + (f" at {num(t.nli_pairs_per_second, 1)} pairs/s (cache hits included)" if t.nli_pairs_per_second else "")
        + "."]
    store = results.store
    if store:
        lines += section("In the graph") + [
            f"Run `{results.run_id}` written to `{store.uri}`: {store.answers} answers, "
            f"{store.sentences} sentences, {store.cites} CITES links "
            f"({store.citations_without_entity} citations name no entity in the store). Browse with the "
            "saved queries in `cypher/browse/` (`:param run_id => '…'`)."]
    files = results.files or {}
    if files:
        lines += section("Files") + [f"- {k}: `{v}`" for k, v in files.items()]
    return lines


def _model_line(model: Mapping[str, Any]) -> str:
    name = model.get("model_file") or model.get("name") or model.get("path") or "?"
    sha = model.get("model_sha256") or model.get("sha256")
    rest = ", ".join(f"{k} {v}" for k, v in model.items() if k in ("device", "n_gpu_layers", "n_ctx", "seed"))
    return f"{name}" + (f" (sha256 `{sha}`)" if sha else "") + (f", {rest}" if rest else "")


def align_label(rows: Any) -> str:
    """The alignment column's heading, naming who judged it: rows (summaries) written before the verifier
    have no `alignment_method` and were scored by NLI."""
    methods = {(r.get("alignment_method") or "nli") for r in rows if r.get("alignment_micro") is not None}
    if methods == {"verifier"}:
        return "Align. (verifier)"
    if methods == {"nli"}:
        return "Align. (NLI)"
    return "Align."
