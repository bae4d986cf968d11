"""Token-id input: OpenAI's embeddings endpoint also takes ``input`` as token ids (a list of
integers, or a list of such lists), and LangChain's ``OpenAIEmbeddings`` sends them by default
(it tokenizes with tiktoken to split long texts). parasent models read text, so the ids are
decoded back to text with tiktoken's encoding for the request's ``model`` (``cl100k_base`` for
names tiktoken does not know).

tiktoken downloads its encoding files on first use; the service never does (a request must not
wait on the network, and the machines it runs on may be offline): an encoding is used only when
its file is already in tiktoken's cache (``$TIKTOKEN_CACHE_DIR``, else
``$DATA_GYM_CACHE_DIR``, else ``TMPDIR/data-gym-cache``). Otherwise the request is a 400 that
says how to send text instead.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from parasent.errors import ApiError

DEFAULT_ENCODING = "cl100k_base"
ENCODING_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
SEND_TEXT = (
    "send text instead: LangChain's OpenAIEmbeddings(..., check_embedding_ctx_length=False) "
    "sends text (see docs/serving.md)"
)


def is_token_input(value: object) -> bool:
    """A non-empty list of integers, or a non-empty list of lists of integers."""
    if not isinstance(value, list) or not value:
        return False
    if all(_is_id(item) for item in value):
        return True
    return all(isinstance(item, list) and all(_is_id(i) for i in item) for item in value)


def _is_id(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def token_arrays(value: list, max_inputs: int, max_tokens: int) -> list[list[int]]:
    """The arrays of ids of ``value`` (one array for a flat list), within the limits."""
    arrays = [value] if all(_is_id(item) for item in value) else value
    if len(arrays) > max_inputs:
        raise ApiError(413, f"'input' holds {len(arrays)} token arrays; the limit is {max_inputs}", "input")
    if max(len(a) for a in arrays) > max_tokens:
        raise ApiError(413, f"a token array exceeds the limit of {max_tokens} tokens", "input")
    if any(i < 0 for a in arrays for i in a):
        raise ApiError(400, "'input' holds a negative token id", "input")
    return arrays


def cache_path(name: str) -> Path | None:
    """Where tiktoken keeps the file of encoding ``name`` (None: caching is turned off)."""
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        directory = os.environ["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in os.environ:
        directory = os.environ["DATA_GYM_CACHE_DIR"]
    else:
        directory = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if not directory:
        return None
    return Path(directory) / hashlib.sha1(ENCODING_URL.format(name=name).encode()).hexdigest()


def decoder(model: str | None) -> Callable[[list[int]], str]:
    """tiktoken's ``decode`` for ``model``'s encoding, or an :class:`ApiError` saying why not."""
    try:
        import tiktoken
        from tiktoken.model import encoding_name_for_model
    except ImportError:
        raise ApiError(
            400,
            f"'input' holds token arrays (token ids); decoding them needs tiktoken, which is not "
            f"installed (pip install 'parasent[tiktoken]'); or {SEND_TEXT}",
            "input",
        ) from None
    try:
        name = encoding_name_for_model(model or "")
    except KeyError:
        name = DEFAULT_ENCODING
    path = cache_path(name)
    if path is None or not path.is_file():
        raise ApiError(
            400,
            f"'input' holds token arrays (token ids); decoding them needs tiktoken's {name} encoding "
            f"file, which is not in its cache here (the service does not download it); {SEND_TEXT}",
            "input",
        )
    try:
        encoding = tiktoken.get_encoding(name)
    except Exception as exc:  # a corrupt cached file: tiktoken would fetch it again; we do not
        raise ApiError(400, f"cannot load tiktoken's {name} encoding ({exc}); {SEND_TEXT}", "input") from None
    return encoding.decode


def decode(arrays: list[list[int]], model: str | None, max_chars: int) -> list[str]:
    """The texts of the token arrays."""
    decode_one = decoder(model)
    try:
        texts = [decode_one(ids) for ids in arrays]
    except (KeyError, ValueError) as exc:  # an id outside the encoding
        raise ApiError(
            400, f"'input' holds a token id the {model or DEFAULT_ENCODING} encoding lacks ({exc})", "input"
        ) from None
    longest = max(len(t) for t in texts)
    if longest > max_chars:
        raise ApiError(413, f"a text of {longest} characters exceeds the limit of {max_chars}", "input")
    return texts
