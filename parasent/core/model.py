"""A trained sentence embedding model: tokenizer + encoder weights, saved as a directory.

``config.json`` (what to build), ``model.safetensors`` (weights) and ``tokenizer.json``
(the ``tokenizers`` pipeline and vocabulary; ``config.json``'s ``tokenizer.kind`` says which
featurizer reads it: words, or character n-grams). No pickle anywhere. Models whose encoder
is static (word averaging) or names a numpy forward (the contextual tier,
:mod:`parasent.core.composition`) encode with numpy alone; others build their torch module on
first use.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from parasent.core.encoder_registry import encoder_entry
from parasent.core.inference import (
    average_one,
    average_rows,
    cosine_matrix,
    cosine_rows,
    normalize_rows,
    sums_are_finite,
)
from parasent.core.model_card import CARD_FILE, KEPT_OUT_KEY, domain_tests_kept_out, model_digest, render_card
from parasent.core.model_formats import FORMATS, model_format
from parasent.core.output import as_matrix, check_keywords, finish, is_text, like_inputs
from parasent.core.stored_weights import (
    EMBEDDING_KEY,
    ROWS_SUFFIX,
    held_dtype,
    pack,
    read_weights,
    unpack,
    with_own_rows,
)
from parasent.core.torch_side import TorchEncoder, torch_side
from parasent.errors import ModelFormatError, ParasentError
from parasent.support.parallel_map import encode_threads, ordered_map
from parasent.support.paths import portable_path
from parasent.support.regular_files import exists, regular_size, sha256_of
from parasent.support.staging import staged_directory
from parasent.support.validation import check_device, is_cpu_device
from parasent.support.version import __version__
from parasent.text.featurizers import Featurizer, load_tokenizer
from parasent.text.tokenized import Tokenized
from parasent.text.tokenizer import TOKENIZER_FILE, WordTokenizer

if TYPE_CHECKING:
    from parasent.text.word_vectors import WordVectors

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"
# 2: int8 weights with per-row scales; 3: shared rows (parasent.core.stored_weights); others stay 1
FORMAT_VERSION = 3
TOKENIZER_HASH_KEY = "sha256"  # config.json tokenizer.sha256: the sha256 of tokenizer.json
DEFAULT_BATCH_SIZE = 4096  # sentences per batch; for an averaging model it bounds memory only
SHIPPED_DIR = Path(__file__).resolve().parents[1] / "models"  # models inside the package, by name
DEFAULT_NAME = "default"


@dataclass(frozen=True)
class Coverage:
    """How much of a text a model knows (:meth:`SentenceModel.coverage`), in words of its
    word pipeline (tokens of other featurizers)."""

    words: int
    known: int  # in the vocabulary (with a row of their own or a shared one)
    by_pieces: int = 0  # outside it, encoded from their subword pieces

    @property
    def unknown(self) -> int:
        """Words that contribute nothing (no row, no known piece) or the shared [UNK] row."""
        return self.words - self.known - self.by_pieces

    @property
    def share(self) -> float:
        """The share of words in the vocabulary (1.0 for a text without words)."""
        return self.known / self.words if self.words else 1.0


class SentenceModel:
    """Encode sentences into vectors whose cosine measures paraphrastic similarity."""

    def __init__(
        self,
        tokenizer: Featurizer,
        encoder_config: dict[str, Any],
        weights: dict[str, np.ndarray],
        *,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.tokenizer = tokenizer
        self.encoder_config = dict(encoder_config)
        self.weights = weights
        self.metadata = dict(metadata or {})
        self._entry = encoder_entry(self.encoder_config["name"])
        self._torch_encoder: TorchEncoder | None = None
        self._numpy_forward: Callable[[Any], np.ndarray] | None = None  # built on first use
        self._token_limit: int | None = None  # max_seq_length when set: tokens read per sentence
        self._device: Any = None  # set by to(): None encodes on the CPU (numpy for an averaging model)
        self.path: Path | None = None  # the directory it was loaded from, named in errors
        self._check()

    def _check(self) -> None:
        vocab = self.encoder_config.get("vocab_size")
        if vocab != self.tokenizer.vocab_size:
            raise ModelFormatError(
                f"config vocab_size {vocab} does not match the tokenizer's {self.tokenizer.vocab_size} entries"
            )
        table = self.weights.get(EMBEDDING_KEY)
        if table is None:
            raise ModelFormatError(f"weights lack {EMBEDDING_KEY!r}")
        # Booleans, integers and float64 are no writer's table: converting them would load, without
        # a word, a file no parasent wrote (float64 also doubles the memory).
        if np.dtype(table.dtype) not in (np.float32, np.float16):
            raise ModelFormatError(
                f"{EMBEDDING_KEY} is {table.dtype}; an embedding table is float32, float16 or int8"
            )
        expected = (vocab, self.encoder_config.get("embedding_dim"))
        if tuple(table.shape) != expected:
            raise ModelFormatError(f"{EMBEDDING_KEY} has shape {tuple(table.shape)}, config says {expected}")

    # construction -----------------------------------------------------------------------
    @classmethod
    def from_encoder(
        cls, tokenizer: Featurizer, encoder: TorchEncoder, *, metadata: dict[str, Any] | None = None
    ) -> SentenceModel:
        weights = {k: v.detach().float().cpu().numpy().copy() for k, v in encoder.state_dict().items()}
        return cls(tokenizer, encoder.config(), weights, metadata=metadata)

    @classmethod
    def from_vectors(cls, vectors: WordVectors, *, metadata: dict[str, Any] | None = None) -> SentenceModel:
        """Plain averaging of pretrained vectors (the papers' baseline): unknown words are skipped."""
        tokenizer = WordTokenizer.from_vocabulary(vectors.words, unknown="skip")
        table = np.zeros((tokenizer.vocab_size, vectors.dim), dtype=np.float32)
        vocab = tokenizer.tokenizer.get_vocab()
        rows = np.fromiter((vocab[w] for w in vectors.words), dtype=np.int64, count=len(vectors.words))
        table[rows] = vectors.matrix
        config = {"name": "word_averaging", "vocab_size": tokenizer.vocab_size, "embedding_dim": vectors.dim}
        return cls(tokenizer, config, {EMBEDDING_KEY: table}, metadata=metadata)

    def with_rows(
        self,
        ids: np.ndarray,
        rows: np.ndarray,
        *,
        metadata: dict[str, Any] | None = None,
        composition: dict[str, np.ndarray] | None = None,
    ) -> SentenceModel:
        """This averaging model with token ``ids[k]`` reading row ``rows[k]`` (each its own row,
        even where the token shared one), in the precision the model holds: what fine-tuning
        the rows a user's data touches produces (:func:`parasent.core.stored_weights.with_own_rows`).
        A model composing its rows (the contextual tier) takes its new composition weights in
        ``composition`` too."""
        if not (self._entry.static or self._entry.composes_rows):
            raise ModelFormatError(
                f"with_rows: a {self.encoder_config['name']!r} model is not a table of rows"
            )
        table = with_own_rows(self.weights[EMBEDDING_KEY], ids, rows)
        weights = {**self.weights, **(composition or {}), EMBEDDING_KEY: table}
        return type(self)(
            self.tokenizer,
            self.encoder_config,
            weights,
            metadata=self.metadata if metadata is None else metadata,
        )

    # persistence ------------------------------------------------------------------------
    def config(self, dtype: str = "float32") -> dict[str, Any]:
        config = {
            "parasent_version": __version__,
            "format": 2 if dtype == "int8" else 1,  # older readers refuse int8 files by format
            "encoder": self.encoder_config,
            "tokenizer": self.tokenizer.config(),
            "metadata": self.metadata,
        }
        if dtype != "float32":
            config["weights_dtype"] = dtype
        return config

    def save(
        self,
        path: str | Path,
        *,
        dtype: str | None = None,
        extra_files: Callable[[Path], None] | None = None,
        overwrite: bool = False,
    ) -> Path:
        """Write the model directory atomically: a reader never sees a half-written model.

        ``dtype`` is how the weights are stored: None keeps the precision the model holds (an
        int8 model stays int8: its own rows and scales, written as they are, so the copy encodes
        the same bits); ``float32``, ``float16`` (half the size), or ``int8`` with a float32 scale
        per row (a quarter; see :mod:`parasent.core.stored_weights`); :func:`load` reads all three.
        ``extra_files(directory)`` may write more files (a supervised head) into the staging
        directory, so that they appear together with the model or not at all. An existing model
        directory is replaced; any other non-empty directory only with ``overwrite``. The
        weights are written tensor by tensor from memory (or from the file they are mapped
        from), never copied whole first.
        """
        from parasent.support.mmap_weights import save_sorted

        path = Path(path)
        dtype = dtype or held_dtype(self.weights[EMBEDDING_KEY])
        tensors = pack(self.weights, dtype)
        needs = sum(int(t.nbytes) for t in tensors.values())
        with staged_directory(path, model=True, overwrite=overwrite, needs_bytes=needs) as staging:
            self.tokenizer.save(staging)
            config = self.config(dtype)
            if any(name.endswith(ROWS_SUFFIX) for name in tensors):  # older readers refuse by format
                config["format"] = 3
            # ties the tokenizer to these weights: a directory mixing files of two models is detected at load
            config["tokenizer"][TOKENIZER_HASH_KEY] = sha256_of(staging / TOKENIZER_FILE)
            write_vocabulary_index(self.tokenizer, staging, config["tokenizer"][TOKENIZER_HASH_KEY])
            (staging / CONFIG_FILE).write_text(json.dumps(config, indent=2) + "\n")
            save_sorted(tensors, staging / WEIGHTS_FILE, {})
            # a model directory is meant to be shared like any other file (a staged file may be 0600)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(staging / WEIGHTS_FILE, 0o666 & ~umask)
            (staging / CARD_FILE).write_text(render_card(self, dtype=dtype))
            if extra_files is not None:
                extra_files(staging)
        return path

    save_pretrained = save

    def export(
        self,
        path: str | Path,
        format: str = "sentence-transformers",
        *,
        dtype: str | None = None,
        truncate_dim: int | None = None,
        overwrite: bool = False,
        transfer: dict[str, float] | None = None,
    ) -> Path:
        """Write the model in another library's format (static averaging models only):
        ``sentence-transformers`` (``SentenceTransformer(path)`` encodes the same vectors: a
        ``StaticEmbedding`` where one reproduces the model, else parasent's own module, word
        bigrams and int8 included) or ``model2vec`` (``StaticModel.from_pretrained(path)``), at
        ``dtype`` (float32, float16, int8; None keeps the model's where the format holds it) and
        optionally truncated to the first ``truncate_dim`` dimensions. ``transfer``: scores measured
        on the exported vectors, for its card (see :mod:`parasent.core.model_formats.export`). An existing
        model directory is replaced; any other non-empty directory only with ``overwrite``."""
        return model_format(format).write(
            self, path, dtype=dtype, truncate_dim=truncate_dim, overwrite=overwrite, transfer=transfer
        )

    @classmethod
    def load(cls, path: str | Path | None = None) -> SentenceModel:
        """A parasent model directory, a training run directory (its best model), a
        sentence-transformers static-embedding directory, or the name of a model shipped
        inside the package (``None`` or ``"default"``: the compact default model)."""
        given = path
        path = _recovered(resolve_model_path(path))
        if not path.is_dir():
            raise ModelFormatError(f"{path}: not a model directory{_not_shipped(given)}")
        if not exists(path / CONFIG_FILE) and exists(_recovered(path / "model") / CONFIG_FILE):
            path = path / "model"  # a training run directory: its best model
        for converter in FORMATS.values():  # other libraries' directories (parasent.core.model_formats)
            if converter.detect(path):
                return converter.read(path, cls)
        return cls._load_parasent(path)

    @classmethod
    def _load_parasent(cls, path: Path) -> SentenceModel:
        """A parasent model directory; everything is checked before anything large is allocated."""
        from parasent.core import model_checks

        config_path = path / CONFIG_FILE
        if not exists(config_path):
            raise ModelFormatError(
                f"{config_path}: missing (a model directory needs {CONFIG_FILE}, {WEIGHTS_FILE}, tokenizer.json)"
            )
        config = model_checks.read_json(config_path, what="a parasent model config")
        model_checks.check_config_types(config_path, config)
        encoder_config, tokenizer_config = config["encoder"], config["tokenizer"]
        if config.get("format", 0) > FORMAT_VERSION:
            raise ModelFormatError(
                f"{config_path}: format {config['format']} is newer than this parasent reads ({FORMAT_VERSION})"
            )
        try:
            entry = encoder_entry(encoder_config["name"])
        except KeyError as exc:
            raise ModelFormatError(f"{config_path}: {exc.args[0]}") from None
        weights_path = path / WEIGHTS_FILE
        weights = _read_model_weights(weights_path, config, entry.numpy_inference)
        model_checks.check_finite(weights_path, weights)
        if entry.numpy_forward:
            model_checks.check_declared_shapes(config_path, entry, encoder_config, weights)
        elif not entry.static:
            model_checks.check_against_weights(config_path, encoder_config, weights)
        tokenizer_path = path / TOKENIZER_FILE
        model_checks.check_tokenizer_size(tokenizer_path, encoder_config["vocab_size"])
        expected_hash = tokenizer_config.get(TOKENIZER_HASH_KEY)
        actual_hash = sha256_of(tokenizer_path) if tokenizer_path.is_file() else None
        if isinstance(expected_hash, str) and actual_hash is not None:
            if actual_hash != expected_hash:
                raise ModelFormatError(
                    f"{tokenizer_path}: not the tokenizer these weights were saved with (its sha256 "
                    f"differs from {CONFIG_FILE}'s tokenizer.{TOKENIZER_HASH_KEY}): the directory mixes "
                    "files of different models"
                )
        try:
            tokenizer = load_tokenizer(path, tokenizer_config, tokenizer_sha256=actual_hash)
        except (ModelFormatError, ValueError, TypeError) as exc:  # the file's own errors name the file
            if str(exc).startswith(str(path)):  # named in full already (tokenizer.json missing)
                raise ModelFormatError(str(exc)) from None
            where = f"{path}/" if str(exc).startswith(TOKENIZER_FILE) else f"{config_path}: "
            raise ModelFormatError(f"{where}{exc}") from None
        try:
            model = cls(tokenizer, encoder_config, weights, metadata=config.get("metadata"))
        except ModelFormatError as exc:
            raise ModelFormatError(f"{path}: inconsistent model files: {exc}") from None
        model.path = path
        _say_if_unfinished(model.metadata, path)
        return model

    from_pretrained = load

    # inference --------------------------------------------------------------------------
    @property
    def dim(self) -> int:
        if self._entry.numpy_inference:  # the sentence vector has the rows' width
            return int(self.weights[EMBEDDING_KEY].shape[1])
        return self.torch_encoder().output_dim

    def torch_encoder(self, device: Any = None) -> TorchEncoder:
        """The torch module (built once from the weights); needed for training and non-static encoders."""
        if self._torch_encoder is None:
            import torch

            encoder = torch_side().build(self.encoder_config)
            encoder.load_state_dict(
                {k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in self.weights.items()}
            )
            self._torch_encoder = encoder
        if device is not None:
            self._torch_encoder.to(device)
        return self._torch_encoder

    @property
    def device(self) -> str:
        """Where the model encodes (sentence-transformers' attribute): ``"cpu"`` for an
        averaging model, which encodes with numpy, unless :meth:`to` moved it to another device."""
        return "cpu" if self._device is None else str(self._device)

    def to(self, device: Any) -> SentenceModel:
        """Encode on ``device`` from now on (sentence-transformers' habit), returning the model:
        ``"cpu"`` keeps an averaging model on numpy, the vectors torch would give there, without
        importing torch; another device (``"cuda"``) runs the torch module there and needs torch."""
        self._device = None if is_cpu_device(device) else self._checked_device(device)
        if self._device is None and self._torch_encoder is not None:
            self._torch_encoder.to("cpu")
        return self

    def _uses_numpy(self, device: Any) -> bool:
        """Whether an encode with ``device`` (None: the model's own) takes the numpy path: an
        averaging model on the CPU. torch on the CPU gives the same vectors, slower."""
        return self._entry.numpy_inference and is_cpu_device(self._device if device is None else device)

    def _torch_device(self, device: Any) -> Any:
        """The device torch encodes on: ``device``, else the model's own (None: torch's default)."""
        target = self._device if device is None else device
        return target if is_cpu_device(target) else self._checked_device(target)

    def _checked_device(self, device: Any) -> Any:
        """``device`` for torch; without torch, the one-line error naming the extra."""
        try:
            import torch  # noqa: F401
        except ImportError:
            from parasent.errors import MissingDependencyError

            raise MissingDependencyError(
                f"device={str(device)!r} runs the model through torch, which the core install lacks: install "
                "parasent[train] (device='cpu' or None encodes an averaging model with numpy)"
            ) from None
        check_device(str(device), option="device")
        return device

    def iter_encode(
        self,
        sentences: Iterable[str],
        batch_size: int = DEFAULT_BATCH_SIZE,
        normalize: bool = False,
        device: Any = None,
    ) -> Iterator[np.ndarray]:
        """Encode in chunks of ``batch_size``, reading ``sentences`` (any iterable: a list, a
        file, a generator) one chunk at a time: memory is bounded by the chunk, not the corpus.

        Averaging models encode with numpy, batches on threads in order (their array steps
        release the GIL; :func:`parasent.support.parallel_map.encode_threads` says how many, set by
        ``PARASENT_NUM_THREADS``), so up to that many chunks are read ahead; a list is encoded
        several small batches at a time (:meth:`_chunks`), each yielded as its own array.
        ``device`` (``"cuda"``) runs the torch module on that device instead; ``"cpu"`` and None
        keep numpy (non-static encoders always use torch, one chunk at a time).
        """
        _check_batch_size(batch_size)
        for vectors in self._chunks(sentences, batch_size, device):
            if normalize:
                vectors = normalize_rows(vectors)
            if len(vectors) <= batch_size:
                yield vectors
            else:
                yield from (
                    vectors[first : first + batch_size] for first in range(0, len(vectors), batch_size)
                )

    def _chunks(self, sentences: Iterable[str], batch_size: int, device: Any) -> Iterator[np.ndarray]:
        """The vectors of ``sentences`` a chunk at a time, in order. For an averaging model the
        batch size only bounds memory, so a list (already in memory) is read in chunks of whole
        batches up to :data:`DEFAULT_BATCH_SIZE` sentences: ``batch_size=1`` or ``32`` then costs
        what the default does, not a batch's fixed cost per sentence (the vectors are the same
        bits in any batch). A stream keeps its batches: each is encoded as it arrives."""
        numpy_path = self._uses_numpy(device)
        size = batch_size
        if numpy_path and isinstance(sentences, (list, tuple)) and batch_size < DEFAULT_BATCH_SIZE:
            size = DEFAULT_BATCH_SIZE // batch_size * batch_size
        if numpy_path:
            encode_one: Callable[[list[str]], np.ndarray] = self._average
        else:
            encode_one = functools.partial(self._encode_torch, device=self._torch_device(device))
        iterator = iter(sentences)
        batches = iter(lambda: list(itertools.islice(iterator, size)), [])
        yield from ordered_map(encode_one, batches, encode_threads() if numpy_path else 1)

    def _average(self, texts: list[str]) -> np.ndarray:
        """One batch through the numpy path (thread-safe: read-only weights and tokenizer)."""
        return self._checked(self._numpy_vectors(self._tokenize(texts)))

    def _numpy_vectors(self, tokenized: Any) -> np.ndarray:
        """The vectors of a tokenized batch without torch: the average of the rows, or the
        encoder's numpy forward (:mod:`parasent.core.composition`)."""
        if self._entry.static:
            return average_rows(tokenized, self.weights[EMBEDDING_KEY])
        if self._numpy_forward is None:
            build = getattr(self._entry.forward_module(), self._entry.numpy_forward.partition(":")[2])
            self._numpy_forward = build(self.weights, self.encoder_config)
        return self._numpy_forward(tokenized)

    def _encode_torch(self, texts: list[str], device: Any) -> np.ndarray:
        encoded = torch_side().encode(self.torch_encoder(device), self._tokenize(texts), device)
        return self._checked(encoded)

    def _checked(self, vectors: np.ndarray) -> np.ndarray:
        if not np.isfinite(vectors).all():  # finite weights can still overflow (3e38 + 3e38)
            raise ModelFormatError(
                f"{self._where()}: non-finite vectors (weights too large to average); the model is unusable"
            )
        return vectors

    @property
    def normalizes(self) -> bool:
        """Whether the model's own output is unit-length (a ``Normalize`` module of an imported
        sentence-transformers model, model2vec's ``normalize: true``)."""
        return bool(self.metadata.get("normalize", False))

    def _where(self) -> str:
        return str(self.path) if self.path is not None else repr(self)

    def _tokenize(self, texts: list[str]) -> Any:
        """Token ids of ``texts``, checked against the embedding table: a tokenizer that is not
        the weights' (an id past the last row) is an error naming the model, not an IndexError."""
        try:
            chunk = self.tokenizer.encode_batch(texts)
        except ModelFormatError as exc:
            raise ModelFormatError(f"{self._where()}/{exc}") from None
        rows = self.encoder_config["vocab_size"]
        if len(chunk.ids) and (int(chunk.ids.max()) >= rows or int(chunk.ids.min()) < 0):
            raise ModelFormatError(
                f"{self._where()}: the tokenizer gives token ids outside the {rows} embedding rows "
                "(its tokenizer.json does not belong to these weights)"
            )
        return chunk if self._token_limit is None else chunk.head(self._token_limit)

    def tokenize(self, texts: str | Sequence[str]) -> dict[str, np.ndarray]:
        """The token ids the model reads (sentence-transformers' ``tokenize`` of a
        ``StaticEmbedding``): ``input_ids``, every text's ids in one flat int64 array, and
        ``offsets``, where each text's ids start. A text's tokens are its words (or their
        subword pieces), then its listed bigrams; ``tokenizer.tokens(text)`` names them."""
        chunk = self._tokenize([texts] if isinstance(texts, str) else list(texts))
        return {"input_ids": chunk.ids, "offsets": chunk.offsets[:-1].copy()}

    def encode(
        self,
        sentences: str | Sequence[str],
        batch_size: int = DEFAULT_BATCH_SIZE,
        normalize_embeddings: bool = False,
        convert_to_numpy: bool = True,
        convert_to_tensor: bool = False,
        show_progress_bar: bool | None = None,
        precision: str = "float32",
        truncate_dim: int | None = None,
        device: Any = None,
        normalize: bool | None = None,
        **kwargs: Any,
    ) -> Any:
        """``(len(sentences), dim)`` float32; a single string gives a 1-D vector.

        The keywords are sentence-transformers' (see :func:`parasent.core.output.finish`), so code
        written for it runs unchanged; ``normalize`` is the older name of ``normalize_embeddings``;
        ``convert_to_tensor=True`` needs torch (``parasent[train]``). An unknown keyword is a
        ``TypeError``, as in sentence-transformers (a misspelt option is never silently ignored).

        Accepted and ignored on purpose, because they do not change an averaged sentence vector
        or concern other libraries' models: ``prompt_name``, ``prompt``, ``prompt_type``,
        ``task``, ``task_type``, ``task_metadata``, ``hf_split``, ``hf_subset``, ``pool``,
        ``chunk_size``, ``max_length``, ``max_seq_length``, ``num_workers``, ``instruction``,
        and ``output_value`` when it is ``"sentence_embedding"`` or None (token embeddings are
        refused).
        """
        if kwargs:
            check_keywords(kwargs, ENCODE_KEYWORDS)
        _check_batch_size(batch_size)
        single = isinstance(sentences, str)
        items = [sentences] if single else list(sentences)
        matrix = self._one_text(items[0]) if len(items) == 1 and self._uses_numpy(device) else None
        if matrix is None:
            matrix = self._encode_all(items, batch_size, device, show_progress_bar)
        out = finish(
            matrix,
            normalize=bool(normalize_embeddings or normalize or self.normalizes),
            truncate_dim=truncate_dim,
            precision=precision,
            convert_to_numpy=convert_to_numpy,
            convert_to_tensor=convert_to_tensor,
        )
        return out[0] if single else out

    def _encode_all(
        self, items: list[Any], batch_size: int, device: Any, show_progress_bar: bool | None
    ) -> np.ndarray:
        chunks = self._chunks(items, batch_size, device)
        if show_progress_bar:  # on a terminal only (tqdm's disable=None): a pipe or log gets no bar lines
            from tqdm.auto import tqdm

            parts = []
            with tqdm(total=len(items), desc="encode", unit="sentence", disable=None) as bar:
                for part in chunks:
                    parts.append(part)
                    bar.update(len(part))
        else:
            parts = list(chunks)
        if len(parts) == 1:  # one chunk: its own new array, not a copy of it
            return parts[0]
        return np.concatenate(parts) if parts else np.zeros((0, self.dim), dtype=np.float32)

    def _one_text(self, text: Any) -> np.ndarray | None:
        """The (1, dim) vector of one text of an averaging model through the featurizer's
        ``encode_one`` (:mod:`parasent.text.one_text`): the same ids and the same sums as a batch
        of one, without its array steps. None where it does not apply (the batch path then runs)."""
        ids = self._one_text_ids(text)
        return None if ids is None else self._average_one(ids)

    def _average_one(self, ids: np.ndarray) -> np.ndarray:
        if not self._entry.static:  # a composing model: its forward on the one sentence
            one = Tokenized(np.asarray(ids, dtype=np.int64), np.array([0, len(ids)], dtype=np.int64))
            return self._checked(self._numpy_vectors(one))
        table = self.weights[EMBEDDING_KEY]
        vector = average_one(ids, table)
        return vector if sums_are_finite(table, len(ids)) else self._checked(vector)

    def _one_text_ids(self, text: Any) -> np.ndarray | None:
        """The ids of one text through ``encode_one``, which gives ids of its own vocabulary
        only (this table's rows, as :meth:`_check` found the sizes equal), or None."""
        encode_one = getattr(self.tokenizer, "encode_one", None)
        if encode_one is None or not self._entry.numpy_inference or not isinstance(text, str):
            return None
        ids = encode_one(text)
        return ids if ids is None or self._token_limit is None else ids[: self._token_limit]

    def encode_with_counts(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(vectors, counts)``: the float32 vectors :meth:`encode` gives ``texts`` and each
        text's number of units (words, bigrams, pieces), tokenizing once: what the service
        reports as usage. One text of an averaging model takes the one-text path."""
        ids = self._one_text_ids(texts[0]) if len(texts) == 1 else None
        if ids is not None:
            return self._average_one(ids), np.array([len(ids)])
        tokenized = self._tokenize(texts)
        if self._entry.numpy_inference:
            vectors = self._checked(self._numpy_vectors(tokenized))
        else:
            vectors = self.encode(texts, batch_size=max(len(texts), 1))
        return vectors, np.asarray(tokenized.lengths)

    def encode_query(self, sentences: str | Sequence[str], **kwargs: Any) -> Any:
        """:meth:`encode` (sentence-transformers' name for the query side of retrieval): a
        paraphrastic model has one encoder for queries and documents alike, and no prompts."""
        return self.encode(sentences, **kwargs)

    def encode_document(self, sentences: str | Sequence[str], **kwargs: Any) -> Any:
        """:meth:`encode`, for the document side (the same encoder; see :meth:`encode_query`)."""
        return self.encode(sentences, **kwargs)

    def get_sentence_embedding_dimension(self) -> int:
        """The width of a sentence vector (sentence-transformers' name for :attr:`dim`)."""
        return self.dim

    get_embedding_dimension = get_sentence_embedding_dimension

    #: sentence-transformers' name of the score :meth:`similarity` computes
    similarity_fn_name = "cosine"

    @property
    def max_seq_length(self) -> int | None:
        """Tokens read per sentence: the limit set on this model, else None for an averaging
        model, which reads every token, and the encoder's limit otherwise, when its
        configuration has one."""
        if self._token_limit is not None:
            return self._token_limit
        if self._entry.static:
            return None
        limit = self.encoder_config.get("max_length") or self.encoder_config.get("max_seq_length")
        return int(limit) if isinstance(limit, int) else None

    @max_seq_length.setter
    def max_seq_length(self, limit: int | None) -> None:
        """Read at most ``limit`` tokens of each sentence (its first ones; None: all), as
        sentence-transformers truncates longer inputs. Not saved with the model."""
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0):
            raise ValueError(f"max_seq_length must be a positive number of tokens or None, got {limit!r}")
        self._token_limit = limit

    def _vectors(self, items: Any) -> np.ndarray:
        return (
            self.encode(list([items] if isinstance(items, str) else items))
            if is_text(items)
            else as_matrix(items, finite=True)
        )

    def similarity(self, a: Any, b: Any) -> Any:
        """The (len(a), len(b)) cosine matrix (sentence-transformers' meaning) of sentences or
        vectors; 0 where a sentence has no known word, never NaN. A torch tensor given, a
        torch tensor back (as sentence-transformers answers); numpy otherwise."""
        return like_inputs(cosine_matrix(self._vectors(a), self._vectors(b)), a, b)

    def similarity_pairwise(self, a: Any, b: Any) -> Any:
        """Cosine of a[i] and b[i] (sentences or vectors); two strings give one float, torch
        tensors a tensor."""
        single = isinstance(a, str) and isinstance(b, str)
        left, right = self._vectors(a), self._vectors(b)
        if len(left) != len(right):
            raise ValueError(
                f"similarity_pairwise needs as many items on each side, got {len(left)} and {len(right)}"
            )
        scores = cosine_rows(left, right)
        return float(scores[0]) if single else like_inputs(scores.astype(np.float32), a, b)

    def search(
        self, queries: Any, corpus: Any, top_k: int = 10, *, batch_size: int = DEFAULT_BATCH_SIZE
    ) -> list[dict[str, Any]] | list[list[dict[str, Any]]]:
        """Cosine top-k of each query in ``corpus`` (sentences, read and encoded one batch at a
        time, or vectors): per query ``[{"corpus_id", "score"}, ...]`` best first; a single
        query string gives its list alone. Memory is bounded by a batch, not by the corpus."""
        from parasent.core.semantic_search import TopK, chunks_of

        top = TopK(self._vectors(queries), top_k)
        corpus = [corpus] if isinstance(corpus, str) else corpus
        if is_text(corpus) or not hasattr(corpus, "__len__"):
            chunks = self.iter_encode(corpus, batch_size=batch_size)
        else:
            chunks = chunks_of(as_matrix(corpus), batch_size)
        for chunk in chunks:
            top.add(chunk)
        hits = top.hits()
        return hits[0] if isinstance(queries, str) else hits

    def oov_rate(self, sentences: Sequence[str]) -> float:
        unknown, total = self.tokenizer.oov_counts(sentences)
        return unknown / total if total else 0.0

    def coverage(self, sentences: str | Sequence[str]) -> Coverage:
        """How much of ``sentences`` this model knows: its words in the vocabulary, those
        encoded from subword pieces, and those it cannot encode at all. A low ``share`` says
        the text is outside what the model was built for (its ``languages``)."""
        texts = [sentences] if isinstance(sentences, str) else list(sentences)
        counts = getattr(self.tokenizer, "coverage_counts", None)
        if counts is not None:
            return Coverage(*counts(texts))
        unknown, total = self.tokenizer.oov_counts(texts)
        return Coverage(total, total - unknown, 0)

    @property
    def languages(self) -> list[str]:
        """The languages the model was built for (ISO 639-1 codes; empty when not recorded)."""
        languages = self.metadata.get("languages", [])
        return [str(code) for code in languages] if isinstance(languages, list) else []

    def __repr__(self) -> str:
        return f"SentenceModel(encoder={self.encoder_config['name']!r}, vocab={self.tokenizer.vocab_size})"


# encode's own keywords (offered as corrections of a misspelt one)
ENCODE_KEYWORDS = (
    "batch_size",
    "normalize_embeddings",
    "convert_to_numpy",
    "convert_to_tensor",
    "show_progress_bar",
    "precision",
    "truncate_dim",
    "device",
    "normalize",
)


def _check_batch_size(batch_size: Any) -> None:
    """A batch is a positive whole number of sentences (0 divided by zero; -3 was taken as 1)."""
    from parasent.support.validation import check_number

    check_number("batch_size", int(batch_size) if isinstance(batch_size, np.integer) else batch_size, "count")


def write_vocabulary_index(tokenizer: Featurizer, directory: Path, tokenizer_sha256: str) -> None:
    """Write the stored vocabulary (:mod:`parasent.text.vocabulary_index`) of a word featurizer
    beside its ``tokenizer.json`` (whose sha256 is given): loading then parses no JSON vocabulary."""
    vocabulary_index = getattr(tokenizer, "vocabulary_index", None)
    index = vocabulary_index(tokenizer_sha256) if vocabulary_index is not None else None
    if index is not None:
        index.save(directory)


def _read_model_weights(path: Path, config: dict[str, Any], static: bool) -> dict[str, Any]:
    """The weights stored as ``config["weights_dtype"]`` (float32, float16, int8 rows); the int8
    table of a model encoded with numpy stays int8, dequantized row by row when gathered."""
    if not exists(path):
        raise ModelFormatError(f"{path}: missing")
    regular_size(path)  # a FIFO or a device is never opened
    try:
        keep = frozenset([EMBEDDING_KEY]) if static else frozenset()
        return unpack(read_weights(path), config.get("weights_dtype", "float32"), keep=keep)
    except ModelFormatError as exc:
        if str(exc).startswith(f"{path}: "):  # the reader named the file already
            raise
        raise ModelFormatError(f"{path}: {exc}") from None


def _recovered(path: Path) -> Path:
    """``path``, restored first if a save was killed between its two renames (see :mod:`parasent.support.staging`)."""
    from parasent.support.staging import recover_directory

    try:
        recover_directory(path)
    except OSError:
        pass  # a read-only location: load what is there
    return path


# Names a user may expect to load that no model inside the package has, and where such a model comes from.
UNSHIPPED = {
    "contextual": "the contextual tier is trained on your pairs: parasent train --init-model default "
    "--encoder contextual --pairs FILE --out RUN; a general one, level with the default on the test "
    "sets, is not shipped: parasent train --recipe contextual --out RUN (docs/which-model.md)",
}


def _not_shipped(spec: str | Path | None) -> str:
    """For a bare name that is no directory: the models that ship, and where ``spec`` comes from."""
    name = str(spec)
    if spec is None or "/" in name or os.sep in name:
        return ""
    shipped = sorted(entry.name for entry in SHIPPED_DIR.iterdir() if (entry / CONFIG_FILE).is_file())
    how = f"; {UNSHIPPED[name]}" if name in UNSHIPPED else ""
    return f", and no model of that name ships inside the package (those that do: {', '.join(shipped)}){how}"


def _say_if_unfinished(metadata: dict[str, Any], path: Path) -> None:
    """A warning when the model is an unfinished run's (its best epoch so far), not its result."""
    from parasent.core.model_card import unfinished_note

    note = unfinished_note(metadata or {}, path)
    if note is not None:
        import warnings

        from parasent.errors import ParasentWarning

        warnings.warn(note, ParasentWarning, stacklevel=3)


def resolve_model_path(path: str | Path | None) -> Path:
    """A directory as given; ``None`` means ``"default"``; a bare name of a shipped model (no
    directory of that name exists here) is the model inside the package."""
    name = DEFAULT_NAME if path is None else str(path)
    candidate = Path(name).expanduser()
    if candidate.exists() or "/" in name or os.sep in name:
        return candidate
    if (SHIPPED_DIR / name / CONFIG_FILE).is_file():
        return SHIPPED_DIR / name
    if name == DEFAULT_NAME:
        raise ModelFormatError(
            f"the default model is not installed ({SHIPPED_DIR / name} is missing): reinstall parasent, "
            "or pass a model directory"
        )
    return candidate


def model_record(spec: str | Path | None) -> dict[str, Any]:
    """How a model made from the model ``spec`` names it (``base_model`` of its metadata and
    card): a shipped model by its name, a directory by its path made portable (relative, or its
    name alone: never where it lay here), with the digest of its files where they can be read
    and the domain test splits its training kept out (``evaluate --pairs`` warns on the others)."""
    path = resolve_model_path(spec)
    if not exists(path / CONFIG_FILE) and exists(path / "model" / CONFIG_FILE):
        path = path / "model"  # a training run directory: its best model
    name = path.name if path.parent == SHIPPED_DIR else portable_path(DEFAULT_NAME if spec is None else spec)
    try:
        record: dict[str, Any] = {"name": name, "digest": model_digest(path)}
    except (ParasentError, OSError):  # a folder inside (another library's layout): the name alone
        return {"name": name}
    from parasent.core import model_checks

    try:  # what its training kept out, carried to what continues it (model_card.domain_tests_kept_out)
        metadata = model_checks.read_json(path / CONFIG_FILE, what="a parasent model config").get("metadata")
    except (ParasentError, AttributeError):
        metadata = None
    record[KEPT_OUT_KEY] = domain_tests_kept_out(metadata) if isinstance(metadata, dict) else []
    return record


def encoder_of(model: str) -> str | None:
    """The encoder a model directory (or shipped name) holds, read from its ``config.json``;
    None where it cannot be read (the run's own checks then name the problem)."""
    from parasent.core import model_checks
    from parasent.errors import ParasentError

    path = resolve_model_path(model)
    for config in (path / CONFIG_FILE, path / "model" / CONFIG_FILE):
        try:  # the capped reader: a FIFO or a huge file is refused, never read
            name = model_checks.read_json(config, what="a parasent model config")["encoder"]["name"]
        except (ParasentError, OSError, ValueError, KeyError, TypeError):
            continue
        return name if isinstance(name, str) else None
    return None


def load(path: str | Path | None = None) -> SentenceModel:
    """Load a model directory (or a training run directory, whose best model is ``model/``);
    with no argument, the compact default model shipped inside the package."""
    return SentenceModel.load(path)
