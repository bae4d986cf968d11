"""Word tokenization matching the papers' preprocessing, built on the ``tokenizers`` library.

Text is lowercased (no other normalisation, as in the papers), split on whitespace, and every punctuation or
symbol character becomes its own token (``\\w+|[^\\w\\s]``): "Dominick's" and the
pre-tokenized "dominick 's" both become ``dominick ' s``. Every model carries this
pipeline and its vocabulary as a standard ``tokenizer.json``.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import operator
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np
from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

from parasent.errors import HashCollision, ModelFormatError
from parasent.support.path_names import native_path
from parasent.support.regular_files import copy_regular, exists, regular_size
from parasent.text import ascii_words, unicode_words
from parasent.text.ascii_words import SEPARATOR_BYTE, AsciiWordLookup
from parasent.text.one_text import MAX_CHARACTERS, Memo, ascii_tokens, within
from parasent.text.tokenized import Tokenized
from parasent.text.vocabulary_index import VocabularyIndex
from parasent.text.word_pieces import PieceFallback, forget_words

PAD = "[PAD]"
UNK = "[UNK]"
PAD_ID = 0
UNK_ID = 1
UNKNOWN_POLICIES = ("vector", "skip", "pieces")
TOKENIZER_FILE = "tokenizer.json"
WORD_PATTERN = r"\w+|[^\w\s]"  # a word, or one punctuation or symbol character


def _configure(tokenizer: Tokenizer) -> Tokenizer:
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Split(Regex(WORD_PATTERN), behavior="isolated")]
    )
    return tokenizer


def regex_patterns(tokenizer: Tokenizer) -> list[str]:
    """The regular expressions of a pipeline's normalizer and pre-tokenizer (``Split``,
    ``Replace``): the parts of a ``tokenizer.json`` that run a pattern from the file on the text."""
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("Regex"), str):
                found.append(node["Regex"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for part in (tokenizer.normalizer, tokenizer.pre_tokenizer):
        if part is not None:
            walk(json.loads(part.__getstate__()))
    return found


def check_patterns(tokenizer: Tokenizer, accepted: frozenset[str], kind: str) -> None:
    """Refuse a pipeline with a regular expression its featurizer ``kind`` does not declare.

    The patterns run on every text (oniguruma, a backtracking engine), so one from an untrusted
    file such as ``(a|aa)+$`` takes exponential time on some input; each featurizer declares the
    patterns it writes (its ``PATTERNS``), and a file with any other is refused at load.
    """
    for pattern in regex_patterns(tokenizer):
        if pattern not in accepted:
            known = f"it uses {next(iter(accepted))!r}" if len(accepted) == 1 else f"it knows {len(accepted)}"
            raise ModelFormatError(
                f"{TOKENIZER_FILE}: regular expression {pattern!r:.80} is not one a {kind!r} tokenizer "
                f"uses ({known}); refused, as a pattern from a model file may backtrack without end"
            )


def is_panic(exc: BaseException) -> bool:
    """Whether ``exc`` is a panic of the Rust side of ``tokenizers`` (``pyo3_runtime.PanicException``,
    a ``BaseException``: a regex that exceeds oniguruma's backtracking limit panics)."""
    return type(exc).__name__ == "PanicException"


_SPLITTER = _configure(Tokenizer(models.WordLevel({PAD: PAD_ID, UNK: UNK_ID}, unk_token=UNK)))

# The same pipeline for ASCII text in numpy (parasent.text.ascii_words): on ASCII, lowercasing
# is the Lowercase normalizer, whitespace is the same six characters for WhitespaceSplit, and
# \w is [A-Za-z0-9_]; every non-space character is in a token, so splitting on whitespace
# first changes nothing. It skips building an Encoding (offsets, tokens, masks) per text, which
# is most of the cost of encode_batch, and holds no GIL. Tests check it token for token
# against the tokenizers pipeline.
FAST_PATH_MIN_TEXTS = 256  # smaller batches skip building the hashed vocabulary (no stored index)
# A batch with at most one text in this many outside ASCII splits whole as UTF-8 bytes, those
# texts put back in their places one by one; with more, the ASCII texts are joined apart
MIXED_SHARE = 8
_BUILD_LOCK = threading.Lock()
_LOAD_LOCK = threading.RLock()  # reading a tokenizer.json on first use (see VocabularyTokenizer._tokenizer)
_SEPARATOR = chr(SEPARATOR_BYTE)  # joins texts for one pass: a bound between them


def pre_tokenize(text: str) -> list[str]:
    """The words of ``text`` after normalisation, before any vocabulary lookup."""
    normalized = _SPLITTER.normalizer.normalize_str(text)
    return [word for word, _ in _SPLITTER.pre_tokenizer.pre_tokenize_str(normalized)]


def split_words(texts: list[str]) -> list[list[str]]:
    """:func:`pre_tokenize` of each text, in one pass of the pipeline over the texts joined by
    `` \0 ``: whitespace on both sides makes the NUL a word of its own that no neighbour joins
    (texts that hold a NUL themselves are split one by one)."""
    if len(texts) < 2 or any("\0" in text for text in texts):
        return [pre_tokenize(text) for text in texts]
    split: list[list[str]] = [[]]
    for word in pre_tokenize(" \0 ".join(texts)):
        if word == "\0":
            split.append([])
        else:
            split[-1].append(word)
    return split


def words_at(texts: Sequence[str], which: np.ndarray, ranks: np.ndarray) -> list[str]:
    """Word ``ranks[j]`` of ``texts[which[j]]`` as :func:`pre_tokenize` splits it: ASCII texts
    through :func:`parasent.text.ascii_words.words_at` (the pipeline's split in numpy, only the
    wanted words made strings), other texts through :mod:`parasent.text.unicode_words`, and
    those it does not serve split whole by the pipeline, each once."""
    needed = {i: texts[i].isascii() and _SEPARATOR not in texts[i] for i in dict.fromkeys(which.tolist())}
    fast = [i for i, plain in needed.items() if plain]
    slow = [i for i, plain in needed.items() if not plain]
    out = [""] * len(which)
    if fast:
        _fill(
            out,
            which,
            fast,
            lambda chosen, local: ascii_words.words_at([texts[i] for i in fast], local, ranks[chosen]),
        )
    if slow:
        found = unicode_words.split([texts[i] for i in slow], character_classes())
        served = [slow[k] for k in found.kept.tolist()]
        _fill(out, which, served, lambda chosen, local: unicode_words.words_at(found, local, ranks[chosen]))
        unserved = sorted(set(slow) - set(served))
        split = dict(zip(unserved, split_words([texts[i] for i in unserved]), strict=True))
        for j, (i, k) in enumerate(zip(which.tolist(), ranks.tolist(), strict=True)):
            if i in split:
                out[j] = split[i][k]
    return out


def _fill(
    out: list[str], which: np.ndarray, group: list[int], words: Callable[[np.ndarray, np.ndarray], list[str]]
) -> None:
    """``out[j] = word`` for the wanted words of the texts of ``group``: ``words(chosen, local)``
    gives them from the positions ``chosen`` in ``which`` and their texts' ranks in ``group``."""
    if not group:
        return
    local = np.full(int(which.max()) + 1, -1, dtype=np.int64)
    local[group] = np.arange(len(group))
    chosen = np.flatnonzero(local[which] >= 0)
    for j, word in zip(chosen.tolist(), words(chosen, local[which[chosen]]), strict=True):
        out[j] = word


_Part = tuple[np.ndarray, np.ndarray, np.ndarray]  # texts (ascending), their ids one after another, lengths


def _assembled(count: int, parts: list[_Part]) -> Tokenized:
    """The ``count`` texts' ids from parts that each hold some of them."""
    lengths = np.zeros(count, dtype=np.int64)
    for where, _, part_lengths in parts:
        lengths[where] = part_lengths
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if len(parts) == 1:  # the texts of one part, in order
        return Tokenized(parts[0][1], offsets)
    owner = np.zeros(count, dtype=np.int64)
    for part, (where, _, _) in enumerate(parts):
        owner[where] = part
    ids = np.empty(int(offsets[-1]), dtype=np.int64)
    token_owner = np.repeat(owner, lengths)
    for part, (_, part_ids, _) in enumerate(parts):
        ids[token_owner == part] = part_ids
    return Tokenized(ids, offsets)


@functools.cache
def character_classes() -> unicode_words.CharacterClasses:
    """What parasent's word pipeline does with each character (learnt as texts meet them)."""
    normalizer, pre_tokenizer = _SPLITTER.normalizer, _SPLITTER.pre_tokenizer
    return unicode_words.CharacterClasses(
        normalizer.normalize_str, lambda text: [word for word, _ in pre_tokenizer.pre_tokenize_str(text)]
    )


def read_tokenizer_file(directory: str | Path) -> Tokenizer:
    """The ``tokenizer.json`` of a model directory, with a clear error if missing or broken."""
    path = Path(directory) / TOKENIZER_FILE
    if not exists(path):
        raise ModelFormatError(f"{path}: missing (a model directory needs {TOKENIZER_FILE})")
    regular_size(path)  # a FIFO or a device is never opened
    try:
        return Tokenizer.from_file(native_path(path))
    except Exception as exc:  # the tokenizers library raises plain Exceptions
        raise ModelFormatError(f"{path}: not a valid tokenizer file ({exc})") from exc


def check_texts(texts: Sequence[object]) -> None:
    """Raise a ValueError naming the first text that is not a string of valid Unicode (a lone
    surrogate comes from bytes that were not UTF-8, e.g. a command-line argument)."""
    for number, text in enumerate(texts, start=1):
        if not isinstance(text, str):
            raise ValueError(f"text {number} (index {number - 1}) is not a string but {type(text).__name__}")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(
                f"text {number} (index {number - 1}) is not valid Unicode (a lone surrogate at character {exc.start}: "
                "was it read from bytes that are not UTF-8?)"
            ) from None


def encode_checked(encode, texts: Sequence[str]) -> list:
    """``encode(texts)`` of the ``tokenizers`` library, whose errors on a bad text (a TypeError
    without saying which) become a ValueError naming the text."""
    try:
        return encode(texts, add_special_tokens=False)
    except BaseException as exc:  # the tokenizers library raises plain exceptions, or panics
        if not isinstance(exc, Exception) and not is_panic(exc):
            raise  # KeyboardInterrupt, SystemExit
        check_texts(texts)
        # valid texts: the tokenizer itself is broken (e.g. its unknown token is not in its vocabulary)
        raise ModelFormatError(f"{TOKENIZER_FILE}: cannot encode text ({exc})") from None


class VocabularyTokenizer:
    """What every parasent tokenizer shares: a ``tokenizers`` pipeline with a fixed vocabulary
    (``[PAD]`` 0, ``[UNK]`` 1), saved as the model directory's ``tokenizer.json``."""

    _pipeline: Tokenizer | None = None
    _source: Callable[[], Tokenizer] | None = None  # reads the pipeline when first needed
    _source_file: tuple[Path, str] | None = None  # the tokenizer.json _source reads, and its sha256
    #: The regular expressions this kind's ``tokenizer.json`` may hold (see :func:`check_patterns`).
    PATTERNS: frozenset[str] = frozenset()
    kind: str

    #: The keys of this kind's ``tokenizer`` section in ``config.json``, declared by each kind's
    #: own class (not inherited; undeclared: not checked).
    CONFIG_KEYS: frozenset[str] | None = None

    @property
    def _tokenizer(self) -> Tokenizer:
        """The ``tokenizers`` pipeline; a tokenizer loaded with a stored vocabulary index
        (:mod:`parasent.text.vocabulary_index`) reads its ``tokenizer.json`` only here, when
        first asked (saving, the vocabulary, tokens, an export), never to encode."""
        if self._pipeline is None:
            with _LOAD_LOCK:
                if self._pipeline is None:
                    assert self._source is not None
                    self._pipeline = self._source()
        return self._pipeline

    @_tokenizer.setter
    def _tokenizer(self, tokenizer: Tokenizer) -> None:
        self._pipeline = tokenizer

    def _check_patterns(self) -> None:
        check_patterns(self._tokenizer, type(self).PATTERNS, self.kind)

    def check_kind(self, config: dict) -> None:
        """Refuse a ``tokenizer`` config section that is another kind's (a swapped ``kind``
        reads the same file another way, and changes every similarity without a word): keys
        this kind never writes, or a ``tokenizer.json`` of another kind's shape."""
        keys = type(self).__dict__.get("CONFIG_KEYS")  # a kind's own declaration: a subclass is another kind
        if keys is not None:
            extra = sorted(set(config) - keys - {"sha256"})
            if extra:
                raise ModelFormatError(
                    f"tokenizer.{extra[0]} is no setting of a {self.kind!r} tokenizer (is tokenizer.kind right?)"
                )
        problem = self._shape_problem(config)
        if problem:
            raise ModelFormatError(
                f"{TOKENIZER_FILE} is not a {self.kind!r} tokenizer's ({problem}): tokenizer.kind does not "
                "match the file"
            )

    def _shape_problem(self, config: dict) -> str | None:
        """What in the pipeline or vocabulary shows it belongs to another kind (None: nothing)."""
        return None

    def _last_token_is_bigram(self) -> bool:
        """Word-bigram vocabularies end with their bigrams, ``first▁second``."""
        last = self._tokenizer.id_to_token(self.vocab_size - 1) or ""
        return len(last) > 1 and "\u2581" in last and type(self._tokenizer.model).__name__ == "WordLevel"

    def save(self, directory: str | Path) -> None:
        """Write ``tokenizer.json`` into ``directory``: a pipeline never read (a tokenizer loaded
        with a stored vocabulary) is the file it would be read from, copied as it is when its
        sha256 is still the one loaded (parsing a large vocabulary costs about 100 MB and a
        second); else the pipeline as compact JSON (the pretty form's indentation is a third of
        a large vocabulary's file)."""
        target = Path(directory) / TOKENIZER_FILE
        if self._pipeline is None and self._source_file is not None:
            source, sha256 = self._source_file
            try:
                copied = copy_regular(source, target)
            except OSError:
                copied = None  # unreadable now: the pipeline's own reading names the problem
            if copied == sha256:
                return
            target.unlink(missing_ok=True)
            if copied is not None:
                raise ModelFormatError(
                    f"{source}: changed since the model was loaded (its sha256 is not the one its stored "
                    "vocabulary records); load the model again"
                )
        self._tokenizer.save(native_path(target), pretty=False)

    @property
    def vocab_size(self) -> int:
        return self._tokenizer.get_vocab_size(with_added_tokens=True)

    @property
    def tokenizer(self) -> Tokenizer:
        return self._tokenizer

    def vocabulary(self) -> list[str]:
        """Tokens by id."""
        vocab = self._tokenizer.get_vocab()
        tokens = [""] * len(vocab)
        for token, index in vocab.items():
            tokens[index] = token
        return tokens

    def token_to_id(self, token: str) -> int | None:
        return self._tokenizer.token_to_id(token)


class WordTokenizer(VocabularyTokenizer):
    """Words to ids with a fixed vocabulary: ``[PAD]`` is id 0, ``[UNK]`` id 1, words from 2.

    ``unknown`` says what an out-of-vocabulary word becomes: ``"vector"`` maps it to the
    ``[UNK]`` row (a learned unknown-word vector, as in the papers' models); ``"skip"`` drops
    it (plain averaging of pretrained vectors, where no unknown vector exists); ``"pieces"``
    replaces it by the rows of its subword pieces (:mod:`parasent.text.word_pieces`), and drops
    it when none is known.
    """

    kind = "words"
    PATTERNS = frozenset({WORD_PATTERN})
    CONFIG_KEYS = frozenset({"kind", "unknown", "vocab_size", "pieces"})  # pieces: unknown="pieces"
    # subclasses (pretrained pipelines) set none of these: the fast path never applies to them
    _ids: AsciiWordLookup | None = None
    _index: VocabularyIndex | None = None

    def __init__(self, tokenizer: Tokenizer, *, unknown: str = "vector") -> None:
        if unknown not in UNKNOWN_POLICIES:
            raise ValueError(f"unknown must be one of {UNKNOWN_POLICIES}, got {unknown!r}")
        # token_to_id, not get_vocab(): building the whole dict costs ~0.1 s at 100k words.
        if tokenizer.token_to_id(PAD) != PAD_ID or tokenizer.token_to_id(UNK) != UNK_ID:
            raise ModelFormatError(f"tokenizer must map {PAD} to {PAD_ID} and {UNK} to {UNK_ID}")
        self._tokenizer = tokenizer
        self._check_patterns()
        self._start(unknown)

    def _start(self, unknown: str) -> None:
        self.unknown = unknown
        self._ids = None  # the ASCII fast path's split and lookup
        self._plain: bool | None = None  # whether the pipeline is exactly parasent's
        self._pieces: PieceFallback | None = None  # built at the first unknown word ("pieces")
        self._index = None  # the stored vocabulary, when loaded with one
        self._one_text: Memo | None = None  # token -> (word id, units), for encode_one

    @classmethod
    def from_index(
        cls, index: VocabularyIndex, directory: str | Path, *, unknown: str = "vector"
    ) -> WordTokenizer:
        """The tokenizer of ``directory`` whose vocabulary ``index`` holds (its sha256 checked
        by the caller): encoding uses the index alone, and ``tokenizer.json`` is read only if the
        pipeline itself is asked for. The index is written for parasent's plain word pipeline
        only, so the fast path applies to every batch."""
        if unknown not in UNKNOWN_POLICIES:
            raise ValueError(f"unknown must be one of {UNKNOWN_POLICIES}, got {unknown!r}")
        tokenizer = cls.__new__(cls)
        tokenizer._source = functools.partial(_read_word_pipeline, directory, cls)
        tokenizer._source_file = (Path(directory) / TOKENIZER_FILE, index.tokenizer_sha256)
        tokenizer._start(unknown)
        tokenizer._index = index
        tokenizer._plain = True
        tokenizer._ids = AsciiWordLookup.from_sorted(index.word_hashes, index.word_ids, UNK_ID)
        return tokenizer

    @property
    def vocab_size(self) -> int:
        return self._index.vocab_size if self._index is not None else super().vocab_size

    def vocabulary_index(self, tokenizer_sha256: str) -> VocabularyIndex | None:
        """This vocabulary as a :class:`VocabularyIndex` tied to a ``tokenizer.json`` of that
        sha256; None unless the pipeline is parasent's own (or two words share a hash)."""
        if self._index is not None:
            return dataclasses.replace(self._index, tokenizer_sha256=tokenizer_sha256)
        if not self._plain_pipeline():
            return None
        try:
            return VocabularyIndex.build(self._tokenizer.get_vocab(), tokenizer_sha256)
        except HashCollision:
            return None

    @classmethod
    def from_vocabulary(cls, words: Sequence[str], *, unknown: str = "vector") -> WordTokenizer:
        """Build from words (ids from 2 in the given order); duplicates and specials are ignored."""
        vocab = {PAD: PAD_ID, UNK: UNK_ID}
        for word in words:
            if word not in vocab:
                vocab[word] = len(vocab)
        return cls(_configure(Tokenizer(models.WordLevel(vocab, unk_token=UNK))), unknown=unknown)

    @classmethod
    def load(cls, directory: str | Path, *, unknown: str = "vector") -> WordTokenizer:
        return cls(read_tokenizer_file(directory), unknown=unknown)

    def config(self) -> dict:
        config = {"kind": self.kind, "unknown": self.unknown, "vocab_size": self.vocab_size}
        if self.unknown == "pieces":
            config["pieces"] = self.piece_fallback().size
        return config

    def piece_fallback(self) -> PieceFallback:
        """The pieces of this vocabulary's ``[p]`` tokens (built once, when first needed)."""
        if self._pieces is None:
            with _BUILD_LOCK:
                if self._pieces is None:
                    vocabulary = (
                        self._index.pieces() if self._index is not None else self._tokenizer.get_vocab()
                    )
                    self._pieces = PieceFallback(vocabulary, UNK_ID, words_at)
        return self._pieces

    def _shape_problem(self, config: dict) -> str | None:
        if type(self) is not WordTokenizer:  # a subclass is another kind, with its own shape
            return None
        if self._index is not None:  # written for the word pipeline only
            return "it holds word bigrams" if self._index.last_token_is_bigram else None
        if not regex_patterns(self._tokenizer):
            return "it does not split words"
        return "it holds word bigrams" if self._last_token_is_bigram() else None

    def _encode_all(self, texts: Sequence[str]) -> Tokenized:
        texts = texts if isinstance(texts, list) else list(texts)
        lookup = self._ids  # built (or stored): the fast path for every batch
        if lookup is None and len(texts) >= FAST_PATH_MIN_TEXTS and self._plain_pipeline():
            lookup = self._ascii_lookup()
        if lookup is not None:
            return self._encode_fast(texts, lookup)
        return Tokenized.from_lists(self._pipeline_ids(texts))

    def _pipeline_ids(self, texts: list[str]) -> list[list[int]]:
        """The ids of each text through the ``tokenizers`` pipeline."""
        tokenizer = self._tokenizer
        encode = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)
        return [encoding.ids for encoding in encode_checked(encode, texts)]

    def _word_ids(self, texts: list[str], lookup: AsciiWordLookup, batch: list[str]) -> list[np.ndarray]:
        """The ids of texts off the ASCII fast path, while the pipeline is unread: their words
        from parasent's own split (:func:`pre_tokenize`: the same normalizer and pre-tokenizer),
        each looked up by the hash of its bytes, as WordLevel looks it up by its string."""
        try:
            words = split_words(texts)
        except BaseException as exc:
            if not isinstance(exc, Exception) and not is_panic(exc):
                raise
            check_texts(batch)  # names the bad text
            raise
        ids = lookup.ids_of_words([word for text_words in words for word in text_words])
        bounds = np.cumsum([0] + [len(text_words) for text_words in words]).tolist()
        return [ids[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]

    def _plain_pipeline(self) -> bool:
        """Whether this tokenizer is parasent's word pipeline (the ASCII fast path applies)."""
        if type(self) is not WordTokenizer:  # subclasses bring their own pipelines
            return False
        if self._plain is None:
            mine, reference = json.loads(self._tokenizer.to_str()), json.loads(_SPLITTER.to_str())
            self._plain = (
                not mine.get("added_tokens")
                and mine["model"]["type"] == "WordLevel"
                and mine["model"].get("unk_token") == UNK
                and all(mine.get(k) == reference.get(k) for k in ("normalizer", "pre_tokenizer"))
            )
        return self._plain

    def _ascii_lookup(self) -> AsciiWordLookup | None:
        """The fast path's hashed vocabulary, built once (whole before it is shared: encoding
        threads read it at once); None if two words share a hash, and tokenizers does it all."""
        if self._ids is not None:
            return self._ids
        with _BUILD_LOCK:  # the first batches of a threaded encode arrive together: build once
            if self._ids is None and self._plain:
                try:
                    self._ids = AsciiWordLookup(self._tokenizer.get_vocab(), unknown=UNK_ID)
                except HashCollision:
                    self._plain = False
        return self._ids

    def _encode_fast(self, texts: list[str], lookup: AsciiWordLookup) -> Tokenized:
        """ASCII texts in numpy (see :mod:`parasent.text.ascii_words`), in one pass over the
        texts joined by a separator byte; other texts through the split of any script
        (:mod:`parasent.text.unicode_words`), and those it does not serve (a text holding the
        separator, a character the pipeline treats otherwise) through ``tokenizers``."""
        try:
            whole = _SEPARATOR.join(texts) + _SEPARATOR
        except TypeError:
            check_texts(texts)  # a text that is not a string: named
            raise
        separated = whole.count(_SEPARATOR) == len(texts)  # no text holds the separator
        if separated and whole.isascii():  # the usual case: one check
            return _assembled(len(texts), [(np.arange(len(texts)), *lookup.text_ids(whole.encode("ascii")))])
        is_fast = np.fromiter(map(str.isascii, texts), dtype=bool, count=len(texts))
        if not separated:
            is_fast &= np.array([_SEPARATOR not in text for text in texts], dtype=bool)
        rest = np.flatnonzero(~is_fast)
        if separated and len(rest) <= len(texts) // MIXED_SHARE:
            mixed = self._encode_mixed(whole, rest, lookup, texts)
            if mixed is not None:
                return mixed
        parts = []
        fast = np.flatnonzero(is_fast)
        if len(fast):
            joined = _SEPARATOR.join([texts[i] for i in fast.tolist()]) + _SEPARATOR
            parts.append((fast, *lookup.text_ids(joined.encode("ascii"))))
        others = self._other_ids([texts[i] for i in rest.tolist()], lookup, texts)
        return _assembled(len(texts), [*parts, (rest, others.ids, others.lengths)])

    def _encode_mixed(
        self, whole: str, rest: np.ndarray, lookup: AsciiWordLookup, texts: list[str]
    ) -> Tokenized | None:
        """Mostly ASCII texts, ``texts[rest]`` not, none holding the separator: the UTF-8 bytes
        of the whole batch through the ASCII split (a byte outside ASCII is a token of its own
        there and never a separator, so every text keeps its bounds), then each text outside
        ASCII split again (:meth:`_other_ids`) and put in its place: no second join of the
        ASCII texts. None for a lone surrogate (the other path names the text)."""
        try:
            data = whole.encode("utf-8")
        except UnicodeEncodeError:
            return None
        ids, lengths = lookup.text_ids(data)
        offsets = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        others = self._other_ids([texts[i] for i in rest.tolist()], lookup, texts)
        return Tokenized(ids, offsets).with_sentences(rest, others)

    def _other_ids(self, others: list[str], lookup: AsciiWordLookup, texts: list[str]) -> Tokenized:
        """The ids of ``others`` (texts of the batch ``texts`` off the ASCII path): split in
        numpy where the split of any script serves them, else by the pipeline (or, while it is
        unread, by parasent's own split of it, each word looked up by hash)."""
        found = unicode_words.split(others, character_classes())
        parts: list[_Part] = []
        if len(found.kept):
            ids = lookup.span_ids(found.data, found.byte_starts, found.byte_ends)
            parts.append((found.kept, ids, found.lengths))
        left = np.setdiff1d(np.arange(len(others)), found.kept)
        if len(left):
            unserved = [others[i] for i in left.tolist()]
            if self._pipeline is None:  # not read (a stored index)
                lists = self._word_ids(unserved, lookup, texts)
            else:
                try:
                    lists = [np.asarray(ids, dtype=np.int64) for ids in self._pipeline_ids(unserved)]
                except ValueError:
                    check_texts(texts)  # names the bad text by its place in the batch
                    raise
            lengths = np.array([len(ids) for ids in lists], dtype=np.int64)
            parts.append((left, np.concatenate(lists), lengths))
        return _assembled(len(others), parts)

    def encode_batch(self, texts: Sequence[str]) -> Tokenized:
        """Ids of every text, unknown words kept as ``[UNK]``, dropped or replaced by their
        pieces per the policy."""
        return self._unknown_words(self._encode_all(texts), texts)

    def _unknown_words(
        self, tokenized: Tokenized, texts: Sequence[str], policy: str | None = None
    ) -> Tokenized:
        """What the policy (this tokenizer's, or ``policy``) makes of the ``[UNK]`` ids of
        ``tokenized`` (the ids of ``texts``)."""
        policy = policy or self.unknown
        if policy == "skip":
            return tokenized.without(UNK_ID)
        if policy == "pieces":
            return self.piece_fallback().replace(tokenized, texts)
        return tokenized

    def encode_one(self, text: str) -> np.ndarray | None:
        """The ids :meth:`encode_batch` gives ``[text]``, without its per-batch array steps (see
        :mod:`parasent.text.one_text`); None where that path does not apply, or where an id is
        outside the vocabulary (the batch path names that problem)."""
        if type(self) is not WordTokenizer or self._plain is not True:
            return None  # subclasses (pretrained pipelines) split otherwise
        if self._one_text is None:
            self._one_text = Memo(functools.partial(self.token_entries, policy=self.unknown))
        entries = self.one_text_entries(text, self._one_text)
        if entries is None:
            return None
        return within(
            list(itertools.chain.from_iterable(map(operator.itemgetter(1), entries))), self.vocab_size
        )

    def one_text_entries(self, text: str, memo: Memo) -> list[tuple[int, tuple[int, ...]]] | None:
        """(word id, units) of each token of ``text`` through ``memo`` (filled by
        :meth:`token_entries`), or None: only parasent's own word pipeline (known to be, as a
        stored vocabulary or a built fast path says) splits as :func:`ascii_tokens` and
        :func:`parasent.text.unicode_words.tokens` do."""
        if type(self) is not WordTokenizer or self._plain is not True:
            return None
        tokens = ascii_tokens(text)
        if tokens is None and len(text) <= MAX_CHARACTERS and not text.isascii():
            tokens = unicode_words.tokens(text, character_classes())
        return None if tokens is None else memo.lookup(tokens)

    def token_entries(self, tokens: list[str], policy: str) -> list[tuple[int, tuple[int, ...]]] | None:
        """Each token's word id (``[UNK]`` kept) and its units under ``policy``: the ids the batch
        path gives these tokens (lowercased, one token each, as :func:`ascii_tokens` and
        :func:`parasent.text.unicode_words.tokens` give them), looked up by the hash of their
        bytes as the batch path looks them up, and an unknown word's pieces from its own string,
        as the batch path's piece fallback reads it back from the text. While the vocabulary is
        not hashed yet, every token is encoded by the batch path as a text of its own."""
        lookup = self._ids
        if lookup is None:
            return self._batch_entries(tokens, policy)
        ids = lookup.ids_of_tokens(tokens)
        units: list[tuple[int, ...]] = [(word,) for word in ids]
        unknown = [i for i, word in enumerate(ids) if word == UNK_ID]
        if unknown and policy == "skip":
            for i in unknown:
                units[i] = ()
        elif unknown and policy == "pieces":
            pieces = self.piece_fallback().pieces_of([tokens[i] for i in unknown])
            for i, found in zip(unknown, pieces, strict=True):
                units[i] = tuple(found.tolist())
        return list(zip(ids, units, strict=True))

    def _batch_entries(self, tokens: list[str], policy: str) -> list[tuple[int, tuple[int, ...]]] | None:
        """:meth:`token_entries` through the batch path, each token a text of its own."""
        words = self._encode_all(tokens)
        if len(words.ids) != len(tokens) or not (words.lengths == 1).all():
            return None  # a token the pipeline splits further: not one of ascii_tokens' tokens
        units = self._unknown_words(words, tokens, policy)
        offsets, ids = units.offsets.tolist(), units.ids.tolist()
        return [(word, tuple(ids[offsets[i] : offsets[i + 1]])) for i, word in enumerate(words.ids.tolist())]

    def encode_batch_forgetting(self, texts: Sequence[str], rate: float, seed: int) -> Tokenized:
        """As :meth:`encode_batch`, with a random share ``rate`` of the words treated as
        unknown (the *piece view* that trains the piece rows; see
        :func:`parasent.text.word_pieces.forget_words`)."""
        texts = list(texts)
        return self._unknown_words(forget_words(self._encode_all(texts), rate, seed, UNK_ID), texts)

    def tokens(self, text: str) -> list[str]:
        return self._tokenizer.encode(text, add_special_tokens=False).tokens

    def oov_counts(self, texts: Iterable[str]) -> tuple[int, int]:
        """(unknown tokens, all tokens) over ``texts``."""
        tokenized = self._encode_all(list(texts))
        return int(np.count_nonzero(tokenized.ids == UNK_ID)), len(tokenized.ids)

    def coverage_counts(self, texts: Iterable[str]) -> tuple[int, int, int]:
        """(words, words in the vocabulary, unknown words with a known piece) over ``texts``."""
        texts = list(texts)
        tokenized = self._encode_all(texts)
        known = int(np.count_nonzero(tokenized.ids != UNK_ID))
        pieces = self.piece_fallback().known_by_pieces(tokenized, texts) if self.unknown == "pieces" else 0
        return len(tokenized.ids), known, pieces


def _read_word_pipeline(directory: str | Path, kind: type[VocabularyTokenizer]) -> Tokenizer:
    """The ``tokenizer.json`` of ``directory``, checked as a word tokenizer's is at load."""
    tokenizer = read_tokenizer_file(directory)
    if tokenizer.token_to_id(PAD) != PAD_ID or tokenizer.token_to_id(UNK) != UNK_ID:
        raise ModelFormatError(f"tokenizer must map {PAD} to {PAD_ID} and {UNK} to {UNK_ID}")
    check_patterns(tokenizer, kind.PATTERNS, kind.kind)
    return tokenizer
