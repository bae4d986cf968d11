"""Synthetic paraphrases: generators (sentence in, paraphrases out) and the pairs they make."""

from parasent.paraphrase.generators import (
    CallableGenerator,
    LexicalSubstitution,
    PairFileGenerator,
    ParaphraseGenerator,
    build_generator,
    synthetic_pairs,
)

__all__ = [
    "CallableGenerator",
    "LexicalSubstitution",
    "PairFileGenerator",
    "ParaphraseGenerator",
    "build_generator",
    "synthetic_pairs",
]
