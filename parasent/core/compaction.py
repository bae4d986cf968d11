"""Making an averaging model small enough to ship: vocabulary pruning and dimension reduction.

Together with int8 storage (:mod:`parasent.core.stored_weights`, ``model.save(dtype="int8")``) these
turn the ~200 MB distilled default model into the ~20 MB one inside the package.

- **Pruning** keeps the words that carry most of running text: rare words are few per
  sentence, so mapping them to ``[UNK]`` moves a sentence average little. Words are ranked by
  the larger of their probability in a frequency list and in a text sample (the list of
  Wikipedia counts lacks punctuation and numbers, which running text has).
- **Sharing** (``pruned="nearest"``, the default) instead keeps every word in the tokenizer
  and gives each word outside the kept ones the vector of its nearest kept word (cosine): a
  rare word then still counts with a vector close to its own, where ``[UNK]`` would drop its
  meaning. The table keeps only its distinct rows on disk (shared rows,
  :mod:`parasent.core.stored_weights`), so its size is set by the kept words; the tokenizer keeps
  all words (about 25 bytes each). On the distilled default model, 110,000 kept words at 192
  dimensions scored 72.38 transfer shared and 72.02 pruned to ``[UNK]`` (full model: 72.40).
- **Dimension reduction** projects every word vector on the top right singular vectors of
  the table, rows weighted by ``sqrt(p(w))`` so that the subspace fits the words sentences
  are made of. The projection is linear, so the average of projected words is the projection
  of the average: inference is unchanged, and cosines lose only what the dropped directions
  held (uncentred, so no direction shared by all sentences is removed or added).

- **Pieces** (``unknown = "pieces"``, :mod:`parasent.text.word_pieces`): every subword
  piece keeps its row, like a one-character token; pieces are never a word's nearest vector.

- **Bigrams** (a model whose units include word bigrams,
  :mod:`parasent.text.word_bigrams`): the ``bigrams`` best keep their rows, ranked by
  ``p_text(bigram) x |row|``, what a bigram adds to the sentences of running text in
  expectation; the others leave the vocabulary (a pair not listed adds nothing). Bigram rows
  are never a word's nearest vector, and never share one. **Trigrams** (a model with word
  trigrams too) are kept alike: the ``trigrams`` best by ``p_text(trigram) x |row|``.

Numpy only: no torch, the result is a plain word-averaging model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from parasent.core.encoder_registry import averages_words
from parasent.core.stored_weights import EMBEDDING_KEY
from parasent.text.tokenizer import PAD, UNK, WordTokenizer
from parasent.text.word_bigrams import WordBigramTokenizer, bigram_rows_of, trigram_rows_of
from parasent.text.word_pieces import is_piece_token

if TYPE_CHECKING:
    from parasent.core.model import SentenceModel
    from parasent.text.featurizers import Featurizer


def _check_averaging(model: SentenceModel, *, words: bool = False) -> None:
    """Compaction needs an averaging model; pruning, parasent's word tokenizer (a pretrained
    tokenizer's pieces cannot be dropped: its pipeline would still produce them)."""
    if not averages_words(model.encoder_config.get("name", "")):
        raise ValueError(f"compaction applies to word-averaging models, not {model!r}")
    if words and type(model.tokenizer) is not WordTokenizer:
        raise ValueError(f"vocabulary pruning needs parasent's word tokenizer, not {model!r}")


def bigram_rows(tokenizer: Featurizer) -> np.ndarray:
    """``(vocab_size,)`` booleans: the rows that are word bigrams (none for a words-only model)."""
    mask = np.zeros(tokenizer.vocab_size, dtype=bool)
    mask[bigram_rows_of(tokenizer)] = True
    return mask


def trigram_rows(tokenizer: Featurizer) -> np.ndarray:
    """``(vocab_size,)`` booleans: the rows that are word trigrams (none for most models)."""
    mask = np.zeros(tokenizer.vocab_size, dtype=bool)
    mask[trigram_rows_of(tokenizer)] = True
    return mask


def gram_rows(tokenizer: Featurizer) -> np.ndarray:
    """``(vocab_size,)`` booleans: the rows that are word bigrams or trigrams (no word's)."""
    return bigram_rows(tokenizer) | trigram_rows(tokenizer)


def piece_rows(vocabulary: Sequence[str]) -> np.ndarray:
    """``(vocab_size,)`` booleans: the rows of subword pieces (:mod:`parasent.text.word_pieces`)."""
    return np.fromiter((is_piece_token(w) for w in vocabulary), dtype=bool, count=len(vocabulary))


def bigram_ranking(model: SentenceModel, texts: Iterable[str] | None = None) -> np.ndarray:
    """Per-row score ``p_text(bigram) x |row|`` of the bigram rows (the norm alone without
    ``texts``); 0 on word rows."""
    return _ranking(model, bigram_rows(model.tokenizer), texts, lambda t: model.tokenizer.bigram_counts(t))


def trigram_ranking(model: SentenceModel, texts: Iterable[str] | None = None) -> np.ndarray:
    """Per-row score ``p_text(trigram) x |row|`` of the trigram rows (as :func:`bigram_ranking`);
    0 on the other rows."""
    return _ranking(model, trigram_rows(model.tokenizer), texts, lambda t: model.tokenizer.gram_counts(t))


def _ranking(model: SentenceModel, mask: np.ndarray, texts: Iterable[str] | None, counted: Any) -> np.ndarray:
    """``|row| x`` the share of ``counted(texts)`` (occurrences per row) of each row of ``mask``."""
    table = np.asarray(model.weights[EMBEDDING_KEY], dtype=np.float32)
    score = np.where(mask, np.linalg.norm(table, axis=1), 0.0)
    if texts is not None and mask.any():
        counts = np.where(mask, counted(texts), 0)
        score *= counts / max(1, int(counts.sum()))
    return score


def prune_bigrams(model: SentenceModel, keep: int, scores: np.ndarray) -> SentenceModel:
    """The model with its ``keep`` best-scored bigrams (module docstring); words unchanged."""
    _check_averaging(model)
    if not isinstance(model.tokenizer, WordBigramTokenizer):
        raise ValueError(f"bigram pruning needs a word-bigram model, not {model!r}")
    candidates = model.tokenizer.bigram_ids
    kept = candidates[np.argsort(-scores[candidates], kind="stable")[: max(0, keep)]]
    tokenizer, rows = model.tokenizer.keeping(np.sort(kept))
    table = np.asarray(model.weights[EMBEDDING_KEY], dtype=np.float32)[rows]
    return _rebuilt(model, tokenizer, table, {"bigrams_from": len(candidates), "kept_bigrams": len(kept)})


def prune_trigrams(model: SentenceModel, keep: int, scores: np.ndarray) -> SentenceModel:
    """The model with its ``keep`` best-scored trigrams (as :func:`prune_bigrams`); words and
    bigrams unchanged."""
    _check_averaging(model)
    if not isinstance(model.tokenizer, WordBigramTokenizer) or not len(model.tokenizer.trigram_ids):
        raise ValueError(f"trigram pruning needs a model with word trigrams, not {model!r}")
    candidates = model.tokenizer.trigram_ids
    kept = candidates[np.argsort(-scores[candidates], kind="stable")[: max(0, keep)]]
    tokenizer, rows = model.tokenizer.keeping(model.tokenizer.bigram_ids, np.sort(kept))
    table = np.asarray(model.weights[EMBEDDING_KEY], dtype=np.float32)[rows]
    return _rebuilt(model, tokenizer, table, {"trigrams_from": len(candidates), "kept_trigrams": len(kept)})


def words_only(model: SentenceModel) -> SentenceModel:
    """The model without its bigram, trigram and subword-piece rows: a plain word-averaging model (one that
    tools averaging one tokenizer's tokens, sentence-transformers' StaticEmbedding and model2vec,
    can run; it encodes differently: no bigrams, and unknown words skipped where the model spelt
    them out in pieces). A words-only model is returned as it is; what it dropped is noted in its
    metadata (:func:`parasent.core.model_formats.export.dropped_by_words_only` reads the note)."""
    pieces = model.tokenizer.unknown == "pieces"
    if not isinstance(model.tokenizer, WordBigramTokenizer) and not pieces:
        return model
    note = {"bigrams_dropped": int(bigram_rows(model.tokenizer).sum())}
    trigrams = int(trigram_rows(model.tokenizer).sum())
    note.update({"trigrams_dropped": trigrams} if trigrams else {})
    rows = np.arange(model.tokenizer.vocab_size)
    vocabulary = model.tokenizer.vocabulary()
    if isinstance(model.tokenizer, WordBigramTokenizer):
        _, rows = model.tokenizer.keeping(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    if pieces:
        kept = ~piece_rows(vocabulary)
        note["pieces_dropped"] = int((~kept).sum())
        rows = rows[kept[rows]]
    tokenizer = WordTokenizer.from_vocabulary(
        [vocabulary[i] for i in rows[2:]], unknown="skip" if pieces else model.tokenizer.unknown
    )
    table = np.asarray(model.weights[EMBEDDING_KEY], dtype=np.float32)[rows]
    return _rebuilt(model, tokenizer, table, note)


def word_ranking(
    vocabulary: list[str], probabilities: Mapping[str, float], text_counts: Mapping[str, int] | None = None
) -> np.ndarray:
    """Per-word score ``max(p_list(w), p_text(w))`` (see the module docstring)."""
    score = np.array([probabilities.get(w, 0.0) for w in vocabulary], dtype=np.float64)
    if text_counts:
        total = float(sum(text_counts.values()))
        text = np.array([text_counts.get(w, 0) / total for w in vocabulary], dtype=np.float64)
        score = np.maximum(score, text)
    return score


def prune_vocabulary(model: SentenceModel, keep: int, scores: np.ndarray) -> SentenceModel:
    """The model with its ``keep`` best-scored words (plus ``[PAD]``, ``[UNK]`` and every
    single-character token: punctuation costs nothing and is in most sentences); other words
    become ``[UNK]``, as any out-of-vocabulary word does."""
    _check_averaging(model, words=True)
    vocabulary = model.tokenizer.vocabulary()
    rows = np.flatnonzero(
        _kept_rows(vocabulary, keep, scores)
    )  # keeps the original order: [PAD] 0, [UNK] 1 first
    words = [vocabulary[i] for i in rows]
    tokenizer = WordTokenizer.from_vocabulary(words[2:], unknown=model.tokenizer.unknown)
    table = np.asarray(model.weights[EMBEDDING_KEY], dtype=np.float32)[rows]
    return _rebuilt(model, tokenizer, table, {"pruned_from": len(vocabulary), "kept_words": len(rows)})


def _kept_rows(vocabulary: list[str], keep: int, scores: np.ndarray) -> np.ndarray:
    """Mask of the ``keep`` best-scored words plus [PAD], [UNK] and one-character tokens."""
    if len(scores) != len(vocabulary):
        raise ValueError(f"{len(scores)} scores for {len(vocabulary)} vocabulary entries")
    forced = np.array([w in (PAD, UNK) or len(w) == 1 or is_piece_token(w) for w in vocabulary])
    order = np.argsort(-scores, kind="stable")
    chosen = forced.copy()
    chosen[order[~forced[order]][: max(0, keep)]] = True
    return chosen


def share_vocabulary(
    model: SentenceModel, keep: int, scores: np.ndarray, *, block: int = 2048
) -> SentenceModel:
    """The model with ``keep`` words (as :func:`prune_vocabulary` chooses them) keeping their
    vectors and every other word taking the vector of its most cosine-similar kept word
    (module docstring); the tokenizer is unchanged."""
    _check_averaging(model)
    vocabulary = model.tokenizer.vocabulary()
    chosen = _kept_rows(vocabulary, keep, scores)
    specials = np.array([w in (PAD, UNK) for w in vocabulary])
    special = specials | gram_rows(model.tokenizer) | piece_rows(vocabulary)
    chosen[special] = False  # never a word's nearest (nor shares one: bigrams, trigrams and pieces)
    table = np.array(model.weights[EMBEDDING_KEY], dtype=np.float32)
    kept, others = np.flatnonzero(chosen), np.flatnonzero(~chosen)
    others = others[~special[others]]
    norms = np.maximum(np.linalg.norm(table, axis=1, keepdims=True), 1e-12)
    targets = (table[kept] / norms[kept]).T
    for start in range(0, len(others), block):
        rows = others[start : start + block]
        table[rows] = table[kept[np.argmax((table[rows] / norms[rows]) @ targets, axis=1)]]
    words = len(vocabulary) - int(special.sum()) + int(specials.sum())  # [PAD], [UNK] and the words
    note = {"shared_from": words, "kept_words": int(len(kept) + specials.sum())}
    return _rebuilt(model, model.tokenizer, table, note)


def reduce_dimension(model: SentenceModel, dim: int, scores: np.ndarray | None = None) -> SentenceModel:
    """The model with its word vectors projected on ``dim`` directions (see the module docstring)."""
    _check_averaging(model)
    table = np.asarray(model.weights[EMBEDDING_KEY], dtype=np.float32)
    if dim == table.shape[1]:
        return model
    if not 1 <= dim <= min(table.shape):
        raise ValueError(f"dimension must be between 1 and {min(table.shape)}, got {dim}")
    weights = np.ones(len(table)) if scores is None else np.sqrt(np.maximum(scores, 0.0))
    if not weights.any():
        weights = np.ones(len(table))
    _, _, vt = np.linalg.svd(table.astype(np.float64) * weights[:, None], full_matrices=False)
    reduced = (table @ vt[:dim].T.astype(np.float32)).astype(np.float32)
    return _rebuilt(model, model.tokenizer, reduced, {"reduced_from_dim": table.shape[1]})


def _rebuilt(
    model: SentenceModel, tokenizer: Featurizer, table: np.ndarray, note: dict[str, Any]
) -> SentenceModel:
    config = dict(model.encoder_config, vocab_size=tokenizer.vocab_size, embedding_dim=int(table.shape[1]))
    metadata = dict(model.metadata)
    metadata["compaction"] = {**metadata.get("compaction", {}), **note}
    # the input's class: compaction never imports parasent.core.model, which (through the export
    # of parasent.core.model_formats) imports compaction
    return type(model)(tokenizer, config, {EMBEDDING_KEY: table}, metadata=metadata)


def compact(
    model: SentenceModel,
    *,
    vocab: int | None,
    dim: int | None,
    probabilities: Mapping[str, float],
    text_counts: Mapping[str, int] | None = None,
    pruned: str = "nearest",
    bigrams: int | None = None,
    texts: Sequence[str] | None = None,
    trigrams: int | None = None,
) -> SentenceModel:
    """Keep ``vocab`` words and reduce to ``dim`` dimensions (either may be None); the other
    words share their nearest kept word's vector (``pruned="nearest"``, after the reduction,
    so neighbours are found in the space that ships) or become ``[UNK]`` (``"unk"``). A
    word-bigram model keeps its ``bigrams`` best bigrams and ``trigrams`` best trigrams (None:
    all), ranked on ``texts``."""
    if pruned not in ("nearest", "unk"):
        raise ValueError(f"pruned must be 'nearest' or 'unk', got {pruned!r}")
    if bigrams is not None:
        model = prune_bigrams(model, bigrams, bigram_ranking(model, texts))
    if trigrams is not None:
        model = prune_trigrams(model, trigrams, trigram_ranking(model, texts))
    prune = vocab is not None and vocab < model.tokenizer.vocab_size - int(gram_rows(model.tokenizer).sum())
    _check_averaging(model, words=prune and pruned == "unk")
    scores = word_ranking(model.tokenizer.vocabulary(), probabilities, text_counts)
    if prune and pruned == "unk":
        model = prune_vocabulary(model, vocab, scores)
        scores = word_ranking(model.tokenizer.vocabulary(), probabilities, text_counts)
    if dim is not None:
        model = reduce_dimension(model, dim, scores)
    if prune and pruned == "nearest":
        model = share_vocabulary(model, vocab, scores)
    return model
