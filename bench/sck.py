"""SCK scores on BioKaLMA questions with hand-written answers, judge agreement and throughput.

    python bench/sck.py                          # embedded store under /tmp, built once from dumps/
    python bench/sck.py --store embedded:PATH    # a store that already holds the sample dumps

Ten questions are taken verbatim from the released BioKaLMA general questions
(dumps/biokalma/simple_question_graph.json.gz; without the `question: ` prefix some carry). Their
answers are written by hand, one claim per sentence, mostly true by the graph, with one sentence per answer that the
graph contradicts (a wrong birthplace or religion) and a few that it cannot decide; each sentence carries our label
against the graph (A / E / C). The NLI judge's rules were settled while looking at the first six (PAIRS); the
other four (PAIRS_HELDOUT) were written afterwards and are reported separately. The script scores
them with the default settings (NLI judge and NLI intents, the shared nli-minilm-l6-v1 model),
prints the per-answer scores and the judge's agreement with the hand labels, measures answers per
second (models loaded once, NLI cache off), and checks both intent
classifiers on 42 hand-labelled questions (21 the NLI hypotheses were chosen on, 21 held out).
Figures are appended to bench/results/sck.jsonl; nothing here is asserted by the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from kalma_graph.ingest import ingest  # noqa: E402
from kalma_graph.store import open_store  # noqa: E402

# (BioKaLMA question, [(sentence, hand label against the graph)])
PAIRS = [
    ("Who was Stephen Crane, what were his family's religious affiliations, and how did his health affect his work?", [
        ("Stephen Crane was an American poet and journalist.", "A"),
        ("He was born in Newark and studied at Syracuse University.", "A"),
        ("He died of tuberculosis in Badenweiler in 1900.", "A"),
        ("His father, Jonathan Townley Crane, was a Methodist minister.", "A"),
        ("He was a devout Catholic.", "C"),  # religion: atheism
        ("His novel The Red Badge of Courage is about the American Civil War.", "A"),
    ]),
    ("Who was Mustafa Kemal Atatürk, where was he born, and what are some notable aspects of his life and career?", [
        ("Mustafa Kemal Atatürk was a Turkish military officer and politician.", "A"),
        ("He was born in Thessaloniki in 1881.", "A"),
        ("He was born in Ankara.", "C"),  # place of birth: Thessaloniki (Ankara is his work location)
        ("He led the Republican People's Party.", "A"),
        ("He died at Dolmabahçe Palace in 1938 of liver cirrhosis.", "A"),
    ]),
    ("Who was Thomas Merton, where was he born, and what significant events marked his life?", [
        ("Thomas Merton was an American Catholic priest, poet and theologian.", "A"),
        ("He was born in Prades, France.", "A"),
        ("He studied at Clare College and Columbia University.", "A"),
        ("He died in Bangkok in 1968.", "A"),
        ("He was born in New York.", "C"),  # place of birth: Prades
        ("He loved the quiet of the monastery.", "E"),
    ]),
    ("Who is Andy Murray, and what are some significant aspects of his life and tennis career?", [
        ("Andy Murray is a British tennis player born in Glasgow.", "A"),
        ("His mother Judy Murray was his first coach.", "A"),
        ("He competed at the 2012 Summer Olympics.", "A"),
        ("He is married to Kim Sears.", "A"),
        ("He was born in London.", "C"),  # place of birth: Glasgow (London is his residence)
    ]),
    ("Who was Austen Chamberlain and what was his father's influence on his career?", [
        ("Austen Chamberlain was a British politician of the Conservative Party.", "A"),
        ("He was the son of Joseph Chamberlain.", "A"),
        ("He was educated at Rugby School and Trinity College.", "A"),
        ("He received the Nobel Peace Prize.", "A"),
        ("He was born in Dublin.", "C"),  # place of birth: Birmingham
        ("His father taught him to love public debate.", "E"),
    ]),
    ("Who is Enda Kenny and what are some notable aspects of his life and political career?", [
        ("Enda Kenny is an Irish politician who served as Taoiseach.", "A"),
        ("He is a member of Fine Gael.", "A"),
        ("He was born in Castlebar in 1951.", "A"),
        ("He enjoys hiking in the mountains.", "E"),
        ("He was born in Dublin.", "C"),  # place of birth: Castlebar
    ]),
]

# Written after the judge's rules were settled on PAIRS, and scored once: the judge's held-out check.
PAIRS_HELDOUT = [
    ("Who is Lee Hsien Loong and what are some key events in his life and career?", [
        ("Lee Hsien Loong is a Singaporean politician of the People's Action Party.", "A"),
        ("He is the son of Lee Kuan Yew.", "A"),
        ("He studied at the University of Cambridge.", "A"),
        ("He is a practising Christian.", "C"),  # religion: Buddhism
        ("He enjoys playing chess in his free time.", "E"),
    ]),
    ("Who was Otto Warmbier and what is known about his early life and family?", [
        ("Otto Warmbier was an American student from Cincinnati.", "A"),
        ("He studied at the University of Virginia.", "A"),
        ("His father is Fred Warmbier.", "A"),
        ("He was born in Chicago.", "C"),  # place of birth: Cincinnati
        ("He loved travelling.", "E"),
    ]),
    ("Who is Willow Smith, what are some notable aspects of her personal life, and how was she introduced to the "
     "music industry?", [
        ("Willow Smith is an American singer and actor.", "A"),
        ("She is the daughter of Will Smith and Jada Pinkett Smith.", "A"),
        ("She was born in Los Angeles in 2000.", "A"),
        ("She was born in New York.", "C"),  # place of birth: Los Angeles
        ("Her music is influenced by Avril Lavigne.", "A"),
    ]),
    ("Who was Constantijn Huygens and what were his contributions to Dutch literature and the Baroque music "
     "movement?", [
        ("Constantijn Huygens was a Dutch poet who played the lute.", "A"),
        ("He was born in The Hague and studied at Leiden University.", "A"),
        ("He died in Amsterdam.", "C"),  # place of death: The Hague
        ("He is part of the Baroque music movement.", "A"),
        ("He wrote thousands of poems in Latin and Dutch.", "A"),
    ]),
]

INTENT_TUNING = [
    ("How do I reset my router to factory settings?", "instruction"),
    ("How can I make sourdough bread at home?", "instruction"),
    ("What are the steps to apply for a passport?", "instruction"),
    ("Why do cats purr?", "reason"),
    ("Why did the Roman Empire fall?", "reason"),
    ("What causes the northern lights?", "reason"),
    ("How does a vaccine train the immune system?", "evidence-based"),
    ("What is photosynthesis?", "evidence-based"),
    ("Can you provide a brief introduction of Barack Obama?", "evidence-based"),
    ("What is the difference between soups and stews?", "comparison"),
    ("Compare these iPhone 13, Pixel 6, and Galaxy S23", "comparison"),
    ("Is Python better than Java for beginners?", "comparison"),
    ("Has anyone tried intermittent fasting, and how did it go?", "experience"),
    ("What was your experience moving to Berlin?", "experience"),
    ("Which hiking boots would you recommend for wet weather?", "experience"),
    ("Should the death penalty be abolished?", "debate"),
    ("Do you think social media does more harm than good?", "debate"),
    ("Is it ethical to eat meat?", "debate"),
    ("Who wrote The Red Badge of Courage?", "factoid"),
    ("When was Stephen Crane born?", "factoid"),
    ("How many liquor stores in Houston?", "factoid"),
]
INTENT_HELDOUT = [
    ("How can I remove a red wine stain from a carpet?", "instruction"),
    ("What is the best way to install Ubuntu on a laptop?", "instruction"),
    ("How to change a flat tire?", "instruction"),
    ("Why is the sky blue?", "reason"),
    ("Why do onions make you cry?", "reason"),
    ("Why did the stock market crash in 1929?", "reason"),
    ("How do solar panels generate electricity?", "evidence-based"),
    ("What is the function of the liver?", "evidence-based"),
    ("What are black holes?", "evidence-based"),
    ("What are the differences between a crocodile and an alligator?", "comparison"),
    ("Which is healthier, butter or margarine?", "comparison"),
    ("How does Canon compare to Nikon for beginners?", "comparison"),
    ("What was it like to live through the blackout of 2003?", "experience"),
    ("Anyone here switched from iPhone to Android? Any regrets?", "experience"),
    ("What are good places to eat in Lisbon?", "experience"),
    ("Is nuclear power a good idea for fighting climate change?", "debate"),
    ("Should homework be banned in primary schools?", "debate"),
    ("Are video games a form of art?", "debate"),
    ("What is the capital of Australia?", "factoid"),
    ("Who painted the Mona Lisa?", "factoid"),
    ("In what year did the Berlin Wall fall?", "factoid"),
]

LABEL_OF = {"Attributable": "A", "Extrapolatory": "E", "Contradictory": "C", "missing": "-"}


def bench_store(uri: str | None):
    if uri:
        return open_store(uri)
    path = Path(tempfile.gettempdir()) / "kalma_bench_sck" / "graph.lbdb"
    store = open_store(f"embedded:{path}")
    ingest(store, [REPO / "dumps/wikidata_sample.jsonl.gz", REPO / "dumps/biokalma_records.jsonl.gz"])
    return store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", default=None)
    parser.add_argument("--nli",
                        default=os.environ.get("KALMA_NLI_MODEL")
                        or str(REPO.parent / "shared/models/nli-minilm-l6-v1"))
    parser.add_argument("--judge", choices=["nli", "llm", "verifier"], default="nli")
    parser.add_argument("--model", default=None, help="GGUF for --judge llm")
    parser.add_argument("--out", default=None, help="Output directory (default: a temporary one)")
    args = parser.parse_args()

    from kalma_graph.sck.run import build_scorer, score_file

    store = bench_store(args.store)
    started = time.perf_counter()
    scorer = build_scorer(store, judge=args.judge, nli=args.nli, model=args.model, nli_cache=None)
    load_seconds = time.perf_counter() - started

    out = Path(args.out or tempfile.mkdtemp(prefix="sck-bench-"))
    data = out / "pairs.jsonl"
    out.mkdir(parents=True, exist_ok=True)
    sets = [("dev", f"biokalma-{k}", q, ss) for k, (q, ss) in enumerate(PAIRS, 1)]
    sets += [("heldout", f"heldout-{k}", q, ss) for k, (q, ss) in enumerate(PAIRS_HELDOUT, 1)]
    with data.open("w", encoding="utf-8") as handle:
        for _, rid, question, sentences in sets:
            answer = " ".join(s for s, _ in sentences)
            handle.write(json.dumps({"id": rid, "question": question, "answer": answer}) + "\n")
    summary = score_file(scorer, data, out / "run", fresh=True)

    rows = {r["id"]: r for r in (json.loads(line) for line in (out / "run/answers.jsonl").read_text().splitlines())}
    judged: dict[str, list[str]] = {}
    for line in (out / "run/sentences.jsonl").read_text().splitlines():
        row = json.loads(line)
        judged.setdefault(row["id"], []).append(LABEL_OF[row["prediction"]])
    print(f"\nstore {store.uri}; models loaded in {load_seconds:.1f} s; output {out / 'run'}\n")
    print(
        f"{'id':12} {'intent':15} {'SCK':>5} {'S':>5} {'C':>5} {'K':>5} {'VE':>5} {'ER':>5} {'Attr':>5}  gold / judged")
    fmt = lambda v: "  n/a" if v is None else f"{v:5.2f}"  # noqa: E731
    agreement: dict[str, dict] = {}
    for split, rid, _, ss in sets:
        row = rows[rid]["row"]
        gold = [label for _, label in ss]
        print(f"{rid:12} {str(row['intent']):15} " + " ".join(fmt(row[c]) for c in
              ("sck", "s", "c", "k", "ve", "er", "kg_attr")) + f"  {''.join(gold)} / {''.join(judged[rid])}")
        block = agreement.setdefault(split,
                                     {"agree": 0, "n": 0, "confusion": {g: {p: 0 for p in "AEC-"} for g in "AEC"}})
        for g, p in zip(gold, judged[rid]):
            block["agree"] += g == p
            block["n"] += 1
            block["confusion"][g][p] += 1
    for split, block in agreement.items():
        print(f"\njudge agreement with the hand labels ({split}): {block['agree']}/{block['n']} sentences")
        for g in "AEC":
            print(f"  gold {g}: " + ", ".join(f"{p}={n}" for p, n in block["confusion"][g].items() if n))

    # throughput: the same answers again, NLI cache off, models warm
    timing_dir = out / "timing"
    started = time.perf_counter()
    repeats = 2
    for _ in range(repeats):
        score_file(scorer, data, timing_dir, fresh=True)
    seconds = time.perf_counter() - started
    per_second = repeats * len(sets) / seconds
    n_sentences = sum(len(ss) for *_, ss in sets)
    print(f"\nthroughput: {per_second:.2f} answers/s ({repeats * n_sentences / seconds:.1f} sentences/s), "
          f"{repeats}x{len(sets)} answers of {n_sentences / len(sets):.1f} sentences, NLI cache off, "
          f"{scorer.judge.header().get('nli', {}).get('device', 'n/a')}")

    # intents
    from kalma_graph.sck.intent import NLIIntentClassifier, RuleIntentClassifier

    intent_rows = {}
    classifiers = [RuleIntentClassifier()]
    if getattr(scorer.judge, "nli", None) is not None:
        classifiers.insert(0, NLIIntentClassifier(scorer.judge.nli))
    for clf in classifiers:
        for name, qs in (("tuning", INTENT_TUNING), ("heldout", INTENT_HELDOUT)):
            got = [p.intent for p in clf.classify([q for q, _ in qs])]
            hits = sum(g == p for g, (_, p) in zip(got, qs))
            intent_rows[f"{clf.name}_{name}"] = f"{hits}/{len(qs)}"
    print("intent accuracy: " + ", ".join(f"{k} {v}" for k, v in intent_rows.items()) + " (chance 3/21)")

    result = {
        "bench": "sck",
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "machine": f"{platform.machine()} {os.cpu_count()} cpus",
        "store": store.uri,
        "judge": args.judge,
        "nli": args.nli,
        "answers": {aid: {k: rows[aid]["row"][k] for k in ("intent", "sck", "s", "c", "k", "ve", "er", "kg_attr")}
                    for aid in rows},
        "overall": summary["overall"],
        "judge_agreement": {k: f"{v['agree']}/{v['n']}" for k, v in agreement.items()},
        "confusion_gold_to_predicted": {k: v["confusion"] for k, v in agreement.items()},
        "answers_per_second": round(per_second, 3),
        "sentences_per_second": round(repeats * n_sentences / seconds, 2),
        "threads": __import__("torch").get_num_threads(),
        "model_load_seconds": round(load_seconds, 1),
        "intent_accuracy": intent_rows,
    }
    results = REPO / "bench" / "results"
    results.mkdir(parents=True, exist_ok=True)
    with (results / "sck.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(result, ensure_ascii=False) + "\n")
    print(f"\nappended to {results / 'sck.jsonl'}")
    store.close()


if __name__ == "__main__":
    main()
