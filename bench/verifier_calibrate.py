"""Fit the verifier's stage two (structural outcome + NLI entailment, logistic) on pairs the graph generates
and write `kalma_graph/data/verifier_calibration.json`. Prints the fit's accuracy on held-out generated pairs.

    python bench/verifier_calibrate.py --nli ../shared/models/nli-minilm-l6-v1
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    from kalma_graph.files import atomic_write_json
    from kalma_graph.models.nli import load_nli
    from kalma_graph.nli.verifier_pairs import fit_calibration, read_biokalma_graph, verifier_pairs
    from kalma_graph.verification import Verifier
    from kalma_graph.verification.calibration import Calibrator

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nli", required=True)
    parser.add_argument("--graph", default="dumps/biokalma/complex_question_graph.json.gz")
    parser.add_argument("--out", default="kalma_graph/data/verifier_calibration.json")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    nli = load_nli(args.nli, cache=None)
    records = read_biokalma_graph(args.graph)
    train = verifier_pairs(records, seed=args.seed, split="train")
    test = verifier_pairs(records, seed=args.seed, split="test")
    fitted = fit_calibration(train, nli) | {"graph": args.graph, "nli": args.nli, "seed": args.seed}
    atomic_write_json(Path(args.out), fitted)
    calibrated = Verifier(calibrator=Calibrator(fitted["weights"], nli))
    structural = Verifier()
    acc = {"structure": 0, "calibrated": 0}
    for p in test:
        acc["structure"] += ((structural.verify(p.answer).sentences[0].citations[0].verdict == "supported")
                             == bool(p.label))
        acc["calibrated"] += ((calibrated.verify(p.answer).sentences[0].citations[0].verdict == "supported")
                              == bool(p.label))
    print(json.dumps({"train_pairs": len(train), "test_pairs": len(test), "kinds": fitted["kinds"],
                      "structure_accuracy_train": fitted["structure_accuracy_on_pairs"],
                      **{f"{k}_accuracy_test_pairs": round(v / len(test), 4) for k, v in acc.items()},
                      "weights": dict(zip(fitted["features"] + ["bias"], [round(w, 3) for w in fitted["weights"]]))},
                     indent=1))


if __name__ == "__main__":
    main()
