"""Model loading on mutated model directories (parasent and sentence-transformers layouts):
loading either succeeds and encodes finite vectors, or fails with parasent's own error naming
the directory; nothing hangs or allocates beyond what the files justify."""

from __future__ import annotations

import json
import random
import shutil

import numpy as np
import pytest

from parasent.core.model import SentenceModel, load
from parasent.errors import ParasentError
from parasent.text.word_vectors import WordVectors
from tests.fuzz.mutate import FUZZ_N, TOKENS, Tally, mutate

VALUES = [
    "x",
    "2",
    "8890",
    -1,
    0,
    1,
    10**6,
    10**12,
    2**70,
    1.5,
    float("nan"),
    None,
    True,
    [],
    [1, -1],
    {},
    {"a": {"b": {}}},
    [[[[[]]]]],
]


def _json_mutant(data: bytes, rng: random.Random) -> bytes:
    """Replace one value anywhere in a JSON document by an odd one; or mutate its bytes."""
    if rng.random() < 0.3:
        return mutate(data, rng)
    if rng.random() < 0.05:
        return b"[" * 100_000 + b"]" * 100_000  # a nesting bomb
    document = json.loads(data)
    slots = []

    def walk(node):
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
        for key, value in items:
            slots.append((node, key))
            walk(value)

    walk(document)
    if slots:
        node, key = rng.choice(slots)
        node[key] = rng.choice(VALUES)
    return json.dumps(document).encode()


def _safetensors_mutant(data: bytes, rng: random.Random) -> bytes:
    header_size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + header_size])
    if rng.random() < 0.5:
        name = rng.choice([k for k in header if k != "__metadata__"])
        field = rng.choice(["shape", "data_offsets", "dtype"])
        header[name][field] = rng.choice(
            [[10**6, 10**6], [-1, 4], [2**40, 2**40], [0, 2**62], "F64", "Q8", [1], "x", None]
        )
        text = json.dumps(header).encode()
        return len(text).to_bytes(8, "little") + text + data[8 + header_size :]
    body = bytearray(data)
    for _ in range(rng.randint(1, 4)):  # NaN / inf / garbage bytes inside the tensors
        i = rng.randrange(8 + header_size, len(body) - 4)
        body[i : i + 4] = rng.choice(
            [b"\x00\x00\xc0\x7f", b"\x00\x00\x80\x7f", bytes(rng.randrange(256) for _ in range(4))]
        )
    return bytes(body)


def _model(tmp_path, kind: str):
    rng = np.random.default_rng(0)
    words = ["the", "cat", "sat", "on", "mat"]
    base = SentenceModel.from_vectors(WordVectors(words, rng.normal(size=(5, 6)).astype(np.float32)))
    path = tmp_path / "valid"
    if kind == "parasent":
        base.save(path)
    elif kind == "sentence-transformers":
        base.export(path)
    else:
        from parasent.encoders import build_encoder

        encoder = build_encoder({"name": "dan", "vocab_size": base.tokenizer.vocab_size, "embedding_dim": 6})
        SentenceModel.from_encoder(base.tokenizer, encoder).save(path)
    return path


FILES = {
    "parasent": ["config.json", "tokenizer.json", "model.safetensors"],
    "dan": ["config.json", "model.safetensors"],
    "sentence-transformers": ["modules.json", "tokenizer.json", "model.safetensors"],
}


@pytest.mark.parametrize("kind", sorted(FILES))
def test_model_loading_survives_mutations(tmp_path, kind):
    valid = _model(tmp_path, kind)
    rng = random.Random(len(kind))
    tally = Tally(f"model-{kind}")
    target = tmp_path / "mutant"
    n = max(FUZZ_N // 3, 20)
    for index in range(n):
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(valid, target)
        name = rng.choice(FILES[kind])
        data = (valid / name).read_bytes()
        if name.endswith(".json"):
            mutant = _json_mutant(data, rng)
        elif rng.random() < 0.7:
            mutant = _safetensors_mutant(data, rng)
        else:
            mutant = mutate(data, rng)
        (target / name).write_bytes(mutant)

        def run():
            model = load(target)
            vectors = model.encode(["the cat sat", "unknown words", ""])
            assert np.isfinite(vectors).all(), "non-finite vectors from a loaded model"

        tally.check(index, run, str(target), (ParasentError,))
    print(tally.report(), f"({len(TOKENS)} tokens)")
    assert not tally.failures, "\n".join(tally.failures[:10])
