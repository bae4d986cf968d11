"""The DCU-SEManiacs STS system (Hokamp & Arora 2016): its fine-tuning recipe and its ensemble.

- :func:`finetune_config`: PARAGRAM-PHRASE fine-tuned on task-internal STS pairs with a gold
  score >= a threshold (3.8), random negatives from the batch (re-drawn every epoch), delta
  0.8, AdaDelta, batch 100, lambda_w 1e-5, the model's vocabulary (Sec. 2.1, 3.1, 3.6);
  optionally with synthetic paraphrases of evaluation sentences (Sec. 3.2).
- :class:`STSEnsemble`: gradient boosting over lexical features and the cosines of the
  embedding models ("fusion", Sec. 3.4), trained on STS pairs with gold scores, predicting
  0-5. Saved as a directory: the embedding models, the trees (safetensors + JSON), and the
  name of the word-frequency list the features use.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from parasent.data.readers.records import ScoredPair
from parasent.data.training_text.pools import (
    STS_PARAPHRASE_MIN_SCORE,
    evaluation_sentences,
    filter_pairs,
    sts2012_train_pairs,
)
from parasent.errors import ModelFormatError
from parasent.sts.ensemble import BoostedTrees
from parasent.sts.features import InformationContent, PairFeatures
from parasent.support.regular_files import exists, read_regular_json
from parasent.support.staging import staged_directory
from parasent.training.config import TrainConfig

WORD_COUNTS = "wordfreq/enwiki_vocab_min200.txt.gz"
SYSTEM_CONFIG = "sts_system.json"


def finetune_config(
    init_model: str | Path,
    *,
    min_score: float = STS_PARAPHRASE_MIN_SCORE,
    epochs: int = 10,
    synthetic: str | None = None,
    synthetic_for: str = "validation",
    validation: str | None = None,
    seed: int = 1,
) -> TrainConfig:
    """The paper's fine-tuning of a trained model on the STS 2012 training pairs (Sec. 3.6), with
    the guard of the suites alone (the system is measured on them: MSRpar's pairs of MSRP test
    sentences stay, as :func:`sts_training_pairs` keeps them)."""
    return TrainConfig.from_flat(
        init_model=str(init_model),
        leakage_guard="suites",
        vectors=None,
        pool="sts2012-train",
        min_score=min_score,
        optimizer="adadelta",
        lr=1.0,
        delta=0.8,
        negatives="rand",
        lambda_w=1e-5,
        batch_size=100,
        epochs=epochs,
        synthetic=synthetic,
        synthetic_for=synthetic_for,
        validation=validation,
        seed=seed,
    )


def sts_training_pairs(data_dir: str | Path) -> tuple[list[ScoredPair], int]:
    """The STS 2012 training pairs with gold scores, minus pairs sharing a sentence with an
    evaluation or validation set (the no-leakage rule of the protocol's suites: the system is
    measured on them alone, so MSRpar's pairs of MSRP test sentences stay, as the paper had them);
    and how many were dropped."""
    forbidden = evaluation_sentences(data_dir, domains=())
    kept, report = filter_pairs(sts2012_train_pairs(Path(data_dir)), forbidden)
    return [ScoredPair(p.s1, p.s2, float(p.score)) for p in kept], report.total_leaked


class STSEnsemble:
    """Features of a pair (:class:`PairFeatures`) -> boosted trees -> a 0-5 score."""

    def __init__(
        self, features: PairFeatures, trees: BoostedTrees | None = None, word_counts: str = ""
    ) -> None:
        self.features = features
        self.trees = trees
        self.word_counts = word_counts

    def fit(self, pairs: Sequence[ScoredPair], *, seed: int = 1, **params: Any) -> STSEnsemble:
        matrix = self.features.transform([(p.s1, p.s2) for p in pairs])
        scores = np.array([p.score for p in pairs], dtype=np.float64)
        self.trees = BoostedTrees.fit(matrix, scores, self.features.names, seed=seed, **params)
        return self

    def predict(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        if self.trees is None:
            raise ValueError("the ensemble is not fitted")
        return self.trees.predict(self.features.transform(pairs))

    def save(self, directory: str | Path) -> Path:
        if self.trees is None:
            raise ValueError("the ensemble is not fitted")
        directory = Path(directory)
        config = {
            "models": list(self.features.models),
            "lexical": self.features.lexical,
            "word_counts": self.word_counts,
        }
        with staged_directory(directory) as staging:  # whole or not at all
            self.trees.save(staging)
            for name, model in self.features.models.items():
                model.save(staging / "models" / name)
            (staging / SYSTEM_CONFIG).write_text(json.dumps(config, indent=2) + "\n")
        return directory

    @classmethod
    def load(cls, directory: str | Path, data_dir: str | Path | None = None) -> STSEnsemble:
        """Load a saved ensemble; its word counts are read from the data directory."""
        from parasent.core.model import load
        from parasent.data.readers.wordfreq import read_word_counts
        from parasent.support.paths import resolve_data_dir

        directory = Path(directory)
        if not exists(directory / SYSTEM_CONFIG):
            raise ModelFormatError(f"{directory / SYSTEM_CONFIG}: missing (not a saved STS ensemble)")
        config = read_regular_json(directory / SYSTEM_CONFIG)
        models = {name: load(directory / "models" / name) for name in config["models"]}
        counts = read_word_counts(resolve_data_dir(data_dir) / config["word_counts"])
        features = PairFeatures(InformationContent(counts), models, lexical=config["lexical"])
        trees = BoostedTrees.load(directory)
        if trees.feature_names != features.names:
            raise ModelFormatError(f"{directory}: the trees' features do not match the models")
        return cls(features, trees, config["word_counts"])


def build_ensemble(
    models: Mapping[str, Any], data_dir: str | Path, *, lexical: bool = True, word_counts: str = WORD_COUNTS
) -> STSEnsemble:
    from parasent.data.readers.wordfreq import read_word_counts

    counts = read_word_counts(Path(data_dir) / word_counts)
    return STSEnsemble(
        PairFeatures(InformationContent(counts), models, lexical=lexical), word_counts=word_counts
    )
