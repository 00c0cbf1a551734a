"""A 4-way sequence classifier fine-tuned on a built CAQA training split (`caqa train`).

Input as in training: the pair (claim, citation) with claim = question + answer statement (the
"Other Evaluators" format of Table 12). For FActScore (Appendix D.2) a sub-fact is classified
as the claim and counts as supported when the predicted category is supportive.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from kalma_graph.caqa.evaluators.base import Judgement, claim_text
from kalma_graph.caqa.model import CATEGORIES, SUPPORTIVE, Sample


class FineTunedEvaluator:
    labels = CATEGORIES

    def __init__(self, path: str | Path, *, device: str | None = None, batch_size: int = 32,
                 max_length: int | None = None) -> None:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        from kalma_graph.models.device import pick_device
        from kalma_graph.models.nli import model_files_hash

        self.path = Path(path)
        self.name = f"finetuned:{self.path.name}"
        self.device = pick_device(device)
        self.tokenizer = AutoTokenizer.from_pretrained(str(self.path))
        self.model = AutoModelForSequenceClassification.from_pretrained(str(self.path), use_safetensors=True)
        self.model.to(device=self.device.device, dtype=self.device.torch_dtype).eval()
        id2label = {int(k): v for k, v in self.model.config.id2label.items()}
        if sorted(id2label.values()) != sorted(CATEGORIES):
            raise ValueError(f"{self.path} is not a 4-way CAQA classifier (labels {sorted(id2label.values())})")
        self.id2label = id2label
        metrics = self.path / "train_metrics.json"
        self.max_length = (max_length
                           or (json.loads(metrics.read_text())["config"]["max_length"] if metrics.exists() else 256))
        self.batch_size = batch_size
        self.model_hash = model_files_hash(self.path)
        self._torch = torch

    def describe(self) -> dict[str, Any]:
        return {"evaluator": self.name, "path": str(self.path), "model_hash": self.model_hash,
                "max_length": self.max_length, **self.device.as_dict()}

    def _predict(self, claims: Sequence[str], citations: Sequence[str]) -> list[tuple[str, list[float]]]:
        torch = self._torch
        out = []
        with torch.inference_mode():
            for i in range(0, len(claims), self.batch_size):
                enc = self.tokenizer(list(claims[i:i + self.batch_size]), list(citations[i:i + self.batch_size]),
                                     truncation=True, max_length=self.max_length, padding=True, return_tensors="pt")
                enc = {k: v.to(self.device.device) for k, v in enc.items()}
                probs = torch.softmax(self.model(**enc).logits.float(), dim=-1).cpu().tolist()
                out += [(self.id2label[max(range(len(p)), key=p.__getitem__)], p) for p in probs]
        return out

    def judge(self, samples: Sequence[Sample]) -> list[Judgement]:
        preds = self._predict([claim_text(s) for s in samples], [s.citation for s in samples])
        return [Judgement(label, None, None, {"probs": [round(x, 4) for x in p]}) for label, p in preds]

    def supported(self, facts: Sequence[str], citations: Sequence[str]) -> list[bool | None]:
        return [label == SUPPORTIVE for label, _ in self._predict(list(facts), list(citations))]
