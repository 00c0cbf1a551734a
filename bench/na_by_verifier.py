"""[NA] quality judged by the verifier beside the paper's NLI judge (Table 5 / Figure 4), on committed answers.

    python bench/na_by_verifier.py bench/results/conscious_v43/grounded/table5 \
        bench/results/conscious_v43/attribute-first/table5

The paper counts an [NA] sentence as right when its NLI model says it entails a withheld triple, and a withheld
triple as recalled when some [NA] sentence entails it. MiniLM NLI, on the prop-value hypothesis ("influenced by:
Henry James"), also says so of sentences that only name the two persons and call their connection unknown ("John
Updike's connection to Henry James is unclear"). Here the same counts are made with the verifier's citation
check instead: the withheld triple, cited on the [NA] sentence against the graph shown plus that triple, must be
judged `supported` (the sentence states that value of that person with a word for that relation). Prints a
Markdown table per folder: removed, [NA] sentences, precision / recall / F1 by the verifier, and the NLI figures
the committed evaluation holds. No model is loaded.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kalma_graph.evaluation.answers_file import read_answers, scored_answer  # noqa: E402
from kalma_graph.evaluation.verify import from_scored  # noqa: E402
from kalma_graph.verification import AnswerInput, CitedTriple, Verifier  # noqa: E402
from kalma_graph.verification.verifier import graph_triple  # noqa: E402


def _f1(p: float | None, r: float | None) -> float | None:
    return 2 * p * r / (p + r) if p and r else (0.0 if p is not None and r is not None else None)


def by_verifier(answers_file: Path) -> dict:
    verifier = Verifier()
    sentences = correct = absent = hit = 0
    for record in read_answers(answers_file).records:
        removed = [graph_triple(t) for t in (record.removed or [])]
        if not removed:
            continue
        scored = scored_answer(record)
        base = from_scored(scored)
        shown = [*base.shown, *removed]
        na = [s.clean_text for s in scored.parsed.na_sentences]
        grid = []
        for text in na:
            row = []
            for t in removed:
                cited = CitedTriple(subject=t.subject, relation=t.label, value=t.value)
                check = verifier.verify(AnswerInput(question=base.question, sentences=[(text, [cited])], shown=shown,
                                                    entities=base.entities)).sentences[0]
                row.append(check.citations[0].verdict == "supported")
            grid.append(row)
        sentences += len(na)
        correct += sum(any(row) for row in grid)
        absent += len(removed)
        hit += sum(any(row[j] for row in grid) for j in range(len(removed)))
    p = correct / sentences if sentences else None
    r = hit / absent if absent else None
    return {"na_sentences": sentences, "na_correct": correct, "absent": absent, "absent_hit": hit,
            "precision": p, "recall": r, "f1": _f1(p, r)}


def main(folders: list[str]) -> None:
    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{100 * x:.1f}"

    for folder in map(Path, folders):
        print(f"\n{folder}\n")
        print("| removed | [NA] sentences | verifier P / R / F1 | stated withheld facts | NLI P / R / F1 (committed) |")
        print("|---|---|---|---|---|")
        for level in sorted(folder.glob("removed_*")):
            if level.name == "removed_0":
                continue
            v = by_verifier(level / "answers.jsonl")
            nli = json.loads((level / "evaluation" / "results.json").read_text())["metrics"].get("na_quality") or {}
            print(f"| {level.name.split('_')[1]} | {v['na_sentences']} | {pct(v['precision'])} / {pct(v['recall'])} / "
                  f"{pct(v['f1'])} | {v['absent_hit']} of {v['absent']} | {pct(nli.get('precision'))} / "
                  f"{pct(nli.get('recall'))} / {pct(nli.get('f1'))} |")


if __name__ == "__main__":
    main(sys.argv[1:])
