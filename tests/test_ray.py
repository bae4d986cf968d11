"""Corpora on Ray Data (``parasent.ray``): the vectors of a local Ray cluster's ``map_batches``
are those of ``parasent encode`` on the same lines, in float32 and int8, and an index built
from the Parquet output answers like one built from the corpus."""

import numpy as np
import pytest

from parasent.cli import main
from parasent.core.model import SentenceModel
from parasent.errors import OptionError
from parasent.text.word_vectors import WordVectors

WORDS = "a man is playing guitar the cat sat on mat dog runs music woman plays violin".split()


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    rng = np.random.default_rng(0)
    model = SentenceModel.from_vectors(
        WordVectors(WORDS, rng.normal(size=(len(WORDS), 12)).astype(np.float32))
    )
    path = tmp_path_factory.mktemp("ray-model") / "model"
    model.save(path)
    return path


def corpus_lines(count):
    rng = np.random.default_rng(1)
    return [" ".join(rng.choice(WORDS, size=rng.integers(1, 9))) for _ in range(count)] + ["", "zzz unknown"]


def test_int8_needs_fixed_ranges(model_dir):
    from parasent.ray import Embedder, embed

    with pytest.raises(OptionError, match="calibration"):
        Embedder(str(model_dir), precision="int8")
    with pytest.raises(OptionError, match="precision"):
        embed(None, model_dir, precision="float16")
    with pytest.raises(OptionError, match="no such model"):
        embed(None, model_dir.parent / "missing")


def test_the_callable_class_keeps_the_batch_and_the_model_normalisation(model_dir):
    from parasent.core.model import load
    from parasent.ray import Embedder

    lines = corpus_lines(20)
    batch = {"text": np.array(lines, dtype=object), "id": np.arange(len(lines))}
    out = Embedder(str(model_dir), normalize=True)(batch)
    assert list(out) == ["text", "id", "embedding"] and out["embedding"].dtype == np.float32
    np.testing.assert_array_equal(out["embedding"], load(model_dir).encode(lines, normalize_embeddings=True))


@pytest.mark.slow
def test_a_local_ray_cluster_writes_the_vectors_of_parasent_encode(model_dir, tmp_path):
    ray = pytest.importorskip("ray", reason="needs parasent[ray]")
    from parasent.core.output import to_precision
    from parasent.corpus.index import load_index
    from parasent.ray import build_index, calibration, embed, read_vectors

    lines = corpus_lines(300)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["encode", str(corpus), "--model", str(model_dir), "-o", str(tmp_path / "ref.npy")]) == 0
    reference = np.load(tmp_path / "ref.npy")
    ranges = calibration(model_dir, lines[:50])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        rows = [{"id": i, "text": t} for i, t in enumerate(lines)]
        dataset = ray.data.from_items(rows, override_num_blocks=4)
        embed(dataset, model_dir, batch_size=64, concurrency=2).write_parquet(str(tmp_path / "f32"))
        int8 = embed(dataset, model_dir, batch_size=64, concurrency=2, precision="int8", ranges=ranges)
        int8.write_parquet(str(tmp_path / "i8"))
    finally:
        ray.shutdown()
    texts, vectors = read_vectors(tmp_path / "f32", id_column="id")
    assert texts == lines
    np.testing.assert_array_equal(vectors, reference)  # bit for bit, in the order the id restores
    _, codes = read_vectors(tmp_path / "i8", id_column="id")
    assert codes.dtype == np.int8
    np.testing.assert_array_equal(
        codes, to_precision(reference, "int8", np.asarray(ranges, dtype=np.float32))
    )
    index = build_index(tmp_path / "f32", model_dir, tmp_path / "index", id_column="id", progress=False)
    assert main(["index", str(corpus), "--model", str(model_dir), "-o", str(tmp_path / "direct")]) == 0
    built, direct = load_index(index), load_index(tmp_path / "direct")
    np.testing.assert_array_equal(np.asarray(built.vectors), np.asarray(direct.vectors))
    assert built.texts == direct.texts


def test_mining_and_dedup_sharded_over_a_local_cluster_match_one_process():
    ray = pytest.importorskip("ray", reason="needs parasent[ray]")
    from parasent.corpus.dedup import dedup_vectors
    from parasent.corpus.mining import mine_vectors
    from parasent.ray import dedup, mine

    rng = np.random.default_rng(3)
    centres = rng.normal(size=(300, 16))
    vectors = (centres[rng.integers(0, 300, 3000)] + 0.3 * rng.normal(size=(3000, 16))).astype(np.float32)
    texts = [f"text {i}" for i in range(2990)] + [f"text {i}" for i in range(10)]  # 10 exact copies
    vectors[2990:] = vectors[:10]
    rows = [{"id": i, "text": t, "embedding": v} for i, (t, v) in enumerate(zip(texts, vectors, strict=True))]
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        dataset = ray.data.from_items(rows[::-1], override_num_blocks=3)  # the id restores the order
        got_texts, pairs = mine(dataset, top_k=5, threshold=0.7, shards=3, id_column="id")
        _, removed = dedup(dataset, threshold=0.85, shards=3, neighbours=4, id_column="id")
    finally:
        ray.shutdown()
    assert got_texts == texts
    expected = mine_vectors(vectors, top_k=5, threshold=0.7)
    assert len(expected) > 1000
    assert (
        pairs.first.tolist() == expected.first.tolist() and pairs.second.tolist() == expected.second.tolist()
    )
    np.testing.assert_array_equal(pairs.scores, expected.scores)
    one = dedup_vectors(vectors, threshold=0.85, texts=texts)
    assert one.counts()["near"] > 100 and one.counts()["exact"] == 10
    assert removed.status.tolist() == one.status.tolist() and removed.by.tolist() == one.by.tolist()
