import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from parasent import load
from parasent.core.model import SentenceModel
from parasent.encoders.word_averaging import WordAveraging
from parasent.errors import ModelFormatError
from parasent.text import WordTokenizer
from parasent.text.word_vectors import WordVectors


@pytest.fixture()
def model():
    tokenizer = WordTokenizer.from_vocabulary(["a", "man", "is", "running", "guy", "jogging", "cat"])
    torch.manual_seed(0)
    encoder = WordAveraging(tokenizer.vocab_size, 6)
    encoder.set_embeddings(torch.randn(tokenizer.vocab_size, 6))
    return SentenceModel.from_encoder(tokenizer, encoder, metadata={"note": "test"})


def test_save_load_encodes_bit_for_bit(model, tmp_path):
    sentences = ["A man is running.", "a guy is jogging", "", "unknown words only", "cat"]
    before = model.encode(sentences)
    model.save(tmp_path / "m")
    assert {p.name for p in (tmp_path / "m").iterdir()} >= {
        "config.json",
        "model.safetensors",
        "tokenizer.json",
    }
    again = load(tmp_path / "m")
    after = again.encode(sentences)
    assert after.dtype == np.float32 and after.shape == (5, 6)
    assert np.array_equal(before, after)
    assert again.metadata == {"note": "test"}


def test_numpy_path_equals_torch_module(model):
    sentences = ["a man is running", "cat cat a", ""]
    from parasent.encoders.base import encode_batches

    by_torch = encode_batches(model.torch_encoder(), model.tokenizer.encode_batch(sentences))
    np.testing.assert_allclose(model.encode(sentences), by_torch, rtol=1e-5, atol=1e-7)


def test_similarity_pairwise_never_nan(model):
    assert model.similarity_pairwise("", "a man") == 0.0
    skip = SentenceModel.from_vectors(WordVectors(["a"], np.ones((1, 3), dtype=np.float32)))
    assert skip.similarity_pairwise("zzz", "a") == 0.0
    assert abs(skip.similarity_pairwise("a", "a") - 1.0) < 1e-6
    scores = model.similarity_pairwise(["a man", "cat"], ["a guy", "cat"])
    assert scores.shape == (2,) and abs(scores[1] - 1.0) < 1e-6
    vectors = model.encode(["a man", "cat"])
    np.testing.assert_allclose(model.similarity_pairwise(vectors, ["a guy", "cat"]), scores, rtol=1e-6)
    with pytest.raises(ValueError):
        model.similarity_pairwise(["a"], ["a", "b"])


def test_similarity_is_the_cosine_matrix_of_sentences_or_vectors(model):
    left, right = ["a man", "cat", ""], ["a guy", "cat"]
    matrix = model.similarity(left, right)
    assert matrix.shape == (3, 2) and np.all(matrix[2] == 0)  # an empty sentence: 0, never NaN
    for i, s in enumerate(left):
        for j, t in enumerate(right):
            assert abs(matrix[i, j] - model.similarity_pairwise([s], [t])[0]) < 1e-6
    np.testing.assert_allclose(model.similarity(model.encode(left), right), matrix, rtol=1e-6)
    assert model.similarity("a man", "cat").shape == (1, 1)


def test_encode_single_string_and_normalize(model):
    vector = model.encode("a man", normalize=True)
    assert vector.shape == (6,) and abs(np.linalg.norm(vector) - 1) < 1e-5


def test_missing_and_inconsistent_files(model, tmp_path):
    path = model.save(tmp_path / "m")
    (path / "model.safetensors").unlink()
    with pytest.raises(ModelFormatError, match="model.safetensors: missing"):
        load(path)
    path = model.save(tmp_path / "m2")
    config = json.loads((path / "config.json").read_text())
    config["encoder"]["vocab_size"] = 3
    (path / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelFormatError, match="inconsistent model files"):
        load(path)
    (path / "config.json").write_text("{not json")
    with pytest.raises(ModelFormatError, match="not a parasent model config"):
        load(path)
    with pytest.raises(ModelFormatError, match="not a model directory$"):
        load(tmp_path / "nowhere")
    path = model.save(tmp_path / "m3")
    (path / "tokenizer.json").unlink()
    with pytest.raises(ModelFormatError) as missing:
        load(path)
    assert str(missing.value).startswith(
        f"{path}/tokenizer.json: missing"
    )  # named once, not after config.json


def test_a_bare_name_that_is_no_model_names_those_that_ship(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(
        ModelFormatError, match=r"defualt: .*no model of that name ships .*those that do: default\)$"
    ):
        load("defualt")
    with pytest.raises(ModelFormatError, match="--encoder contextual --pairs FILE"):
        load("contextual")  # the name for the tier: where it comes from


def test_run_directory_loads_its_best_model(model, tmp_path):
    model.save(tmp_path / "run" / "model")
    assert load(tmp_path / "run").tokenizer.vocab_size == model.tokenizer.vocab_size


def test_inference_path_does_not_import_torch(model, tmp_path):
    path = model.save(tmp_path / "m")
    code = (
        "import sys, parasent; m = parasent.load(sys.argv[1]); v = m.encode(['a man is running']); "
        "s = m.similarity('a man', 'a guy'); t = m.search('a man', ['cat', 'a guy'], 1); assert v.shape == (1, 6); "
        "print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_small_and_large_batches_average_alike(model, monkeypatch):
    sentences = ["a man is running", "cat", "", "a guy is jogging cat"] * 300  # many sentences of each length
    large = model.encode(sentences)
    monkeypatch.setenv("PARASENT_NUM_THREADS", "3")  # batches on three threads, in order
    np.testing.assert_array_equal(model.encode(sentences, batch_size=256), large)
    small = np.concatenate([model.encode(sentences[i : i + 5]) for i in range(0, len(sentences), 5)])
    np.testing.assert_allclose(small, large, rtol=1e-5, atol=1e-6)
    table = model.weights["embedding.weight"]
    ids = model.tokenizer.encode_batch(sentences[:4])
    direct = [table[ids.sentence(i)].mean(axis=0) if len(ids.sentence(i)) else np.zeros(6) for i in range(4)]
    np.testing.assert_allclose(large[:4], np.array(direct), rtol=1e-5, atol=1e-6)


def test_a_batch_alone_has_its_sums_on_every_thread_and_batches_one_each(model, monkeypatch):
    from parasent.core import inference

    monkeypatch.setenv("PARASENT_NUM_THREADS", "3")
    monkeypatch.setattr(inference, "THREAD_MIN_TOKENS", 10)
    runs = []
    real = inference.run_together
    monkeypatch.setattr(inference, "run_together", lambda tasks: (runs.append(len(tasks)), real(tasks)))
    sentences = ["a man is running", "cat", "", "a guy is jogging cat"] * 30
    alone = model.encode(sentences, batch_size=len(sentences))
    assert runs == [3]
    runs.clear()
    streamed = model.iter_encode(iter(sentences), batch_size=40)  # a stream keeps its batches
    np.testing.assert_array_equal(np.concatenate(list(streamed)), alone)
    assert runs == [1, 1, 1]  # three batches at once, each summed on its own thread
    runs.clear()
    monkeypatch.setenv("PARASENT_NUM_THREADS", "1")
    np.testing.assert_array_equal(model.encode(sentences), alone)
    assert runs == [1]


@pytest.mark.parametrize("threads", [1, 2])
def test_iter_encode_reads_lazily_and_torch_device_path_agrees(model, monkeypatch, threads):
    monkeypatch.setenv("PARASENT_NUM_THREADS", str(threads))
    consumed = []

    def lines():
        for i in range(10):
            consumed.append(i)
            yield "a man" if i % 2 else "cat is running"

    chunks = model.iter_encode(lines(), batch_size=4)
    first = next(chunks)
    assert (
        first.shape == (4, 6) and len(consumed) <= 4 * threads + 1
    )  # a chunk per thread, not the whole input
    rest = list(chunks)
    assert [len(c) for c in rest] == [4, 2]
    sentences = ["a man is running", "", "cat"]
    np.testing.assert_allclose(
        model._encode_torch(sentences, device="cpu"), model.encode(sentences), rtol=1e-5, atol=1e-7
    )


def test_device_cpu_is_the_numpy_path_and_builds_no_torch_module(model):
    sentences = ["a man is running", "", "cat"]
    fresh = SentenceModel(model.tokenizer, model.encoder_config, model.weights)
    for device in ("cpu", "cpu:0", None, torch.device("cpu")):
        assert fresh.encode(sentences, device=device).tobytes() == model.encode(sentences).tobytes()
        assert fresh.encode("cat", device=device).tobytes() == model.encode("cat").tobytes()
    assert fresh._torch_encoder is None
    assert fresh.device == "cpu" and fresh.to("cpu") is fresh and fresh.device == "cpu"
    assert fresh._torch_encoder is None


def test_another_device_is_checked_in_one_line(model):
    from parasent.errors import OptionError

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(OptionError, match="device 'cuda': CUDA is not available"):
        model.encode(["a man"], device="cuda")
    with pytest.raises(OptionError, match="device 'cuda': CUDA is not available"):
        model.to("cuda")
    assert model.device == "cpu"


def test_cli_similarity_imports_neither_torch_nor_scipy(model, tmp_path):
    path = model.save(tmp_path / "m")
    code = (
        "import sys; from parasent.cli import main; "
        "main(['similarity', 'a man is running', 'a guy is jogging', '--model', sys.argv[1]]); "
        "print('torch' in sys.modules, 'scipy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert out.stdout.split()[-2:] == ["False", "False"]


def test_character_model_directory_loads_by_tokenizer_kind(tmp_path):
    from parasent.encoders.charagram import Charagram
    from parasent.text.characters import CharNgramTokenizer

    tokenizer = CharNgramTokenizer.from_texts(["a man is running", "a guy is jogging"])
    torch.manual_seed(0)
    model = SentenceModel.from_encoder(tokenizer, Charagram(tokenizer.vocab_size, 8))
    sentences = ["A man is running.", "", "zebra"]
    before = model.encode(sentences)
    path = model.save(tmp_path / "m")
    assert {p.name for p in path.iterdir()} == {
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "README.md",
    }
    config = json.loads((path / "config.json").read_text())
    assert config["tokenizer"]["kind"] == "char_ngrams" and config["tokenizer"]["orders"] == [2, 3, 4]
    again = load(path)
    assert isinstance(again.tokenizer, CharNgramTokenizer)
    assert np.array_equal(again.encode(sentences), before) and again.dim == 8
    assert 0 < again.oov_rate(["zebra"]) <= 1
    config["tokenizer"]["kind"] = "morphemes"
    (path / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelFormatError, match="unknown tokenizer kind"):
        load(path)


def test_word_bigram_model_averages_words_and_bigrams_in_numpy_and_torch(model, tmp_path):
    from parasent.text.word_bigrams import WordBigramTokenizer

    tokenizer = WordBigramTokenizer.from_words(model.tokenizer, [("a", "man"), ("is", "running")])
    words = np.asarray(model.weights["embedding.weight"])
    bigrams = np.random.default_rng(1).normal(size=(2, 6)).astype(np.float32)
    config = dict(model.encoder_config, vocab_size=tokenizer.vocab_size)
    both = SentenceModel(tokenizer, config, {"embedding.weight": np.vstack([words, bigrams])})
    row = model.tokenizer.token_to_id
    expected = (words[[row("a"), row("man"), row("is"), row("running")]].sum(0) + bigrams.sum(0)) / 6
    np.testing.assert_allclose(both.encode("a man is running"), expected, rtol=1e-5)
    np.testing.assert_allclose(both.encode("man a"), model.encode("man a"), rtol=1e-6)  # no listed bigram
    sentences = ["A man is running.", "", "a man a man"]
    np.testing.assert_allclose(both._encode_torch(sentences, "cpu"), both.encode(sentences), atol=1e-6)
    path = both.save(tmp_path / "b", dtype="int8")
    again = load(path)
    assert isinstance(again.tokenizer, WordBigramTokenizer)
    assert json.loads((path / "config.json").read_text())["tokenizer"]["bigrams"] == 2
    assert "7 words and 2 word bigrams" in (path / "README.md").read_text()
    np.testing.assert_allclose(again.encode(sentences), both.encode(sentences), atol=0.02)


def test_word_trigram_model_averages_words_bigrams_and_trigrams_in_numpy_and_torch(model, tmp_path):
    from parasent.text.word_bigrams import WordBigramTokenizer

    triples = [("a", "man", "is"), ("man", "is", "running")]
    tokenizer = WordBigramTokenizer.from_words(model.tokenizer, [("a", "man")], triples)
    words = np.asarray(model.weights["embedding.weight"])
    grams = np.random.default_rng(1).normal(size=(3, 6)).astype(np.float32)
    config = dict(model.encoder_config, vocab_size=tokenizer.vocab_size)
    full = SentenceModel(tokenizer, config, {"embedding.weight": np.vstack([words, grams])})
    row = model.tokenizer.token_to_id
    expected = (words[[row("a"), row("man"), row("is"), row("running")]].sum(0) + grams.sum(0)) / 7
    np.testing.assert_allclose(full.encode("a man is running"), expected, rtol=1e-5)
    sentences = ["A man is running.", "", "a man a man is", "running is man a"]
    np.testing.assert_allclose(full._encode_torch(sentences, "cpu"), full.encode(sentences), atol=1e-6)
    path = full.save(tmp_path / "t", dtype="int8")
    again = load(path)
    assert again.tokenizer.trigram_ids.tolist() == [len(words) + 1, len(words) + 2]
    stored = json.loads((path / "config.json").read_text())["tokenizer"]
    assert (stored["bigrams"], stored["trigrams"]) == (1, 2)
    assert "7 words, 1 word bigrams and 2 word trigrams" in (path / "README.md").read_text()
    np.testing.assert_allclose(again.encode(sentences), full.encode(sentences), atol=0.02)


@pytest.mark.parametrize(
    "texts",
    [
        ["A man plays a guitar."],
        ["Ein Mann spielt Gitarre, schön."],
        ["nul\0byte"],
        ["two texts", "Zwei Texte, ü"],
    ],
)
def test_encode_with_counts_is_encode_and_the_units_of_each_text(texts):
    # the service's path: the vectors of encode bit for bit, each text's unit count (usage)
    default = load()
    vectors, counts = default.encode_with_counts(texts)
    assert vectors.tobytes() == default.encode(texts).tobytes()
    assert counts.tolist() == default.tokenizer.encode_batch(texts).lengths.tolist()


@pytest.mark.parametrize("batch_size", [1, 7, 32])
def test_a_list_at_a_small_batch_size_is_averaged_many_batches_at_a_time(model, monkeypatch, batch_size):
    sentences = [f"a man is running {i}" for i in range(300)] + ["", "cat"]
    expected = model.encode(sentences)
    seen = []
    real = model._average
    monkeypatch.setattr(model, "_average", lambda texts: (seen.append(len(texts)), real(texts))[1])
    vectors = model.encode(sentences, batch_size=batch_size)
    assert seen == [len(sentences)]  # one chunk of whole batches, not a call per batch
    assert vectors.tobytes() == expected.tobytes()
    seen.clear()
    chunks = list(model.iter_encode(sentences, batch_size=batch_size))
    assert seen == [len(sentences)]
    assert [len(chunk) for chunk in chunks[:-1]] == [batch_size] * (len(chunks) - 1)  # still one per batch
    assert np.concatenate(chunks).tobytes() == expected.tobytes()


def test_the_progress_bar_counts_sentences_to_a_total(model, monkeypatch):
    import tqdm.auto

    seen = {}

    class Bar:
        def __init__(self, total, **kwargs):
            seen.update(total=total, unit=kwargs.get("unit"), done=0)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, count):
            seen["done"] += count

    monkeypatch.setattr(tqdm.auto, "tqdm", Bar)
    sentences = [f"a man {i}" for i in range(50)]
    vectors = model.encode(sentences, batch_size=7, show_progress_bar=True)
    assert seen == {"total": 50, "unit": "sentence", "done": 50}
    assert vectors.tobytes() == model.encode(sentences).tobytes()


@pytest.mark.parametrize("batch_size", [0, -3, "8", 2.5])
def test_a_batch_size_that_is_no_positive_integer_is_one_line(batch_size):
    from parasent import load

    model = load()
    with pytest.raises(ValueError, match="batch_size must be a (positive integer|number)"):
        model.encode(["a man", "a dog"], batch_size=batch_size)
    with pytest.raises(ValueError, match="batch_size must be a (positive integer|number)"):
        list(model.iter_encode(["a man"], batch_size=batch_size))
