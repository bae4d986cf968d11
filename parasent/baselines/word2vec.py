"""word2vec skip-gram and CBOW vectors (Mikolov et al. 2013) trained with gensim, averaged.

The baselines of Kenter et al. (2016), Sec. 3.2: word2vec trained on the same corpus as
Siamese CBOW with the tool's default settings (minimum count 5, 300 dimensions, window 5,
sample 1e-5, negative sampling with 5 negatives, no hierarchical softmax; 5 iterations and
the initial rate of the word2vec tool, 0.05 for CBOW and 0.025 for skip-gram). Sentences
are tokenized exactly as parasent models tokenize them, so both methods see the same words,
and sentence vectors are plain averages with unknown words omitted, as in the paper.

gensim is an optional dependency: ``pip install parasent[word2vec]``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from parasent.text.tokenizer import pre_tokenize
from parasent.text.word_vectors import WordVectors

ARCHITECTURES = ("cbow", "skipgram")


@dataclass
class Word2VecConfig:
    arch: str = "cbow"
    dim: int = 300
    window: int = 5
    min_count: int = 5
    sample: float = 1e-5
    negative: int = 5
    epochs: int = 5
    alpha: float | None = None  # None: the word2vec tool's default for the architecture
    seed: int = 1
    workers: int = 1  # one worker: reproducible for a seed (and kind to a shared machine)

    def __post_init__(self) -> None:
        if self.arch not in ARCHITECTURES:
            raise ValueError(f"arch must be one of {ARCHITECTURES}, got {self.arch!r}")

    @property
    def learning_rate(self) -> float:
        if self.alpha is not None:
            return self.alpha
        return 0.05 if self.arch == "cbow" else 0.025

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "alpha": self.learning_rate}


def _gensim():
    try:
        from gensim.models import Word2Vec
        from gensim.models.callbacks import CallbackAny2Vec
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("the word2vec baselines need gensim: pip install parasent[word2vec]") from None
    return Word2Vec, CallbackAny2Vec


def tokenize_sentences(sentences: Iterable[str]) -> list[list[str]]:
    """Sentences as the word lists parasent's tokenizer makes (lowercase, punctuation split)."""
    return [words for words in (pre_tokenize(s) for s in sentences) if words]


def train_word2vec(
    sentences: Iterable[str], config: Word2VecConfig | None = None, *, progress: bool = True
) -> WordVectors:
    """Train word2vec on ``sentences`` (raw text) and return its vectors, most frequent first."""
    config = config or Word2VecConfig()
    Word2Vec, CallbackAny2Vec = _gensim()
    from tqdm.auto import tqdm

    tokenized = tokenize_sentences(sentences)
    bar = tqdm(
        total=config.epochs, desc=f"word2vec {config.arch}", unit="epoch", disable=None if progress else True
    )

    class EpochBar(CallbackAny2Vec):
        def on_epoch_end(self, model) -> None:  # noqa: ANN001 - gensim's callback signature
            bar.update(1)

    model = Word2Vec(  # gensim's two steps, as its constructor takes them: an empty vocabulary said between
        vector_size=config.dim,
        window=config.window,
        min_count=config.min_count,
        sample=config.sample,
        sg=1 if config.arch == "skipgram" else 0,
        hs=0,
        negative=config.negative,
        cbow_mean=1,
        alpha=config.learning_rate,
        epochs=config.epochs,
        seed=config.seed,
        workers=config.workers,
    )
    model.build_vocab(tokenized)
    if not len(model.wv):  # training would fail in gensim ("you must first build vocabulary")
        raise ValueError(
            f"no word occurs min_count (--min-count) {config.min_count} time(s) in the corpus "
            f"({len(tokenized)} sentence(s) with words): nothing to train word2vec on"
        )
    model.train(tokenized, total_examples=model.corpus_count, epochs=model.epochs, callbacks=[EpochBar()])
    bar.close()
    words = list(model.wv.index_to_key)
    return WordVectors(words, np.asarray(model.wv.vectors, dtype=np.float32))
