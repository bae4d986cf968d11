import json
import os
import shutil

import numpy as np
import pytest

from parasent.cli import main
from parasent.core.model import SentenceModel
from parasent.corpus.index import build_index, load_index, unread_queries, zero_scored
from parasent.errors import DataFormatError, ModelFormatError
from parasent.text.word_vectors import WordVectors

WORDS = ["a", "man", "is", "playing", "guitar", "the", "cat", "sat", "on", "mat", "dog", "runs", "music"]
CORPUS = [
    "a man is playing guitar",
    "the cat sat on the mat",
    "a dog runs",
    "",
    "music",
    "the dog sat on a mat",
]


@pytest.fixture()
def model():
    rng = np.random.default_rng(0)
    return SentenceModel.from_vectors(
        WordVectors(WORDS, rng.normal(size=(len(WORDS), 10)).astype(np.float32))
    )


@pytest.fixture()
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    return path


def test_index_answers_like_search_over_the_corpus(model, corpus, tmp_path):
    path = build_index(model, corpus, tmp_path / "idx", batch_size=2, progress=False)
    assert {p.name for p in path.iterdir()} >= {"index.json", "vectors.safetensors", "texts.txt", "model"}
    assert not any(p.suffix in (".pkl", ".pickle", ".bin") for p in path.rglob("*"))
    assert oct(os.stat(path / "vectors.safetensors").st_mode & 0o777) != "0o600"
    index = load_index(path)
    assert len(index) == len(CORPUS) and index.texts == CORPUS
    np.testing.assert_allclose(index.vectors, model.encode(CORPUS, normalize_embeddings=True), rtol=1e-6)
    hits = index.search(["a man playing music", "cat on a mat"], top_k=3)
    expected = model.search(["a man playing music", "cat on a mat"], CORPUS, top_k=3)
    assert [[h["corpus_id"] for h in q] for q in hits] == [[h["corpus_id"] for h in q] for q in expected]
    assert hits[1][0]["text"] == CORPUS[hits[1][0]["corpus_id"]]
    one = index.search("cat on a mat", top_k=3)  # one string: its own hits, as model.search gives them
    assert [h["corpus_id"] for h in one] == [h["corpus_id"] for h in expected[1]]


def test_a_query_is_unread_for_its_own_zero_vector_not_for_the_texts_it_finds(model, tmp_path):
    """/v1/search listed a query as one of no known unit whenever its hits all scored 0, which
    the texts found being unreadable also gives: the query's own vector now decides."""
    (tmp_path / "c.txt").write_text("zzqx\nqqzx\na man is playing guitar\n", encoding="utf-8")
    index = load_index(build_index(model, tmp_path / "c.txt", tmp_path / "idx", progress=False))
    text = model.encode(["a man is playing guitar"], normalize_embeddings=True)[0]
    away = next(w for w in WORDS if model.encode([w], normalize_embeddings=True)[0] @ text < 0)
    queries = [away, "xxqz"]  # a known word pointing away from the one readable text; no known word
    results = index.search(queries, top_k=2)
    assert zero_scored(results) == [0, 1]  # each query's hits: the two unreadable texts, at 0
    assert unread_queries(results, queries, model) == [1]


def test_an_index_normalises_its_corpus_once_not_per_query(model, corpus, tmp_path, monkeypatch):
    from parasent.core import inference, semantic_search

    path = build_index(model, corpus, tmp_path / "idx", progress=False)
    index = load_index(path)
    normalised = []
    real = inference.normalize_rows
    monkeypatch.setattr(semantic_search, "normalize_rows", lambda m: normalised.append(len(m)) or real(m))
    hits = index.search(["a man playing music"], top_k=2)
    assert normalised == [1]  # the query alone, never the corpus vectors
    assert hits[0][0]["score"] == pytest.approx(
        model.similarity("a man playing music", CORPUS[hits[0][0]["corpus_id"]])[0, 0], abs=1e-5
    )
    info = json.loads((path / "index.json").read_text())
    (path / "index.json").write_text(json.dumps({**info, "normalized": False}))
    raw = load_index(path)  # an index of raw vectors: normalised once, at load
    np.testing.assert_allclose(np.linalg.norm(raw.vectors[[0, 1]], axis=1), 1, rtol=1e-5)


def test_ann_graph_finds_the_exact_neighbours(model, corpus, tmp_path):
    pytest.importorskip("usearch")
    index = load_index(build_index(model, corpus, tmp_path / "idx", ann=True, progress=False))
    assert index.ann is not None
    approximate = index.search("the cat sat", top_k=2)
    exact = index.search("the cat sat", top_k=2, exact=True)
    assert [h["corpus_id"] for h in approximate] == [h["corpus_id"] for h in exact]
    assert approximate[0]["score"] == pytest.approx(exact[0]["score"], abs=1e-4)


def test_bad_corpora_and_broken_indexes(model, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\n\xff\xfe broken\n")
    with pytest.raises(DataFormatError, match="bad.txt:2: not UTF-8"):
        build_index(model, bad, tmp_path / "idx", progress=False)
    assert not (tmp_path / "idx").exists()  # nothing half-written
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(DataFormatError, match="empty corpus"):
        build_index(model, empty, tmp_path / "idx", progress=False)
    with pytest.raises(ModelFormatError, match="index.json: missing"):
        load_index(tmp_path)


def test_index_and_query_commands(model, corpus, tmp_path, capsys):
    model.save(tmp_path / "m")
    out = tmp_path / "idx"
    assert main(["index", str(corpus), "-o", str(out), "--model", str(tmp_path / "m")]) == 0
    capsys.readouterr()
    assert main(["query", str(out), "the cat sat on the mat", "-k", "2"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and lines[0].split("\t")[3] == "the cat sat on the mat"
    assert main(["query", str(out), "a dog runs", "--json", "-k", "1"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["query"] == "a dog runs" and record["hits"][0]["text"] == "a dog runs"
    assert main(["query", str(tmp_path / "nowhere"), "x"]) == 2
    assert "index.json: missing" in capsys.readouterr().err


def test_ann_without_usearch_fails_in_one_line_before_encoding(model, corpus, tmp_path, monkeypatch, capsys):
    import sys

    from parasent.core.model import SentenceModel

    model.save(tmp_path / "m")
    monkeypatch.setitem(sys.modules, "usearch", None)
    monkeypatch.setitem(sys.modules, "usearch.index", None)
    encoded = []
    monkeypatch.setattr(SentenceModel, "iter_encode", lambda *a, **k: encoded.append(1) or iter(()))
    assert (
        main(["index", str(corpus), "-o", str(tmp_path / "idx"), "--model", str(tmp_path / "m"), "--ann"])
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert (
        err
        == "parasent: error: approximate search needs usearch, which the core install lacks: install parasent[ann]"
    )
    assert not encoded and not (tmp_path / "idx").exists()
    from parasent.errors import MissingDependencyError

    with pytest.raises(MissingDependencyError, match=r"parasent\[ann\]"):
        build_index(model, corpus, tmp_path / "idx", ann=True, progress=False)
    assert not encoded


def test_directory_outputs_refuse_stdout(model, corpus, tmp_path, capsys):
    assert main(["index", str(corpus), "-o", "-"]) == 2
    assert "cannot go to stdout" in capsys.readouterr().err


def _within(call, seconds=20):
    """``call()``'s exception (None if it returns), failing the test if it blocks."""
    import threading

    outcome = {}

    def run():
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 - reported below
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "blocked"
    return outcome.get("error")


@pytest.fixture()
def built(model, corpus, tmp_path):
    return build_index(model, corpus, tmp_path / "idx", progress=False)


@pytest.mark.parametrize("special", ["fifo", "dev-zero", "directory"])
@pytest.mark.parametrize(
    "name", ["index.json", "texts.txt", "vectors.safetensors", "model/config.json", "model/model.safetensors"]
)
def test_a_file_of_an_index_that_is_no_regular_file_is_one_line_never_a_hang(built, special, name, capsys):
    from parasent.errors import ParasentError

    target = built / name
    target.unlink()
    if special == "fifo":
        os.mkfifo(target)
    elif special == "dev-zero":
        target.symlink_to("/dev/zero")
    else:
        target.mkdir()
    error = _within(lambda: load_index(built))
    assert isinstance(error, ParasentError) and "\n" not in str(error)
    assert str(target) in str(error) or str(built / "model") in str(error)
    code = _within(lambda: main(["query", str(built), "a man"]))
    assert isinstance(code, SystemExit) or code is None
    err = capsys.readouterr().err
    assert err.startswith("parasent: error: ") and err.count("\n") == 1


def test_query_exits_in_one_line_on_dev_zero_as_index_json(built, capsys):
    (built / "index.json").unlink()
    (built / "index.json").symlink_to("/dev/zero")
    assert main(["query", str(built), "a man"]) == 2
    err = capsys.readouterr().err
    assert "index.json: a character device, not a regular file" in err and err.count("\n") == 1


def test_another_model_of_the_same_dimension_is_refused(built, tmp_path, capsys):
    import shutil

    rng = np.random.default_rng(9)
    other = SentenceModel.from_vectors(
        WordVectors(WORDS, rng.normal(size=(len(WORDS), 10)).astype(np.float32))
    )
    shutil.rmtree(built / "model")
    other.save(built / "model")
    with pytest.raises(ModelFormatError, match="not the model these vectors were made with"):
        load_index(built)
    assert main(["query", str(built), "a man"]) == 2
    err = capsys.readouterr().err
    assert "model: not the model these vectors were made with (model.safetensors's sha256 differs" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda m: (m / "modules.json").write_text("[]"),
            "holds modules.json, which index.json does not record",
        ),
        (lambda m: (m / "tokenizer.json").unlink(), "lacks tokenizer.json, which index.json records"),
        (lambda m: (m / "model.safetensors").write_bytes(b"x"), "model.safetensors's sha256 differs"),
    ],
)
def test_a_model_directory_that_changed_is_refused(built, change, message):
    change(built / "model")
    with pytest.raises(ModelFormatError, match=message):
        load_index(built)


def test_the_model_card_may_change(built):
    (built / "model" / "README.md").write_text("my notes")
    assert len(load_index(built)) == len(CORPUS)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("count", "6", "'count' must be an integer"),
        ("count", 10**15, "'count' must be an integer"),
        ("dim", 0, "'dim' must be an integer"),
        ("dim", True, "'dim' must be an integer"),
        ("format", 99, "format 99 is newer"),
        ("format", "2", "'format' must be a positive integer"),
        ("ann", "faiss", "'ann' must be null"),
        ("model_sha256", None, "'model_sha256' must map the files"),
        ("model_sha256", {"../x": "0" * 64}, "'model_sha256' must map the files"),
        ("model_sha256", {"config.json": "abc"}, "'model_sha256' must map the files"),
    ],
)
def test_index_json_fields_are_checked(built, field, value, message):
    info = json.loads((built / "index.json").read_text())
    info[field] = value
    (built / "index.json").write_text(json.dumps(info))
    with pytest.raises(ModelFormatError, match=message):
        load_index(built)


def test_index_json_that_is_not_an_object_or_too_large_is_refused(built):
    from parasent.errors import SpecialFileError

    (built / "index.json").write_text("[1, 2]")
    with pytest.raises(ModelFormatError, match="not a JSON object"):
        load_index(built)
    (built / "index.json").write_bytes(b" " * (2 << 20))
    with pytest.raises(SpecialFileError, match="more than the 1048576 such a file may have"):
        load_index(built)


def as_format_2(built):
    """The index as format 2 wrote it (no record of its own files): the structural checks below
    still guard such an index; a format-3 index refuses any changed file by its sha256 first."""
    info = json.loads((built / "index.json").read_text())
    del info["files_sha256"]
    info["format"] = 2
    (built / "index.json").write_text(json.dumps(info))


def test_every_file_of_an_index_is_tied_to_it(built, model, corpus, tmp_path):
    """A swapped vectors file (top hit 0.89 -> 0.41), zeroed or byte-flipped vectors (a 'cosine'
    of 2.3e23) and a shuffled texts.txt (right id, wrong text) loaded as if nothing happened."""
    other = build_index(model, corpus, tmp_path / "other", progress=False)
    good = {name: (built / name).read_bytes() for name in ("vectors.safetensors", "texts.txt")}
    flipped = bytearray(good["vectors.safetensors"])
    flipped[-5] ^= 0x7F
    swaps = [
        ("vectors.safetensors", (other / "vectors.safetensors").read_bytes()[:-4] + b"\0\0\0\0"),
        ("vectors.safetensors", bytes(flipped)),
        ("texts.txt", "\n".join(reversed(CORPUS)).encode() + b"\n"),
    ]
    for name, data in swaps:
        (built / name).write_bytes(data)
        with pytest.raises(ModelFormatError, match=f"{name}: not the file this index was built with"):
            load_index(built)
        (built / name).write_bytes(good[name])
    assert load_index(built).search("a dog runs", top_k=1)[0]["text"] == "a dog runs"
    info = json.loads((built / "index.json").read_text())
    info["files_sha256"] = {"vectors.safetensors": "0" * 64}
    (built / "index.json").write_text(json.dumps(info))
    with pytest.raises(ModelFormatError, match="'files_sha256' must map"):
        load_index(built)


def test_texts_and_vectors_that_do_not_fit_the_index_are_refused(built):
    as_format_2(built)
    (built / "texts.txt").write_bytes(b"a\n" + b"x" * (1 << 20) + b"y\n")
    with pytest.raises(DataFormatError, match="texts.txt:2: line longer than 1048576 bytes"):
        load_index(built)
    (built / "texts.txt").write_text("\n".join(CORPUS + ["one more"]) + "\n")
    with pytest.raises(DataFormatError, match="texts.txt:7: more lines than the 6 the index holds"):
        load_index(built)
    (built / "texts.txt").write_text("\n".join(CORPUS) + "\n")
    with open(built / "vectors.safetensors", "ab") as handle:
        handle.write(b"\0" * (2 << 20))
    from parasent.errors import SpecialFileError

    with pytest.raises(SpecialFileError, match="vectors.safetensors: .* bytes, more than"):
        load_index(built)


def test_non_finite_vectors_are_refused(built):
    from safetensors.numpy import load_file, save_file

    as_format_2(built)

    vectors = load_file(str(built / "vectors.safetensors"))
    vectors["vectors"][2, 3] = np.nan
    save_file(vectors, str(built / "vectors.safetensors"))
    with pytest.raises(ModelFormatError, match="non-finite"):
        load_index(built)


def test_an_index_of_format_1_without_a_fingerprint_still_loads(built):
    info = json.loads((built / "index.json").read_text())
    del info["model_sha256"]
    info["format"] = 1
    (built / "index.json").write_text(json.dumps(info))
    assert load_index(built).search("a dog runs", top_k=1)[0]["text"] == "a dog runs"


def test_an_index_holds_the_model_as_it_is_int8_stays_int8(model, corpus, tmp_path):
    from parasent.core.model import load

    model.save(tmp_path / "q", dtype="int8")
    quantized = load(tmp_path / "q")
    path = build_index(quantized, corpus, tmp_path / "idx", progress=False)
    config = json.loads((path / "model" / "config.json").read_text())
    assert config["weights_dtype"] == "int8"
    size = (tmp_path / "q" / "model.safetensors").stat().st_size
    assert (path / "model" / "model.safetensors").stat().st_size <= 1.1 * size
    index = load_index(path)
    assert index.model.encode(CORPUS).tobytes() == quantized.encode(CORPUS).tobytes()
    recorded = set(json.loads((path / "index.json").read_text())["model_sha256"])
    assert recorded == {p.name for p in (path / "model").iterdir()} - {"README.md"}
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= recorded


def test_a_corpus_that_is_a_fifo_or_has_a_runaway_line_is_one_line(model, tmp_path):
    from parasent.errors import SpecialFileError

    os.mkfifo(tmp_path / "fifo.txt")
    error = _within(lambda: build_index(model, tmp_path / "fifo.txt", tmp_path / "idx", progress=False))
    assert isinstance(error, SpecialFileError) and "fifo.txt: a FIFO" in str(error)
    long = tmp_path / "long.txt"
    long.write_bytes(b"a man\n" + b"x" * (2 << 20) + b"\n")
    with pytest.raises(DataFormatError, match="long.txt:2: line longer than 1048576 bytes"):
        build_index(model, long, tmp_path / "idx", progress=False)
    assert not (tmp_path / "idx").exists()


def test_an_index_never_replaces_a_folder_of_other_files_without_overwrite(tmp_path, capsys):
    """`parasent index -o DIR` over a directory of someone's files: refused before encoding,
    nothing lost; over an earlier index: refused too (round 4); with --overwrite: replaced."""
    from parasent.cli import main

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("a man plays a guitar\na dog runs in a field\n")
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "main.py").write_text("print('mine')\n")
    assert main(["index", str(corpus), "-o", str(project), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "holds files that are not this kind of directory's (src)" in err and "--overwrite" in err
    assert (project / "src" / "main.py").read_text() == "print('mine')\n"
    index = tmp_path / "index"
    assert main(["index", str(corpus), "-o", str(index), "--quiet"]) == 0
    assert (
        main(["index", str(corpus), "-o", str(index), "--quiet"]) == 2
    )  # an earlier index is the user's too
    assert "holds index.json" in capsys.readouterr().err
    assert main(["index", str(corpus), "-o", str(index), "--quiet", "--overwrite"]) == 0
    assert main(["index", str(corpus), "-o", str(project), "--quiet", "--overwrite"]) == 0
    assert not (project / "src").exists() and (project / "index.json").is_file()


def test_an_empty_query_is_one_line_not_arbitrary_hits(tmp_path, capsys):
    from parasent.cli import main

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("a man plays a guitar\na dog runs in a field\n")
    assert main(["index", str(corpus), "-o", str(tmp_path / "idx"), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["query", str(tmp_path / "idx"), "  "]) == 2
    assert (
        capsys.readouterr().err.strip()
        == "parasent: error: query 1 is empty: an empty text matches nothing; give some words"
    )


def test_an_index_never_replaces_the_model_or_corpus_it_reads(model, corpus, tmp_path, capsys):
    """`index --model RUN -o RUN --overwrite` would delete the run before it was read."""
    run = tmp_path / "run"
    model.save(run / "model")
    shutil.copy(corpus, run / "corpus.txt")
    before = sorted(p.name for p in run.rglob("*"))
    for argv in (
        ["index", str(corpus), "-o", str(run), "--model", str(run), "--overwrite"],
        ["index", str(corpus), "-o", str(run), "--model", str(run / "model"), "--overwrite"],
        ["index", str(run / "corpus.txt"), "-o", str(run), "--overwrite"],
    ):
        assert main(argv) == 2
        assert "holds this command's input" in capsys.readouterr().err
    assert sorted(p.name for p in run.rglob("*")) == before


def test_a_leading_byte_order_mark_is_no_part_of_the_first_text(model, tmp_path):
    corpus = tmp_path / "bom.txt"
    corpus.write_bytes("\ufeffthe cat sat\r\na dog runs\n".encode())
    index = load_index(build_index(model, corpus, tmp_path / "idx", progress=False))
    assert index.texts[:2] == ["the cat sat", "a dog runs"]
