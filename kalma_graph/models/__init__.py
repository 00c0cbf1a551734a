"""Model wrappers (NLI, ...) and the single device/dtype decision they share.

Importing this package does not import torch or transformers; the loaders do, when called.
"""

from kalma_graph.models.device import DeviceInfo, pick_device
from kalma_graph.models.nli import DEFAULT_NLI_MODEL, NLICache, NLIModel, NLIPrediction, load_nli

__all__ = ["DEFAULT_NLI_MODEL", "DeviceInfo", "NLICache", "NLIModel", "NLIPrediction", "load_nli", "pick_device"]
