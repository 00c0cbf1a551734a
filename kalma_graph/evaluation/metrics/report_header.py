"""How a report header names the choices behind each metric.

Every metric result carries ``metric`` (its name) and ``choices`` (mode and variant names). A report
header lists them flat as ``<metric>.<choice>``, so a reader sees e.g. that citations were matched
strictly and [NA] used the removed-knowledge absent set, without opening the numbers.

>>> header_choices([{"metric": "citation_quality", "choices": {"matching": "strict"}},
...                 {"metric": "na_quality", "choices": {"absent_set": "removed"}}])
{'citation_quality.matching': 'strict', 'na_quality.absent_set': 'removed'}
"""

from __future__ import annotations

from typing import Iterable


def header_choices(results: Iterable[dict]) -> dict[str, object]:
    """`{"<metric>.<choice>": value}` over all results, in the given order."""
    return {
        f"{result['metric']}.{name}": value
        for result in results
        for name, value in result.get("choices", {}).items()
    }
