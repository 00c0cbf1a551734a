"""VE-score, the verifiable-entities score (seed 004, §2.1.1, eq. 1).

    VE = |text_entities ∩ KG_entities| / |text_entities|

`text_entities` are the distinct entities the answer mentions (NER mentions, see
`base.distinct_entities`); an entity is in `KG_entities` when entity linking found it in the graph.
Value-like NER labels (dates, numbers, money, ...) are not entities and are dropped before this
function sees them (`entities.VALUE_LABELS`). With no mention at all VE is undefined (None): an
answer that names nothing has nothing to verify, which is neither perfect nor zero.

>>> from kalma_graph.sck.base import EntityMention as M
>>> ve_score([M("Stephen Crane", "PERSON", "Q206534"), M("Newark", "GPE", "Q25395"),
...           M("Gotham", "GPE")]).value
0.6666666666666666
>>> ve_score([]).value is None
True
"""

from __future__ import annotations

from typing import Sequence

from kalma_graph.sck.base import EntityMention, SubScore, distinct_entities


def ve_score(mentions: Sequence[EntityMention]) -> SubScore:
    ids, unlinked = distinct_entities(mentions)
    total = len(ids) + len(unlinked)
    value = len(ids) / total if total else None
    return SubScore("ve", value, {
        "verifiable": ids,
        "unverifiable": unlinked,
        "n_text_entities": total,
        "mentions": [m.as_dict() for m in mentions],
    })
