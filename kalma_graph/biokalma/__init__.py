"""BioKaLMA dataset construction (seed 000, §2.2 and Appendix A): person pairs from the graph or a
file, name disambiguation as Cypher, knowledge pools, evolutionary question generation with eq. 1,
and quality checks. `build_biokalma` runs it all; `kalma-graph build biokalma` is its command."""

from .build import BuildError, BuildOptions, build_biokalma, plan_dataset, side_paths
from .checks import check_dataset
from .disambiguation import Resolution, disambiguate
from .evolve import EvolveConfig, evolve_entry
from .pairs import PERSON_RELATIONS, PersonPair, is_complete_name, pairs_from_graph, read_pairs
from .pool import Pool, knowledge_pool
from .scoring import DEFAULT_ALPHA, eq1_scores, relation_counts

__all__ = [
    "DEFAULT_ALPHA",
    "PERSON_RELATIONS",
    "BuildError",
    "BuildOptions",
    "EvolveConfig",
    "PersonPair",
    "Pool",
    "Resolution",
    "build_biokalma",
    "check_dataset",
    "disambiguate",
    "eq1_scores",
    "evolve_entry",
    "is_complete_name",
    "knowledge_pool",
    "pairs_from_graph",
    "plan_dataset",
    "read_pairs",
    "relation_counts",
    "side_paths",
]
