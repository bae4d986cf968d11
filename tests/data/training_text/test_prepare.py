import numpy as np
import pytest

from parasent.data.training_text.pools import build_pool, evaluation_sentences
from parasent.data.training_text.prepare import prepare_pairs
from parasent.data.training_text.shards import PreparedCorpus
from parasent.text.tokenizer import WordTokenizer
from parasent.text.vocab import build_vocabulary, count_words


@pytest.fixture()
def pair_files(mini_data_dir, tmp_path):
    """The mini pool's files plus a TSV with a leaked pair, a duplicate (reversed) and an empty side."""
    validation = (mini_data_dir / "sts/semeval/2016/headlines.test.tsv").read_text(encoding="utf-8")
    leaked = validation.splitlines()[0].split("\t")[1]
    lines = [
        "the cat sat\ta cat was sitting",
        "a cat was sitting\tthe cat sat",
        "x\t ",
        "Ünïcode wörds\tunicode words",
        f"{leaked.upper()}\tsomething else",
    ]
    extra = tmp_path / "extra.tsv"
    extra.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [
        (mini_data_dir / "paraphrase/twitter_url_corpus/train.tsv.gz", "labelled"),
        (mini_data_dir / "paraphrase/msrp/train.tsv", "labelled"),
        (extra, "tsv"),
    ]


def test_prepare_filters_like_the_pool_and_tokenizes_every_kept_pair(mini_data_dir, tmp_path, pair_files):
    forbidden = evaluation_sentences(mini_data_dir)
    kept, report = build_pool(mini_data_dir, None, files=pair_files, forbidden=forbidden)
    result = prepare_pairs(
        pair_files, tmp_path / "prep", forbidden=forbidden, vocabulary_words=["cat", "zebra"], shard_pairs=7
    )
    manifest = result.manifest
    assert manifest["filter"]["kept"] == dict(report.kept)
    assert manifest["filter"]["leaked"] == dict(report.leaked)
    assert manifest["filter"]["duplicates"] == report.duplicates >= 1
    assert manifest["filter"]["empty"] == report.empty == 1
    assert report.total_leaked >= 1
    corpus = PreparedCorpus.open(tmp_path / "prep")
    assert corpus.num_pairs == manifest["pairs"] == len(kept)
    assert corpus.num_shards == -(-len(kept) // 7)
    texts = [s for p in kept for s in (p.s1, p.s2)]
    words = build_vocabulary(["cat", "zebra"], count_words(texts))
    tokenizer = WordTokenizer.from_vocabulary(words)
    expected = tokenizer.encode_batch(texts)
    assert WordTokenizer.load(tmp_path / "prep").vocabulary() == tokenizer.vocabulary()
    flat, n = [], 0
    for k in range(corpus.num_shards):
        shard = corpus.shard(k)
        flat.extend(shard.sentences.sentence(j).tolist() for j in range(len(shard.sentences)))
        n += len(shard.sentences)
    assert flat == [expected.sentence(j).tolist() for j in range(len(expected))]
    counts = corpus.token_counts()
    assert counts.sum() == len(expected.ids) == manifest["tokens"]


def test_prepare_is_all_or_nothing_and_checks_shard_size(mini_data_dir, tmp_path, pair_files):
    with pytest.raises(ValueError, match="shard_pairs"):
        prepare_pairs(pair_files, tmp_path / "prep", forbidden=set(), shard_pairs=0)
    assert not (tmp_path / "prep").exists()
    missing = [(tmp_path / "missing.tsv", "tsv")]
    with pytest.raises(Exception):  # noqa: B017 - the reader's own error
        prepare_pairs(missing, tmp_path / "prep", forbidden=set())
    assert not (tmp_path / "prep").exists()


def test_sentence_ids_are_equal_for_equal_texts(mini_data_dir, tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text("a b\tc d\nc d\te f\n", encoding="utf-8")
    prepare_pairs([(path, "tsv")], tmp_path / "prep", forbidden=set())
    ids = PreparedCorpus.open(tmp_path / "prep").shard(0).sentence_ids
    assert ids[1] == ids[2] and len(np.unique(ids)) == 3


def test_hash_set_agrees_with_a_python_set_and_keeps_few_runs():
    from parasent.data.training_text.prepare import HashSet

    rng = np.random.default_rng(0)
    hashes, reference = HashSet(), set()
    for _ in range(200):
        keys = np.unique(rng.integers(0, 5000, size=int(rng.integers(0, 60))).astype(np.uint64))
        found = hashes.contains(keys)
        assert found.tolist() == [int(k) in reference for k in keys]
        hashes.add(keys[~found])
        reference.update(int(k) for k in keys)
        assert len(hashes) == len(reference)
        assert all(np.all(run[1:] > run[:-1]) for run in hashes.runs)
    assert len(hashes.runs) <= 2 * int(np.log2(len(reference))) + 1


def test_prepare_never_replaces_a_folder_of_other_files_without_overwrite(tmp_path):
    from parasent.data.training_text.prepare import prepare_pairs
    from parasent.errors import DirectoryInUseError

    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("a man plays\tsomeone plays\na dog runs\ta puppy runs\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    with pytest.raises(DirectoryInUseError, match=r"\(notes.txt\)"):
        prepare_pairs([(pairs, "tsv")], out, forbidden=set())
    assert (out / "notes.txt").read_text() == "mine\n"
    prepare_pairs([(pairs, "tsv")], out, forbidden=set(), overwrite=True)
    prepare_pairs([(pairs, "tsv")], out, forbidden=set())  # its own earlier version
    assert not (out / "notes.txt").exists() and (out / "manifest.json").is_file()


def test_prepare_never_writes_over_its_own_pair_file(mini_data_dir, tmp_path, capsys, monkeypatch):
    """`prepare DIR/pairs.tsv -o DIR --overwrite` would replace DIR, the pair file with it."""
    from parasent.cli import main

    (tmp_path / "p.tsv").write_text("1\ta cat sat\ta cat was sitting\n")
    monkeypatch.chdir(tmp_path)
    for argv in (["p.tsv:labelled", "-o", "."], [str(tmp_path / "p.tsv"), "-o", str(tmp_path)]):
        assert main(["prepare", *argv, "--data-dir", str(mini_data_dir), "--overwrite"]) == 2
        assert "holds this command's input" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.tsv"]


def test_an_earlier_prepared_set_is_replaced_on_the_command_line_only_with_overwrite(
    mini_data_dir, tmp_path, capsys
):
    """A prepared set may take hours: a second `prepare -o DIR` replaced it without a word."""
    from parasent.cli import main

    (tmp_path / "a.tsv").write_text("a man plays\tsomeone plays\na dog runs\ta puppy runs\n")
    (tmp_path / "b.tsv").write_text("the sun is up\tit is day\n")
    common = ["--data-dir", str(mini_data_dir), "-o", str(tmp_path / "out"), "--quiet", "--vectors", "none"]
    assert main(["prepare", str(tmp_path / "a.tsv"), *common]) == 0
    first = (tmp_path / "out" / "manifest.json").read_bytes()
    assert main(["prepare", str(tmp_path / "b.tsv"), *common]) == 2
    assert "not replacing it (pass --overwrite" in capsys.readouterr().err
    assert (tmp_path / "out" / "manifest.json").read_bytes() == first
    assert main(["prepare", str(tmp_path / "b.tsv"), *common, "--overwrite"]) == 0
    assert (tmp_path / "out" / "manifest.json").read_bytes() != first


def test_no_pair_to_prepare_is_an_error_not_an_empty_set(tmp_path):
    from parasent.errors import DataNotFoundError

    (tmp_path / "empty.tsv").write_text("")
    with pytest.raises(DataNotFoundError, match="empty.tsv: no pair to prepare"):
        prepare_pairs([(tmp_path / "empty.tsv", "tsv")], tmp_path / "out", forbidden=set())
    assert not (tmp_path / "out").exists()
