import subprocess
import sys

import numpy as np
import pytest

from parasent.core.model import SentenceModel
from parasent.core.output import finish, to_precision
from parasent.text.word_vectors import WordVectors


@pytest.fixture()
def model():
    words = ["a", "man", "is", "running", "guy", "jogging", "cat"]
    return SentenceModel.from_vectors(
        WordVectors(words, np.random.default_rng(0).normal(size=(len(words), 12)).astype(np.float32))
    )


def test_encode_takes_the_ecosystem_keywords(model):
    vector = model.encode("a man", normalize_embeddings=True, prompt_name="query", task="sts", prompt=None)
    assert vector.shape == (12,) and abs(np.linalg.norm(vector) - 1) < 1e-5
    rows = model.encode(["a man", "cat"], convert_to_numpy=False)
    assert isinstance(rows, list) and len(rows) == 2 and rows[0].shape == (12,)
    short = model.encode(["a man", "cat"], truncate_dim=5, normalize_embeddings=True)
    assert short.shape == (2, 5)
    np.testing.assert_allclose(np.linalg.norm(short, axis=1), 1, rtol=1e-5)
    np.testing.assert_allclose(
        short,
        model.encode(["a man", "cat"])[:, :5]
        / np.linalg.norm(model.encode(["a man", "cat"])[:, :5], axis=1, keepdims=True),
        rtol=1e-5,
    )
    assert model.encode(["a man"], normalize=True).shape == (1, 12)  # the older keyword
    with pytest.raises(ValueError, match="sentence embeddings only"):
        model.encode(["a man"], output_value="token_embeddings")
    with pytest.raises(ValueError, match="precision"):
        model.encode(["a man"], precision="int4")


def test_precisions_agree_with_sentence_transformers(model):
    quantization = pytest.importorskip("sentence_transformers.quantization")
    vectors = model.encode(["a man is running", "a guy is jogging", "cat", "a cat is running", "man"])
    for precision in ("int8", "uint8", "binary", "ubinary"):
        ours = model.encode(
            ["a man is running", "a guy is jogging", "cat", "a cat is running", "man"], precision=precision
        )
        theirs = quantization.quantize_embeddings(vectors, precision=precision)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, precision
        # int8 buckets may differ by one where a value lies on a bucket edge (float rounding)
        assert np.abs(ours.astype(int) - theirs.astype(int)).max() <= (1 if "int" in precision else 0)
    assert to_precision(vectors, "float16").dtype == np.float16
    constant = to_precision(np.ones((3, 4), dtype=np.float32), "int8")
    assert constant.dtype == np.int8 and np.all(constant == -128)  # no division by a zero range


def test_convert_to_tensor_imports_torch_only_then(model, tmp_path):
    path = model.save(tmp_path / "m")
    code = (
        "import sys, parasent; m = parasent.load(sys.argv[1]); m.encode(['a man'], precision='binary'); "
        "before = 'torch' in sys.modules; t = m.encode(['a man', 'cat'], convert_to_tensor=True); "
        "print(before, type(t).__module__.split('.')[0], tuple(t.shape))"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "torch", "(2,", "12)"]


def test_finish_rejects_a_bad_truncation():
    with pytest.raises(ValueError, match="truncate_dim"):
        finish(np.ones((2, 3), dtype=np.float32), truncate_dim=0)


def test_an_unknown_encode_keyword_is_an_error_naming_the_close_one(model):
    with pytest.raises(TypeError, match="'normalise_embeddings'.*did you mean 'normalize_embeddings'"):
        model.encode(["a man"], normalise_embeddings=True)
    with pytest.raises(TypeError, match="'frobnicate'"):
        model.encode(["a man"], frobnicate=1)


def test_the_ignored_keywords_are_the_ones_encode_documents(model):
    from parasent.core.output import IGNORED_KEYWORDS

    doc = " ".join(SentenceModel.encode.__doc__.split())
    listed = doc.split("Accepted and ignored on purpose", 1)[1]
    assert all(f"``{name}``" in listed for name in IGNORED_KEYWORDS)
    model.encode(["a man"], **{name: None for name in IGNORED_KEYWORDS})  # every one accepted


@pytest.mark.core
def test_convert_to_tensor_without_torch_names_the_extra(tmp_path):
    script = (
        "import sys\nsys.modules['torch'] = None\n"
        "import parasent\nfrom parasent.errors import MissingDependencyError\n"
        "try:\n    parasent.load().encode('a man', convert_to_tensor=True)\n"
        "except MissingDependencyError as exc:\n    print('ERROR', exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.startswith("ERROR") and "parasent[train]" in out and len(out.strip().splitlines()) == 1


def test_the_sentence_transformers_surface(model):
    assert model.get_sentence_embedding_dimension() == model.get_embedding_dimension() == 12
    assert model.similarity_fn_name == "cosine" and model.max_seq_length is None
    np.testing.assert_array_equal(model.encode_query(["a man"]), model.encode(["a man"]))
    np.testing.assert_array_equal(
        model.encode_document("cat", normalize_embeddings=True),
        model.encode("cat", normalize_embeddings=True),
    )


def test_max_seq_length_can_be_set_and_truncates_what_is_read():
    import parasent

    model = parasent.load()
    long = "a man plays a guitar in the park while the sun sets over the hills"
    whole = model.encode([long])
    model.max_seq_length = 3
    assert model.max_seq_length == 3
    assert len(model.tokenize([long])["input_ids"]) == 3
    first = model.tokenize(["a man plays"])["input_ids"][:3]
    assert model.tokenize(long)["input_ids"].tolist() == first.tolist()
    np.testing.assert_allclose(
        model.encode(long), model.encode([long, "x"])[0], atol=1e-6
    )  # one text, a batch
    assert not np.allclose(model.encode([long]), whole)
    model.max_seq_length = None
    np.testing.assert_array_equal(model.encode([long]), whole)
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="max_seq_length must be a positive"):
            model.max_seq_length = bad


def test_tokenize_gives_static_embedding_ids_and_offsets():
    import parasent

    model = parasent.load()
    texts = ["A man plays a guitar.", "", "hello there"]
    tokens = model.tokenize(texts)
    assert (
        set(tokens) == {"input_ids", "offsets"} and tokens["offsets"][0] == 0 and len(tokens["offsets"]) == 3
    )
    chunk = model.tokenizer.encode_batch(texts)
    assert (
        tokens["input_ids"].tolist() == chunk.ids.tolist()
        and tokens["offsets"].tolist() == chunk.offsets[:-1].tolist()
    )


def test_similarity_of_torch_tensors_is_a_torch_tensor(model):
    torch = pytest.importorskip("torch")
    vectors = model.encode(["a man", "a cat", "the dog"])
    tensors = torch.from_numpy(vectors)
    matrix = model.similarity(tensors, tensors)
    assert isinstance(matrix, torch.Tensor) and matrix.shape == (3, 3)
    np.testing.assert_allclose(matrix.numpy(), model.similarity(vectors, vectors), atol=1e-6)
    pairwise = model.similarity_pairwise(tensors, tensors)
    assert isinstance(pairwise, torch.Tensor) and pairwise.shape == (3,)
    assert isinstance(model.similarity(vectors, vectors), np.ndarray)
    assert isinstance(model.similarity_pairwise("a man", "a cat"), float)


def test_int8_of_one_sentence_is_refused_not_all_minus_128(model):
    """``encode(["one sentence"], precision="int8")`` gave every dimension -128 (the batch's own
    range is one point); a calibration set's ranges still quantise one sentence."""
    for precision in ("int8", "uint8"):
        with pytest.raises(ValueError, match="one sentence has none"):
            model.encode(["one sentence"], precision=precision)
    words = ["a", "man", "is", "running", "guy", "jogging", "cat"]
    calibration = model.encode([f"{a} {b} {c}" for a in words for b in words for c in words[:3]])
    ranges = np.stack([calibration.min(axis=0), calibration.max(axis=0)])
    codes = to_precision(model.encode(["a man is running"]), "int8", ranges)
    assert codes.dtype == np.int8 and len(np.unique(codes)) > 2


def test_vectors_holding_nan_or_infinity_are_refused_naming_the_row():
    import parasent

    model = parasent.load()
    good = model.encode(["a man plays guitar", "a woman sings"])
    bad = good.copy()
    bad[1, 5] = np.nan
    worse = np.full_like(good, np.inf)
    for call in (
        lambda: model.similarity(good, bad),
        lambda: model.similarity_pairwise(good, worse),
        lambda: parasent.search(bad, good, top_k=1),
        lambda: parasent.search(good, bad, top_k=1),  # a corpus handed in is checked too
        lambda: model.search(good, bad, top_k=1),
    ):
        with pytest.raises(ValueError, match=r"vector row \d holds NaN or infinity"):
            call()
    assert np.isfinite(model.similarity(good, good)).all()
