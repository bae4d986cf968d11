"""Stage 5 of a training run, the *objective and batch source*: the margin loss (Wieting et
al. 2016, Eq. 1) over paraphrase pairs, Siamese CBOW over running text, or, with a teacher,
the distillation objective over pairs mixed with teacher sentences
(:meth:`parasent.distillation.provider.TeacherSide.objective`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from parasent.distillation.provider import TeacherSide
from parasent.encoders.base import Encoder
from parasent.objectives.adaptation import AdaptationLoss
from parasent.objectives.margin import MarginLoss
from parasent.objectives.siamese_cbow import SiameseCBOWLoss
from parasent.training.batching import BatchSource
from parasent.training.documents import DocumentData
from parasent.training.features_stage import Features, Start
from parasent.training.initialization import pretrained_rows
from parasent.training.pairs import PairData
from parasent.training.prepared import PreparedPairs
from parasent.training.protocols import Objective
from parasent.training.sentences import MixedData, SentenceTargets
from parasent.training.text_stage import TrainingText

if TYPE_CHECKING:
    from parasent.text.featurizers import Featurizer
    from parasent.training.config import ObjectiveConfig, TrainConfig


@dataclass
class ObjectiveStage:
    """What the trainer optimises, over which batches, and what the model's metadata records."""

    objective: Objective
    data: BatchSource
    metadata: dict[str, Any]


def batch_source(config: TrainConfig, text: TrainingText, tokenizer: Featurizer) -> BatchSource:
    """The tokenized training text: pairs (margin), or documents with ``num_negatives`` random
    negative sentences per example (Siamese CBOW)."""
    if text.documents is not None:
        return DocumentData.from_documents(text.documents, tokenizer, config.objective.num_negatives)
    if text.prepared is not None:
        return PreparedPairs(text.prepared)
    data = PairData.from_pairs(text.pairs, tokenizer, scores=config.data.scores == "rank")
    data.length_buckets = config.data.length_buckets
    return data


def composition_to_initial(config: TrainConfig, encoder: Encoder) -> bool:
    """Whether lambda_c pulls the composition parameters to their initial values.

    ``auto``: yes for an encoder that asks for it (the identity-RNN) and when continuing a
    trained model (the "universal" prior of Wieting et al. Sec. 4.4.1); otherwise plain L2.
    """
    prior = config.objective.composition_prior
    if prior != "auto":
        return prior == "initial"
    return encoder.composition_prior == "initial" or config.encoder.init_model is not None


def build_margin_objective(
    config: TrainConfig,
    encoder: Encoder,
    features: Features,
    start: Start,
    teacher: TeacherSide,
    data: BatchSource | None = None,
) -> MarginLoss:
    """The margin loss of ``config.objective``. Character models have no pretrained rows:
    lambda_w is then plain L2 on W (CHARAGRAM's lambda ||theta||^2), a pull towards zero; a
    continued model is pulled to its start. With the teacher regression on, the pull lives in
    the distillation objective (no second copy here). Pairs ranked by their scores
    (``scores="rank"``) or a continued model's cosines kept (``keep_start``) make it the
    fine-tuning objective (:class:`~parasent.objectives.adaptation.AdaptationLoss`) over ``data``."""
    options = config.objective
    pretrained = features.new_word_rows or start.init is not None
    weight = encoder.embedding.weight.detach()
    if teacher.active:
        initial = weight[:0]
    else:
        initial = weight.clone() if pretrained else torch.zeros_like(weight)
    margin = {
        "delta": options.delta,
        "negatives": options.negatives,
        "lambda_w": 0.0 if teacher.active or config.encoder.freeze_words else options.lambda_w,
        "lambda_c": config.composition_weight,
        "initial_embeddings": initial,
        "composition_to_initial": composition_to_initial(config, encoder),
        "pull_mode": options.pull,
        "pulled": pulled_rows(options, features, start, teacher),
    }
    if config.data.scores != "rank" and not options.keep_start:
        return MarginLoss(encoder, **margin)
    return AdaptationLoss(
        encoder, start_vectors=start_vectors(options, start, data), keep=options.keep_start, **margin
    )


def start_vectors(options: ObjectiveConfig, start: Start, data: BatchSource | None) -> torch.Tensor:
    """The continued model's vectors of the training sentences (what ``keep_start`` keeps), by
    sentence id; an empty tensor when nothing is kept."""
    if not options.keep_start:
        return torch.zeros(0)
    if start.init is None or not isinstance(data, PairData) or data.texts is None:
        raise ValueError(
            "--keep-start keeps the cosines of the model a run continues: it needs --init-model and pairs"
        )
    return torch.from_numpy(start.init.encode(list(data.texts), batch_size=4096))


def pulled_rows(
    options: ObjectiveConfig, features: Features, start: Start, teacher: TeacherSide
) -> torch.Tensor | None:
    """The rows lambda_w pulls (None: all). With ``pull_rows="initial"``, a new word model's rows
    of the initial vectors only: new training words and [UNK] start random, and have no
    ``W_w_initial`` to be pulled to (docs/paper-deviations.md). Character models (pulled to
    zero), continued models (to their start) and distillation runs pull every row."""
    if options.pull_rows == "all" or teacher.active or start.init is not None:
        return None
    if not features.new_word_rows:
        return None
    if start.checkpoint is not None:  # the checkpoint restores the pulled rows of the run
        return None
    return torch.from_numpy(pretrained_rows(features.tokenizer, features.vectors))


def pairs_metadata(text: TrainingText, data: BatchSource) -> dict[str, Any]:
    """What a model trained on pairs records of them: the pool's report (a prepared set's: its
    manifest's, made by its own guard) and how many pairs."""
    if text.pool is not None:
        pool = text.pool.to_dict()
    else:
        pool = text.prepared.manifest.get("filter") if text.prepared is not None else None
    return {"pool": pool, "training_pairs": len(data)}


def build_objective(
    config: TrainConfig,
    encoder: Encoder,
    features: Features,
    start: Start,
    text: TrainingText,
    data: BatchSource,
    teacher: TeacherSide,
    say: Callable[[str], None] = print,
) -> ObjectiveStage:
    """The objective of ``config.objective.name`` over ``data`` (the pairs or documents);
    with an active teacher, the distillation objective over the pairs and teacher sentences."""
    if config.objective.name == "siamese-cbow":
        metadata = {
            "corpus": text.corpus.to_dict(),
            "training_examples": len(data),
            "anchors_dropped": data.dropped,
        }
        return ObjectiveStage(SiameseCBOWLoss(encoder), data, metadata)
    margin = build_margin_objective(config, encoder, features, start, teacher, data)
    metadata = {**pairs_metadata(text, data), **teacher.metadata()}
    if text.prepared is not None:
        metadata["prepared"] = {"directory": str(text.prepared.directory), **text.prepared.manifest["filter"]}
    if config.data.synthetic and config.data.synthetic_for != "train":
        metadata["transductive"] = config.data.synthetic_for
    distilled = teacher.objective(
        config.teacher,
        encoder,
        features.tokenizer,
        margin,
        len(data),
        margin_weight=config.objective.margin_weight,
        lambda_w=config.objective.lambda_w,
        seed=config.seed,
        say=say,
    )
    if distilled is None:
        return ObjectiveStage(margin, data, metadata)
    neighbours = config.teacher.teacher_batches == "neighbours"
    sentences = SentenceTargets(
        distilled.sentences, distilled.targets, neighbours=neighbours, token_targets=distilled.token_targets
    )
    mixed = MixedData(data if distilled.use_pairs else None, sentences, distilled.batch_size)
    return ObjectiveStage(distilled.objective, mixed, metadata)
