"""Fine-tuning an averaging model trains only the rows its training text uses (stage 3 and 4).

A trained averaging model is its table of rows; a step on a batch of pairs changes only the
rows of the tokens in that batch. So a run continuing such a model (``--init-model``) trains a
small table, one row per token of its training text (its local ids), and the model it
validates and saves is the starting model with those tokens' rows replaced
(:meth:`parasent.core.model.SentenceModel.with_rows`): memory grows with the user's data, not
with the model (the shipped default's 268,619 tokens are never widened to float), and a
token that shared its row with others after compaction gets a row of its own, so the words the
user's data never showed keep their vectors (docs/adapt.md, the lever table).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from parasent.core.model import model_record
from parasent.core.stored_weights import EMBEDDING_KEY
from parasent.support.paths import portable
from parasent.text.tokenized import Tokenized
from parasent.text.tokenizer import PAD_ID

if TYPE_CHECKING:
    from tokenizers import Tokenizer

    from parasent.core.model import SentenceModel
    from parasent.encoders.base import Encoder
    from parasent.text.featurizers import Featurizer


INHERITED = (
    "languages",
    "license",
    "normalize",
)  # metadata of the model's behaviour, kept by a continued model


class RowSubset:
    """The tokens of ``texts`` under ``model``'s featurizer: ``ids`` (global, ``[PAD]`` first, so
    that local id 0 is the zero padding row every encoder keeps), and back."""

    def __init__(self, model: SentenceModel, texts: Iterable[str], chunk: int = 65536) -> None:
        self.model = model
        seen = [np.array([PAD_ID], dtype=np.int64)]
        batch: list[str] = []
        for text in texts:  # tokenized a chunk at a time: memory bounded by the tokens kept
            batch.append(text)
            if len(batch) == chunk:
                seen.append(np.unique(model.tokenizer.encode_batch(batch).ids))
                batch = []
        if batch:
            seen.append(np.unique(model.tokenizer.encode_batch(batch).ids))
        ids = np.unique(np.concatenate(seen))
        self.ids = np.concatenate([[PAD_ID], ids[ids != PAD_ID]]).astype(np.int64)
        self.local = np.full(model.tokenizer.vocab_size, -1, dtype=np.int64)
        self.local[self.ids] = np.arange(len(self.ids))

    def __len__(self) -> int:
        return len(self.ids)

    def featurizer(self) -> SubsetFeaturizer:
        return SubsetFeaturizer(self)

    def encoder(self) -> Encoder:
        """A torch encoder of the model's kind over the subset's rows, starting at the model's."""
        import torch

        from parasent.encoders import build_encoder

        encoder = build_encoder({**self.model.encoder_config, "vocab_size": len(self)})
        composition = {
            name: torch.from_numpy(np.array(value, dtype=np.float32))
            for name, value in self.model.weights.items()
            if name != EMBEDDING_KEY
        }
        encoder.load_state_dict(composition, strict=False)  # a composing encoder's own weights
        encoder.set_embeddings(self.start_rows())
        return encoder

    def start_rows(self) -> np.ndarray:
        """The subset's rows as the model has them, in float32 (what :meth:`encoder` starts from)."""
        return np.asarray(self.model.weights[EMBEDDING_KEY][self.ids], dtype=np.float32)

    def merged(self, encoder: Encoder, metadata: dict[str, Any] | None = None) -> SentenceModel:
        """The starting model with the subset's rows (``[PAD]`` aside) and composition weights
        (a composing encoder's) as ``encoder`` has them."""
        rows = encoder.embedding.weight.detach().cpu().numpy()
        # only the rows training moved: an unmoved token keeps sharing its row (frozen rows,
        # the contextual tier's, leave the table as it was, int8 rows and shared rows alike)
        moved = np.flatnonzero(np.any(rows != self.start_rows(), axis=1))
        moved = moved[moved != 0]  # [PAD] aside
        composition = encoder.composition_weights()
        if metadata is not None:
            metadata = continued_metadata(self.model, metadata)
        return self.model.with_rows(self.ids[moved], rows[moved], metadata=metadata, composition=composition)


def continued_metadata(model: SentenceModel, metadata: dict[str, Any]) -> dict[str, Any]:
    """The metadata of a model made by continuing ``model``: what the starting model says of
    its text stays (:data:`INHERITED`); its build is its own, recorded as where it came from."""
    base = model.metadata
    kept = {key: base[key] for key in INHERITED if key in base}
    record = metadata.get("base_model") or (model_record(model.path) if model.path is not None else None)
    origin = {"model": record["name"] if record else "default", "build": base.get("build")}
    named = {"base_model": record} if record else {}
    return portable({**kept, **metadata, **named, "continued_from": origin})


class SubsetFeaturizer:
    """The model's featurizer with ids in the subset's local numbering: what the batch
    sources and the encoder of a fine-tuning run read. The checkpoint stores the model's own
    tokenizer (a resumed run rebuilds the subset from the same text)."""

    def __init__(self, subset: RowSubset) -> None:
        self.subset = subset
        self.base: Featurizer = subset.model.tokenizer
        self.kind, self.unknown = self.base.kind, self.base.unknown

    @property
    def vocab_size(self) -> int:
        return len(self.subset)

    @property
    def tokenizer(self) -> Tokenizer:
        return self.base.tokenizer

    def encode_batch(self, texts: Any) -> Tokenized:
        tokenized = self.base.encode_batch(texts)
        local = self.subset.local[tokenized.ids]
        if len(local) and int(local.min()) < 0:
            raise ValueError("a text outside the fine-tuning run's text: its tokens have no trained row")
        return Tokenized(local, tokenized.offsets)

    def config(self) -> dict[str, Any]:
        return self.base.config()

    def save(self, directory: str | Path) -> None:
        self.base.save(directory)

    def oov_counts(self, texts: Any) -> tuple[int, int]:
        return self.base.oov_counts(texts)
