"""The training recipe in one place: which data, how much of each, which held-out portions.

`build_datasets` returns the training rows and every held-out portion, from the public NLI file and
a knowledge graph (any iterable of `(Entity, triples)`), so that `kalma-graph nli train`, the
benchmarks and the tests all use the same definitions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Sequence

from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.nli.data import nli_portions, read_jsonl
from kalma_graph.nli.kg_pairs import kg_pairs_by_split
from kalma_graph.nli.train import ProgressFn, TrainConfig, mix_training_rows, train_nli


def source_family(source: str) -> str:
    """`snli(e-SNLI)` -> `snli`, `mnli(TaxiNLI)` -> `mnli`."""
    return str(source).split("(", 1)[0].strip().lower() or "other"


def build_datasets(
    *,
    nli_file: str | Path | None,
    kg_records: Iterable[tuple[Entity, Sequence[Triple]]] | None,
    sizes: dict[str, int | None] | None = None,
    kg_per_entity: int = 12,
    seed: int = 0,
    heldout_nli: int = 300,
    heldout_kg: int | None = None,
) -> dict[str, Any]:
    """`sizes` caps each training part (`snli`, `mnli`, `anli`, `sick`, `conjnli`, `kg`; missing or
    None = all rows of that part; 0 = leave the part out).

    Returns {'train': rows, 'heldout': rows (a small mixed slice for the end-of-training check),
    'mnli_dev', 'anli_dev', 'kg_dev', 'kg_test': rows, 'counts': {...}}.

    NLI rows come from `nli_portions` (MNLI/ANLI evaluation portions never trained on); KG pairs are
    split by entity (train / dev / test entities disjoint).
    """
    parts: dict[str, list[dict[str, Any]]] = {}
    sizes = dict(sizes or {})
    out: dict[str, Any] = {"mnli_dev": [], "anli_dev": [], "kg_dev": [], "kg_test": []}
    if nli_file is not None:
        portions = nli_portions(read_jsonl(nli_file))
        for row in portions["train"]:
            parts.setdefault(source_family(row.get("source", "")), []).append(row)
        out["mnli_dev"], out["anli_dev"] = portions["mnli_dev"], portions["anli_dev"]
    if kg_records is not None:
        kg = kg_pairs_by_split(kg_records, per_entity=kg_per_entity, seed=seed)
        parts["kg"] = kg["train"]
        out["kg_dev"], out["kg_test"] = kg["dev"], kg["test"]
    parts = {name: rows for name, rows in parts.items() if sizes.get(name, None) != 0}
    if not parts:
        raise ValueError("give an NLI file, a knowledge graph, or both")
    out["train"] = mix_training_rows(parts, sizes, seed=seed)
    heldout: list[dict[str, Any]] = []
    if out["mnli_dev"]:
        heldout += mix_training_rows({"mnli": out["mnli_dev"]}, {"mnli": heldout_nli}, seed=seed)
    if out["kg_test"]:
        heldout += mix_training_rows({"kg": out["kg_test"]}, {"kg": heldout_kg}, seed=seed)
    out["heldout"] = heldout
    out["counts"] = {k: len(v) for k, v in out.items() if isinstance(v, list)}
    out["counts"]["train_by_part"] = {name: min(len(rows), sizes.get(name) or len(rows))
                                      for name, rows in sorted(parts.items())}
    return out


def run_training(
    config: TrainConfig,
    *,
    nli_file: str | Path | None = None,
    kg_record_files: Sequence[str | Path] = (),
    sizes: dict[str, int | None] | None = None,
    kg_per_entity: int = 12,
    heldout: bool = True,
    heldout_nli: int = 300,
    heldout_kg: int | None = 300,
    progress: ProgressFn | None = None,
) -> dict[str, Any]:
    """Build the datasets from files and train; the dict `kalma-graph nli train` prints.

    The held-out slice (MNLI evaluation portion + KG pairs of test entities) is scored at the end
    when `heldout` is set.
    """
    from kalma_graph.nli.kg_pairs import records_from_biokalma

    records = None
    if kg_record_files:
        records = [r for path in kg_record_files for r in records_from_biokalma(path)]
        records = list({e.id: (e, t) for e, t in records}.values())
    data = build_datasets(nli_file=nli_file, kg_records=records, sizes=sizes, kg_per_entity=kg_per_entity,
                          seed=config.seed, heldout_nli=heldout_nli, heldout_kg=heldout_kg)
    result = train_nli(config, data["train"], eval_rows=data["heldout"] if heldout else None, progress=progress)
    result["data"] = data["counts"]
    import json

    (Path(config.output_dir) / "train_metrics.json").write_text(json.dumps(result, indent=1, default=str))
    return result
