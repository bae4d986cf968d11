import numpy as np
import pytest

from parasent.distillation.cache import EmbeddingCache, default_cache_dir
from parasent.errors import ModelFormatError


def fake_encoder(calls):
    def encode(texts):
        calls.append(list(texts))
        return np.array([[len(t), t.count("a"), 1.0] for t in texts], dtype=np.float32)

    return encode


def test_each_text_is_encoded_once_and_survives_reload(tmp_path):
    calls = []
    cache = EmbeddingCache(tmp_path, "teacher-x")
    first = cache.get(["bb", "a", "bb", "aaa"], fake_encoder(calls), chunk=2)
    assert first.shape == (4, 3) and first[0].tolist() == [2, 0, 1] and np.array_equal(first[0], first[2])
    assert calls == [["a", "bb"], ["aaa"]]  # unique, shortest first, in chunks of 2
    reloaded = EmbeddingCache(tmp_path, "teacher-x")
    assert len(reloaded) == 3 and "aaa" in reloaded
    again = reloaded.get(["aaa", "new", "a"], fake_encoder(calls))
    assert calls[-1] == ["new"]
    assert again[0].tolist() == [3, 3, 1] and again[1].tolist() == [3, 0, 1]
    assert len(list((tmp_path / "teacher-x").glob("*.safetensors"))) == 3
    other = EmbeddingCache(tmp_path, "teacher-y")
    assert len(other) == 0


def test_interrupted_computation_keeps_finished_chunks(tmp_path):
    def failing(texts):
        if "boom!" in texts:
            raise RuntimeError("killed")
        return np.ones((len(texts), 2), dtype=np.float32)

    cache = EmbeddingCache(tmp_path, "t")
    with pytest.raises(RuntimeError):
        cache.get(["a", "b", "boom!"], failing, chunk=2)
    assert len(EmbeddingCache(tmp_path, "t")) == 2


def test_wrong_count_and_foreign_shard(tmp_path):
    cache = EmbeddingCache(tmp_path, "t")
    with pytest.raises(ValueError, match="returned 1 vectors for 2"):
        cache.get(["a", "b"], lambda texts: np.ones((1, 2), dtype=np.float32))
    (tmp_path / "t").mkdir(exist_ok=True)
    (tmp_path / "t" / "junk.safetensors").write_bytes(b"not safetensors")
    with pytest.raises(ModelFormatError, match="junk.safetensors"):
        EmbeddingCache(tmp_path, "t")


def test_default_cache_dir_honours_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("PARASENT_CACHE", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("PARASENT_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert default_cache_dir() == tmp_path / "x" / "parasent"


def _shard(tmp_path, vectors):
    from safetensors.numpy import save_file

    (tmp_path / "t").mkdir(exist_ok=True)
    keys = np.zeros((len(vectors), 16), dtype=np.uint8)
    keys[:, 0] = np.arange(len(vectors))
    name = f"{len(list((tmp_path / 't').iterdir())):020d}.safetensors"
    save_file({"keys": keys, "vectors": np.asarray(vectors, dtype=np.float32)}, str(tmp_path / "t" / name))
    return tmp_path / "t" / name


def test_non_finite_cached_values_are_refused(tmp_path):
    path = _shard(tmp_path, [[1.0, np.nan], [0.0, 1.0]])
    with pytest.raises(ModelFormatError, match=f"{path}: .*non-finite"):
        EmbeddingCache(tmp_path, "t")


def test_shard_of_the_wrong_dimension_names_its_path(tmp_path):
    _shard(tmp_path, [[1.0, 0.0]])
    path = _shard(tmp_path, [[1.0, 0.0, 0.0]])
    with pytest.raises(ModelFormatError, match=f"{path}: dimension 3, other shards have 2"):
        EmbeddingCache(tmp_path, "t")


def test_non_finite_teacher_output_is_not_cached(tmp_path):
    cache = EmbeddingCache(tmp_path, "t")
    with pytest.raises(ValueError, match="non-finite"):
        cache.get(["a"], lambda texts: np.full((len(texts), 2), np.inf, dtype=np.float32))
    assert len(EmbeddingCache(tmp_path, "t")) == 0
