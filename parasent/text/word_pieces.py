"""Subword pieces for the words a word model does not know (``unknown = "pieces"``).

A word model with one shared ``[UNK]`` row says that any two sentences made only of unknown
words are the same sentence (cosine 1): every Russian, Chinese or misspelt word falls on that
row. With ``unknown = "pieces"`` an out-of-vocabulary word is instead encoded by the rows of
its WordPiece pieces (the teacher's subword vocabulary: "guitr" -> ``gui ##tr``), each piece a
unit of the sentence mean like a word (Eq. 2 of Wieting et al. 2016 over words and pieces).
Whole-word rows, and bigram rows, stay where the vocabulary has them; the pieces only stand in
for what it lacks. A word with no known piece contributes nothing, so text with no known unit
at all is the zero vector (cosine 0 with everything), as the static models of
sentence-transformers and model2vec give.

The pieces live in the model's one ``tokenizer.json`` vocabulary as tokens ``[p]<piece>``
(``[p]gui``, ``[p]##tr``): no text ever yields such a token as a word (the word pipeline makes
``[`` a token of its own), so the word lookup never matches them, and every row of the table
is still the row of one token. The WordPiece pipeline over them is rebuilt from that
vocabulary when the first unknown word arrives: BERT's uncased normalisation (accents
stripped, every CJK character a word of its own) and greedy longest-match-first pieces with
the ``##`` continuation prefix, the pipeline of the uncased WordPiece teachers
(all-MiniLM-L6-v2, all-mpnet-base-v2) whose pieces these are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

from parasent.text.tokenized import Tokenized

PIECE_PREFIX = "[p]"  # a piece's token in a word vocabulary
CONTINUATION = "##"  # WordPiece's mark of a piece that continues a word
MAX_WORD_CHARS = 100  # longer "words" have no pieces (WordPiece's own limit)
_PIECE_UNK = "[UNK]"


def piece_token(piece: str) -> str:
    """The vocabulary token of a WordPiece piece (``##tr`` -> ``[p]##tr``)."""
    return PIECE_PREFIX + piece


def is_piece_token(token: str) -> bool:
    return token.startswith(PIECE_PREFIX)


def piece_text(token: str) -> str:
    """What a piece says on its own, for a teacher that encodes it alone (``[p]##tr`` -> ``tr``)."""
    piece = token[len(PIECE_PREFIX) :] if is_piece_token(token) else token
    return piece[len(CONTINUATION) :] if piece.startswith(CONTINUATION) else piece


def teacher_pieces(vocabulary: Iterable[str]) -> list[str]:
    """The pieces of a WordPiece vocabulary worth a row: every token but the special ones
    (``[CLS]``, ``[unused12]``, ``<s>``...)."""
    return [
        piece
        for piece in vocabulary
        if piece and not (piece[0] in "[<" and piece[-1] in "]>" and len(piece) > 2)
    ]


def pieces_pipeline(pieces: Mapping[str, int], unknown_id: int) -> Tokenizer:
    """A WordPiece tokenizer over ``pieces`` (piece -> id), unknown pieces to ``unknown_id``."""
    vocab = dict(pieces)
    vocab[_PIECE_UNK] = unknown_id
    tokenizer = Tokenizer(
        models.WordPiece(
            vocab,
            unk_token=_PIECE_UNK,
            continuing_subword_prefix=CONTINUATION,
            max_input_chars_per_word=MAX_WORD_CHARS,
        )
    )
    tokenizer.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
    )
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    return tokenizer


class PieceFallback:
    """Unknown words to the ids of their pieces, for a vocabulary holding ``[p]`` tokens."""

    def __init__(
        self,
        vocabulary: Mapping[str, int],
        unknown_id: int,
        words_at: Callable[[Sequence[str], np.ndarray, np.ndarray], list[str]],
    ) -> None:
        # word ranks[j] of texts[which[j]], as the word pipeline split the text into its ids
        self._words_of = words_at
        pieces = {t[len(PIECE_PREFIX) :]: i for t, i in vocabulary.items() if is_piece_token(t)}
        self.size = len(pieces)
        self.unknown_id = unknown_id
        self._tokenizer = pieces_pipeline(pieces, unknown_id)

    def pieces_of(self, words: Sequence[str]) -> list[np.ndarray]:
        """The known pieces' ids of each word (empty where it has none).

        The distinct words are pieced in one pass of the pipeline over them joined by spaces:
        WordPiece pieces each word of its pre-tokenizer on its own, and a space never joins
        two, so each word's pieces are those of the word alone, found from their offsets in
        the joined text. One pass costs about what one word costs (an ``Encoding`` per word is
        most of the time of a word), so nothing is remembered from one call to the next: text
        never seen costs what seen text does."""
        distinct = list(dict.fromkeys(words))
        if not distinct:
            return []
        encoding = self._tokenizer.encode(" ".join(distinct), add_special_tokens=False)
        ids = np.asarray(encoding.ids, dtype=np.int64)
        starts = np.fromiter((start for start, _ in encoding.offsets), dtype=np.int64, count=len(ids))
        lengths = np.fromiter(map(len, distinct), dtype=np.int64, count=len(distinct))
        word_starts = np.cumsum(lengths + 1) - lengths - 1  # each word's first character
        owner = np.searchsorted(word_starts, starts, side="right") - 1
        known = ids != self.unknown_id
        ids, owner = ids[known], owner[known]
        bounds = np.searchsorted(owner, np.arange(len(distinct) + 1)).tolist()
        found = {word: ids[bounds[i] : bounds[i + 1]] for i, word in enumerate(distinct)}
        return [found[word] for word in words]

    def replace(self, tokenized: Tokenized, texts: Sequence[str]) -> Tokenized:
        """``tokenized`` (the word ids of ``texts``) with every ``unknown_id`` replaced by the
        pieces of its word: the word at position k of sentence i is ``split(texts[i])[k]``, one
        word id per word of the word pipeline."""
        unknown = np.flatnonzero(tokenized.ids == self.unknown_id)
        if not len(unknown):
            return tokenized
        return splice(tokenized, unknown, self.pieces_of(self._words_at(tokenized, texts, unknown)))

    def known_by_pieces(self, tokenized: Tokenized, texts: Sequence[str]) -> int:
        """How many of the unknown words of ``tokenized`` have at least one known piece."""
        unknown = np.flatnonzero(tokenized.ids == self.unknown_id)
        return sum(1 for ids in self.pieces_of(self._words_at(tokenized, texts, unknown)) if len(ids))

    def _words_at(self, tokenized: Tokenized, texts: Sequence[str], positions: np.ndarray) -> list[str]:
        sentence = np.searchsorted(tokenized.offsets, positions, side="right") - 1
        return self._words_of(texts, sentence, positions - tokenized.offsets[sentence])


def splice(tokenized: Tokenized, positions: np.ndarray, replacements: list[np.ndarray]) -> Tokenized:
    """``tokenized`` with the token at each of ``positions`` (ascending) replaced by its array
    of ids (possibly empty), sentence boundaries kept: the runs between the positions and
    the replacements joined in one pass (a batch holds few unknown words among many)."""
    if not len(positions):
        return tokenized
    ids = tokenized.ids
    cuts = positions.tolist()
    parts: list[np.ndarray] = [ids[: cuts[0]]]
    for replacement, cut, following in zip(replacements, cuts, cuts[1:] + [len(ids)], strict=True):
        parts += (replacement, ids[cut + 1 : following])
    grown = np.zeros(len(positions) + 1, dtype=np.int64)  # ids gained before each position
    np.cumsum(np.array([len(r) for r in replacements], dtype=np.int64) - 1, out=grown[1:])
    offsets = tokenized.offsets + grown[np.searchsorted(positions, tokenized.offsets)]
    return Tokenized(np.concatenate(parts).astype(np.int64, copy=False), offsets)


def forget_words(tokenized: Tokenized, rate: float, seed: int, unknown_id: int) -> Tokenized:
    """``tokenized`` with a random share ``rate`` of its known words set to ``unknown_id``.

    The piece rows of a model whose vocabulary holds every word of its training text would
    never be used in training; the *piece view* of a sentence (the same teacher target, some
    of its words spelt out in pieces) is where they learn to add up to what a word means.
    Seeded: the same texts, rate and seed forget the same words."""
    if rate <= 0 or not len(tokenized.ids):
        return tokenized
    chosen = np.random.default_rng(seed).random(len(tokenized.ids)) < rate
    chosen &= tokenized.ids > unknown_id  # [PAD] and [UNK] stay what they are
    if not chosen.any():
        return tokenized
    ids = tokenized.ids.copy()
    ids[chosen] = unknown_id
    return Tokenized(ids, tokenized.offsets)
