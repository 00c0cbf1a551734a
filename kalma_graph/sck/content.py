"""C-score, the content score (seed 004, §2.3, eq. 4): recall of the important entities.

    C = |E ∩ E_total| / |E_total|

`E` are the entities linked in the answer; `E_total` the entities linked in the reference answer
when one is given, else in the question (the paper's ground-truth answer is rarely at hand; the
question names what a good answer has to cover). Entities are compared by graph id, so "Pixel 6"
and "Google Pixel 6" are the same entity when both link to Q108939091. With an empty `E_total` the
score is undefined (None).

Figure 5: the question compares iPhone 13, Pixel 6 and Galaxy S23; the answer covers two of them.

>>> c_score(["Q108118280", "Q108939091"], ["Q108118280", "Q108939091", "Q115127699"]).value
0.6666666666666666
"""

from __future__ import annotations

from typing import Iterable

from kalma_graph.sck.base import SubScore


def c_score(answer_ids: Iterable[str], important_ids: Iterable[str], *, source: str = "question") -> SubScore:
    """`source` names where `important_ids` came from: "reference" or "question"."""
    answer = list(dict.fromkeys(answer_ids))
    total = list(dict.fromkeys(important_ids))
    found = [e for e in total if e in set(answer)]
    value = len(found) / len(total) if total else None
    return SubScore("c", value, {
        "source": source,
        "important": total,
        "found": found,
        "missed": [e for e in total if e not in set(found)],
        "answer_entities": answer,
    })
