"""The settings of a service, passed to each worker process as JSON in the environment."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass

CONFIG_ENV = "PARASENT_SERVE_CONFIG"


@dataclass
class ServeConfig:
    model: str | None  # None: the shipped default model (parasent.load() without an argument)
    backend: str = "parasent"  # or "sentence-transformers" (any SentenceTransformer directory)
    index: str | None = None
    name: str | None = None  # the model name responses report (default: the directory's name)
    max_inputs: int = 2048  # texts per request (413 above)
    max_chars: int = 20000  # characters per text (413 above)
    max_body_bytes: int = 8 << 20  # request body (413 above)
    max_batch: int = 512  # texts encoded together across concurrent requests
    max_top_k: int = 1000
    body_timeout: float = 20.0  # seconds to receive a request body (408 after)
    api_key_digests: tuple[str, ...] = ()  # SHA-256 of each key let in (serve/keys.py), never a key
    api_key_file: str | None = None  # one key a line, read again when it changes

    def to_env(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_env(cls) -> ServeConfig:
        text = os.environ.get(CONFIG_ENV)
        if not text:
            raise RuntimeError(f"{CONFIG_ENV} is not set (start the service with parasent serve)")
        return cls(**json.loads(text))
