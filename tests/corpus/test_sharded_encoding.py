import json

import numpy as np
import pytest

from parasent.core.model import SentenceModel, load
from parasent.core.vector_files import ZeroRowTally, write_vectors
from parasent.corpus.sharded_encoding import encode_sharded, line_starts, shard_paths


@pytest.fixture()
def model_dir(tmp_path):
    from parasent.text import WordTokenizer

    tokenizer = WordTokenizer.from_vocabulary(["a", "b", "c", "ü"], unknown="skip")  # unknown words: no row
    table = np.random.default_rng(0).normal(size=(tokenizer.vocab_size, 3)).astype(np.float32)
    config = {"name": "word_averaging", "vocab_size": tokenizer.vocab_size, "embedding_dim": 3}
    SentenceModel(tokenizer, config, {"embedding.weight": table}).save(tmp_path / "m")
    return tmp_path / "m"


def test_line_starts_split_consecutive_runs(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text("a\nbb\n\nccc ü\nd\n", encoding="utf-8")
    offsets, counts = line_starts(str(path), 3)
    assert counts == [2, 2, 1]
    data = path.read_bytes()
    assert [data[o:].split(b"\n")[0] for o in offsets] == [b"a", b"", b"d"]
    assert line_starts(str(path), 7)[1] == [1, 1, 1, 1, 1, 0, 0]
    assert shard_paths("out/v.npy", 2) == ["out/v-00000-of-00002.npy", "out/v-00001-of-00002.npy"]


@pytest.mark.parametrize("fmt", ["npy", "jsonl"])
def test_shards_concatenate_to_the_one_process_output(model_dir, tmp_path, fmt):
    rng = np.random.default_rng(1)
    lines = [" ".join(rng.choice(["a", "b", "c", "ü", "zz"], size=rng.integers(0, 5))) for _ in range(203)]
    lines = [f"a {line}" if set(line.split()) == {"zz"} else line for line in lines]
    lines[150] = lines[180] = "🎉 zz"  # no unit the model knows: the first in the third shard
    sentences = tmp_path / "s.txt"
    sentences.write_text("\n".join(lines) + "\n", encoding="utf-8")
    single = tmp_path / f"single.{fmt}"
    whole = ZeroRowTally()
    assert write_vectors(load(model_dir), iter(lines), str(single), fmt, batch_size=16, watch=whole) == 203
    sharded = tmp_path / f"sharded.{fmt}"
    done, shards, zero = encode_sharded(str(model_dir), str(sentences), str(sharded), fmt, 3, batch_size=16)
    assert done == 203 and shards == shard_paths(str(sharded), 3)
    # the rows of zeros, counted and numbered by their line in the file, as one process does
    assert whole.blank == lines.count("") > 0 and zero.notes() == whole.notes()
    assert (zero.blank, zero.unknown, zero.first_unknown) == (whole.blank, whole.unknown, whole.first_unknown)
    assert zero.first_unknown == (151, "🎉 zz") and zero.unknown == 2
    if fmt == "npy":
        parts = [np.load(p) for p in shards]
        assert [len(p) for p in parts] == [68, 68, 67]
        assert np.array_equal(np.concatenate(parts), np.load(single))
    else:
        joined = "".join(open(p, encoding="utf-8").read() for p in shards)
        assert joined == single.read_text(encoding="utf-8")
        assert [json.loads(r)["text"] for r in joined.splitlines()] == lines
