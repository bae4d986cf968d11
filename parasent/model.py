"""A trained sentence embedding model: tokenizer + encoder weights, saved as a directory.

``config.json`` (what to build), ``model.safetensors`` (weights) and ``tokenizer.json``
(the ``tokenizers`` pipeline and vocabulary; ``config.json``'s ``tokenizer.kind`` says which
featurizer reads it: words, or character n-grams). No pickle anywhere. Models whose encoder
is static (word averaging) encode with numpy alone; others build their torch module on
first use.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from parasent import __version__
from parasent.encoders import encoder_entry
from parasent.errors import ModelFormatError
from parasent.inference import average_rows, cosine_rows, normalize_rows
from parasent.quantization import pack, unpack
from parasent.staging import staged_directory
from parasent.text.featurizers import Featurizer, load_tokenizer
from parasent.text.tokenizer import WordTokenizer

if TYPE_CHECKING:
    from parasent.data.vectors import WordVectors
    from parasent.encoders.base import Encoder

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"
FORMAT_VERSION = 2  # 2: int8 weights with per-row scales (float32 and float16 files stay format 1)
EMBEDDING_KEY = "embedding.weight"
SHIPPED_DIR = Path(__file__).resolve().parent / "models"  # models inside the package, by name
DEFAULT_NAME = "default"

#: Other libraries' model directories, name -> the module that converts them. Such a module
#: provides ``detect(path) -> bool``, ``read(path) -> SentenceModel`` and
#: ``write(model, path) -> Path``; it imports this module, never the reverse, so it is
#: imported by name only when its format is needed (a loader registry, like the CLI's commands).
FORMATS: dict[str, str] = {"sentence-transformers": "parasent.interop.sentence_transformers"}


def model_format(name: str) -> Any:
    """The converter module of a registered directory format."""
    import importlib

    if name not in FORMATS:
        raise ValueError(f"unknown model format {name!r} (known: {', '.join(FORMATS)})")
    return importlib.import_module(FORMATS[name])


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
        self._torch_encoder: Encoder | None = None
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
        expected = (vocab, self.encoder_config.get("embedding_dim"))
        if tuple(table.shape) != expected:
            raise ModelFormatError(f"{EMBEDDING_KEY} has shape {tuple(table.shape)}, config says {expected}")

    # construction -----------------------------------------------------------------------
    @classmethod
    def from_encoder(
        cls, tokenizer: Featurizer, encoder: Encoder, *, metadata: dict[str, Any] | None = None
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
        dtype: str = "float32",
        extra_files: Callable[[Path], None] | None = None,
    ) -> Path:
        """Write the model directory atomically: a reader never sees a half-written model.

        ``dtype`` is how the weights are stored: ``float32``, ``float16`` (half the size), or
        ``int8`` with a float32 scale per row (a quarter; see :mod:`parasent.quantization`);
        :func:`load` reads all three. ``extra_files(directory)`` may write more files (a
        supervised head) into the staging directory, so that they appear together with the
        model or not at all.
        """
        from safetensors.numpy import save_file

        path = Path(path)
        tensors = pack(self.weights, dtype)
        with staged_directory(path) as staging:
            (staging / CONFIG_FILE).write_text(json.dumps(self.config(dtype), indent=2) + "\n")
            save_file(tensors, str(staging / WEIGHTS_FILE))
            # safetensors creates files as 0600; a model directory is meant to be shared like any other file.
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(staging / WEIGHTS_FILE, 0o666 & ~umask)
            self.tokenizer.save(staging)
            if extra_files is not None:
                extra_files(staging)
        return path

    save_pretrained = save

    def export(self, path: str | Path, format: str = "sentence-transformers") -> Path:
        """Write the model in another library's format: ``sentence-transformers`` (static averaging
        models only; ``SentenceTransformer(path)`` then encodes the same vectors)."""
        return model_format(format).write(self, path)

    @classmethod
    def load(cls, path: str | Path | None = None) -> SentenceModel:
        """A parasent model directory, a training run directory (its best model), a
        sentence-transformers static-embedding directory, or the name of a model shipped
        inside the package (``None`` or ``"default"``: the compact default model)."""
        path = resolve_model_path(path)
        if not path.is_dir():
            raise ModelFormatError(f"{path}: not a model directory")
        if not (path / CONFIG_FILE).is_file() and (path / "model" / CONFIG_FILE).is_file():
            path = path / "model"  # a training run directory: its best model
        for name in FORMATS:
            converter = model_format(name)
            if converter.detect(path):
                return converter.read(path)
        config_path = path / CONFIG_FILE
        if not config_path.is_file():
            raise ModelFormatError(
                f"{config_path}: missing (a model directory needs {CONFIG_FILE}, {WEIGHTS_FILE}, tokenizer.json)"
            )
        try:
            config = json.loads(config_path.read_text())
            encoder_config = config["encoder"]
            tokenizer_config = config["tokenizer"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ModelFormatError(f"{config_path}: not a parasent model config ({exc})") from exc
        if config.get("format", 0) > FORMAT_VERSION:
            raise ModelFormatError(
                f"{config_path}: format {config['format']} is newer than this parasent reads ({FORMAT_VERSION})"
            )
        try:
            encoder_entry(encoder_config.get("name", ""))
        except KeyError as exc:
            raise ModelFormatError(f"{config_path}: {exc.args[0]}") from None
        weights = _read_model_weights(
            path / WEIGHTS_FILE, config, encoder_entry(encoder_config["name"]).static
        )
        try:
            tokenizer = load_tokenizer(path, tokenizer_config)
        except ModelFormatError as exc:
            raise ModelFormatError(f"{config_path}: {exc}") from None
        try:
            return cls(tokenizer, encoder_config, weights, metadata=config.get("metadata"))
        except ModelFormatError as exc:
            raise ModelFormatError(f"{path}: inconsistent model files: {exc}") from None

    from_pretrained = load

    # inference --------------------------------------------------------------------------
    @property
    def dim(self) -> int:
        if self._entry.static:
            return int(self.weights[EMBEDDING_KEY].shape[1])
        return self.torch_encoder().output_dim

    def torch_encoder(self, device: Any = None) -> Encoder:
        """The torch module (built once from the weights); needed for training and non-static encoders."""
        if self._torch_encoder is None:
            import torch

            from parasent.encoders import build_encoder

            encoder = build_encoder(self.encoder_config)
            encoder.load_state_dict(
                {k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in self.weights.items()}
            )
            self._torch_encoder = encoder
        if device is not None:
            self._torch_encoder.to(device)
        return self._torch_encoder

    def iter_encode(
        self,
        sentences: Iterable[str],
        batch_size: int = 4096,
        normalize: bool = False,
        device: Any = None,
    ) -> Iterator[np.ndarray]:
        """Encode in chunks of ``batch_size``, reading ``sentences`` (any iterable: a list, a
        file, a generator) one chunk at a time: memory is bounded by the chunk, not the corpus.

        Averaging models encode with numpy; ``device`` (``"cuda"``, ``"cpu"``) runs the torch
        module on that device instead (non-static encoders always use torch).
        """
        iterator = iter(sentences)
        while True:
            texts = list(itertools.islice(iterator, batch_size))
            if not texts:
                return
            chunk = self.tokenizer.encode_batch(texts)
            if self._entry.static and device is None:
                vectors = average_rows(chunk, self.weights[EMBEDDING_KEY])
            else:
                from parasent.encoders.base import encode_batches

                vectors = encode_batches(self.torch_encoder(device), chunk, device=device)
            yield normalize_rows(vectors) if normalize else vectors

    def encode(
        self,
        sentences: str | Sequence[str],
        batch_size: int = 4096,
        normalize: bool = False,
        show_progress_bar: bool = False,
        device: Any = None,
    ) -> np.ndarray:
        """``(len(sentences), dim)`` float32; a single string gives a 1-D vector."""
        single = isinstance(sentences, str)
        items = [sentences] if single else list(sentences)
        chunks = self.iter_encode(items, batch_size=batch_size, normalize=normalize, device=device)
        if show_progress_bar:
            from tqdm.auto import tqdm

            chunks = tqdm(chunks, total=-(-len(items) // batch_size), desc="encode", unit="batch")
        parts = list(chunks)
        matrix = np.concatenate(parts) if parts else np.zeros((0, self.dim), dtype=np.float32)
        return matrix[0] if single else matrix

    def similarity(self, a: str | Sequence[str], b: str | Sequence[str]) -> float | np.ndarray:
        """Cosine similarity of a[i] and b[i] (0 when a sentence has no known word, never NaN)."""
        single = isinstance(a, str) and isinstance(b, str)
        left = self.encode([a] if isinstance(a, str) else list(a))
        right = self.encode([b] if isinstance(b, str) else list(b))
        if len(left) != len(right):
            raise ValueError(
                f"similarity needs as many sentences on each side, got {len(left)} and {len(right)}"
            )
        scores = cosine_rows(left, right)
        return float(scores[0]) if single else scores

    def oov_rate(self, sentences: Sequence[str]) -> float:
        unknown, total = self.tokenizer.oov_counts(sentences)
        return unknown / total if total else 0.0

    def __repr__(self) -> str:
        return f"SentenceModel(encoder={self.encoder_config['name']!r}, vocab={self.tokenizer.vocab_size})"


def _read_model_weights(path: Path, config: dict[str, Any], static: bool) -> dict[str, Any]:
    """The weights stored as ``config["weights_dtype"]`` (float32, float16, int8 rows); a static
    model's int8 table stays int8, dequantized row by row when gathered."""
    if not path.is_file():
        raise ModelFormatError(f"{path}: missing")
    try:
        keep = frozenset([EMBEDDING_KEY]) if static else frozenset()
        return unpack(read_weights(path), config.get("weights_dtype", "float32"), keep=keep)
    except ModelFormatError as exc:
        raise ModelFormatError(f"{path}: {exc}") from None


def read_weights(path: str | Path) -> dict[str, np.ndarray]:
    """Tensors of a safetensors file, memory-mapped where possible (see :mod:`parasent.mmap_weights`)."""
    from parasent.errors import WeightsFormatError
    from parasent.mmap_weights import map_safetensors

    try:
        return map_safetensors(path)
    except WeightsFormatError:
        pass  # a layout the mapper does not cover (bfloat16, ...): let safetensors read it
    except OSError as exc:
        raise ModelFormatError(f"{path}: unreadable ({exc})") from exc
    from safetensors.numpy import load_file

    try:
        return load_file(str(path))
    except Exception as exc:  # safetensors raises its own error types
        raise ModelFormatError(f"{path}: unreadable ({exc})") from exc


def shipped_models() -> list[str]:
    """Names of the models inside the package (``default``, when the package data is there)."""
    if not SHIPPED_DIR.is_dir():
        return []
    return sorted(p.name for p in SHIPPED_DIR.iterdir() if (p / CONFIG_FILE).is_file())


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


def load(path: str | Path | None = None) -> SentenceModel:
    """Load a model directory (or a training run directory, whose best model is ``model/``);
    with no argument, the compact default model shipped inside the package."""
    return SentenceModel.load(path)
