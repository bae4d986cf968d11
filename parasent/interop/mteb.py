"""An MTEB encoder over a parasent model (``pip install mteb``): ``mteb.evaluate(MTEBEncoder(m),
tasks)`` runs any text task on it.

MTEB calls ``encode`` with a data loader of batches (``{"text": [...]}``) plus the task's
metadata, split, subset and prompt type; a paraphrastic model has no prompts, so those only
say what is being encoded. Similarities are cosines (``similarity`` a matrix,
``similarity_pairwise`` row by row), as the model was trained (Wieting et al. 2016, Eq. 1).
``mteb_model_meta`` describes the model for MTEB's result files: name, dimensions, languages,
revision (a digest of the weights unless the metadata records one), parameter count.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from parasent.core.inference import cosine_matrix, cosine_rows
from parasent.core.output import as_matrix

if TYPE_CHECKING:
    from parasent.core.model import SentenceModel

DEFAULT_LANGUAGES = ["eng-Latn"]
# A model records its languages as ISO 639-1 codes (``metadata.languages``); MTEB names them
# by ISO 639-3 and script.
MTEB_LANGUAGE = {"en": "eng-Latn"}


def _texts(inputs: Any) -> list[str]:
    """The texts of an MTEB data loader (batches of ``{"text": [...]}``) or of a plain list."""
    if isinstance(inputs, str):
        return [inputs]
    texts: list[str] = []
    for item in inputs:
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, dict) and "text" in item:
            batch = item["text"]
            texts.extend([batch] if isinstance(batch, str) else list(batch))
        else:
            raise TypeError(f"MTEB input of type {type(item).__name__} has no 'text'")
    return texts


class MTEBEncoder:
    """MTEB's encoder protocol around a :class:`~parasent.core.model.SentenceModel`."""

    def __init__(
        self,
        model_name: str | Path | SentenceModel,
        revision: str | None = None,
        *,
        device: str | None = None,
        name: str | None = None,
        languages: Iterable[str] | None = None,
        batch_size: int = 4096,
        **kwargs: Any,
    ) -> None:
        from parasent.core.model import SentenceModel, load

        self.model = model_name if isinstance(model_name, SentenceModel) else load(model_name)
        path = None if isinstance(model_name, SentenceModel) else str(model_name)
        self.name = (
            name or self.model.metadata.get("name") or f"parasent/{Path(path).name if path else 'model'}"
        )
        self.revision = revision or self.model.metadata.get("revision") or self._digest()
        recorded = [MTEB_LANGUAGE.get(code, code) for code in self.model.metadata.get("languages") or []]
        self.languages = list(languages or recorded or DEFAULT_LANGUAGES)
        self.batch_size = batch_size
        self.device = device

    def _digest(self) -> str:
        """A revision naming the weights themselves: the same weights give the same results file."""
        digest = hashlib.sha256()
        for key in sorted(self.model.weights):
            digest.update(key.encode())
            digest.update(np.ascontiguousarray(self.model.weights[key]).tobytes())
        return digest.hexdigest()[:12]

    def encode(
        self,
        inputs: Any,
        *,
        task_metadata: Any = None,
        hf_split: str | None = None,
        hf_subset: str | None = None,
        prompt_type: Any = None,
        **kwargs: Any,
    ) -> np.ndarray:
        texts = _texts(inputs)
        batch_size = int(kwargs.get("batch_size") or self.batch_size)
        return self.model.encode(texts, batch_size=max(batch_size, 1))

    def similarity(self, embeddings1: Any, embeddings2: Any) -> np.ndarray:
        return cosine_matrix(as_matrix(embeddings1), as_matrix(embeddings2))

    def similarity_pairwise(self, embeddings1: Any, embeddings2: Any) -> np.ndarray:
        return cosine_rows(as_matrix(embeddings1), as_matrix(embeddings2)).astype(np.float32)

    @property
    def mteb_model_meta(self) -> Any:
        from mteb.models.model_meta import ModelMeta

        n_parameters = int(sum(np.asarray(w).size for w in self.model.weights.values()))
        return ModelMeta(
            loader=None,
            name=self.name,
            revision=self.revision,
            release_date=None,
            languages=self.languages,
            n_parameters=n_parameters,
            memory_usage_mb=round(n_parameters * 4 / 2**20, 2),
            max_tokens=None,
            embed_dim=self.model.dim,
            license=self.model.metadata.get("license", "mit"),
            open_weights=True,
            public_training_code=None,
            public_training_data=None,
            framework=["NumPy"],
            similarity_fn_name="cosine",
            use_instructions=False,
            training_datasets=None,
        )


def local_sts_task(
    path: str | Path, *, name: str = "LocalSTS", min_score: float = 0.0, max_score: float = 5.0
) -> Any:
    """An mteb STS task over a local tab-separated file with a ``sentence1``, ``sentence2``,
    ``score`` header (the test split), so that ``mteb.evaluate`` runs offline: mteb's hub tasks
    download their data from huggingface.co. mteb scores it as any STS task (cosine Spearman is
    the main score); needs ``parasent[mteb]``."""
    import csv

    from datasets import Dataset, DatasetDict
    from mteb.abstasks.sts import AbsTaskSTS
    from mteb.abstasks.task_metadata import TaskMetadata

    from parasent.errors import DataFormatError

    path = Path(path)
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    missing = {"sentence1", "sentence2", "score"} - set(rows[0] if rows else {})
    if missing:
        raise DataFormatError(
            path, 1, f"needs a header with sentence1, sentence2 and score (lacks {sorted(missing)})"
        )
    columns = {
        "sentence1": [r["sentence1"] for r in rows],
        "sentence2": [r["sentence2"] for r in rows],
        "score": [float(r["score"]) for r in rows],
    }
    metadata = TaskMetadata(
        name=name,
        dataset={"path": f"local/{path.name}", "revision": "local"},
        description=f"Scored sentence pairs from the local file {path.name}.",
        reference=None,
        type="STS",
        category="t2t",
        modalities=["text"],
        eval_splits=["test"],
        eval_langs=["eng-Latn"],
        main_score="cosine_spearman",
        date=None,
        domains=None,
        task_subtypes=None,
        license=None,
        annotations_creators=None,
        dialect=None,
        sample_creation=None,
        bibtex_citation=None,
    )

    def load_data(self: Any, **kwargs: Any) -> None:
        self.dataset = {"default": DatasetDict({"test": Dataset.from_dict(columns)})}
        self.data_loaded = True

    task_class = type(
        name,
        (AbsTaskSTS,),
        {"min_score": min_score, "max_score": max_score, "metadata": metadata, "load_data": load_data},
    )
    return task_class()
