"""Training objectives, as modules that take the encoder (the loop stays outside)."""

from parasent.objectives.margin import NEGATIVE_STRATEGIES, MarginLoss, margin_loss, select_negatives
from parasent.objectives.regularization import CompositionPenalty, EmbeddingPull

__all__ = [
    "NEGATIVE_STRATEGIES",
    "CompositionPenalty",
    "EmbeddingPull",
    "MarginLoss",
    "margin_loss",
    "select_negatives",
]
