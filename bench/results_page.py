"""Write docs/results.md from the committed experiment runs, without answering or scoring anything again.

    python bench/results_page.py bench/results/table3_rebuilt --previous bench/results/paper \
        --natural bench/results/question_facts/dev --out docs/results.md

ROOT is a `kalma-graph experiment paper` directory (its Table 3 heads the page); `--previous` the same experiments
on the previous bundled dataset: its Table 3 follows as the held-out test set, and its Tables 5 and 7 and Figure 5
stand in, marked, for parts ROOT has not run; `--natural` the development set of the paper's own questions
(`bench/question_facts.py`), whose README.md is the section after Table 3.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kalma_graph.pipeline.strategies import strategy_traits
from kalma_graph.reporting.paper import write_results_markdown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path)
    parser.add_argument("--previous", type=Path, default=None)
    parser.add_argument("--natural", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=Path("docs/results.md"))
    args = parser.parse_args()
    print(write_results_markdown(args.root, args.out, previous=args.previous, natural=args.natural,
                                 traits=strategy_traits()))


if __name__ == "__main__":
    main()
