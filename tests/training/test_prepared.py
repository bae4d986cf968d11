import numpy as np
import pytest

from parasent import load
from parasent.data.training_text.pools import build_pool
from parasent.data.training_text.prepare import prepare_pairs
from parasent.training.config import TrainConfig
from parasent.training.prepared import PreparedPairs
from parasent.training.run import train
from parasent.training.trainer import TrainingInterrupted


@pytest.fixture()
def prepared_dir(mini_data_dir, tmp_path):
    files = [
        (mini_data_dir / "paraphrase/twitter_url_corpus/train.tsv.gz", "labelled"),
        (mini_data_dir / "paraphrase/msrp/train.tsv", "labelled"),
    ]
    prepare_pairs(files, tmp_path / "prep", forbidden=set(), shard_pairs=70)
    return tmp_path / "prep"


def test_epoch_order_is_a_seeded_permutation_shard_by_shard(prepared_dir):
    data = PreparedPairs.open(prepared_dir)
    n = len(data)
    assert data.corpus.num_shards > 2
    order = data.positions(epoch=0, seed=1, start=0, stop=n)
    assert sorted(order.tolist()) == list(range(n))
    assert np.array_equal(order, PreparedPairs.open(prepared_dir).positions(0, 1, 0, n))
    assert not np.array_equal(order, data.positions(1, 1, 0, n))
    # the first shard of the epoch order is read whole before the next one starts
    first = data.shard_order(0, 1)[0]
    size = int(data.corpus.shard_pairs[first])
    assert set(order[:size].tolist()) == set(range(data.starts[first], data.starts[first + 1]))
    # batches straddling shards are the same pairs as the order says
    batches = list(data.batches(0, 1, 32))
    assert sum(len(b) for b in batches) == n
    assert len(data._open) <= 2


def test_batches_hold_the_prepared_pairs(mini_data_dir, prepared_dir):
    data = PreparedPairs.open(prepared_dir)
    tokenizer = data.tokenizer()
    files = [
        (mini_data_dir / "paraphrase/twitter_url_corpus/train.tsv.gz", "labelled"),
        (mini_data_dir / "paraphrase/msrp/train.tsv", "labelled"),
    ]
    kept, _ = build_pool(mini_data_dir, None, files=files, forbidden=set())
    rows = np.array([5, 150, 3, len(data) - 1])
    batch = data.batch(rows)
    for position, row in enumerate(rows):
        left = tokenizer.encode_batch([kept[row].s1]).ids.tolist()
        start, length = int(batch.left.offsets[position]), int(batch.left.lengths[position])
        assert batch.left.ids[start : start + length].tolist() == left


def weights(run):
    return load(run).weights["embedding.weight"]


def test_prepared_run_resumes_bit_exact(mini_data_dir, prepared_dir, tmp_path, monkeypatch):
    config = TrainConfig.from_flat(
        prepared=str(prepared_dir), pool=None, vectors="wordvecs/mini16.txt.gz", epochs=2, batch_size=16,
        validation=None, seed=4,
    )  # fmt: skip
    quiet = dict(data_dir=mini_data_dir, progress=False, say=lambda _: None)
    full = train(config, tmp_path / "full", **quiet)

    from parasent.training import trainer as trainer_module

    original = trainer_module.Trainer.__init__

    def stopping(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.on_step = lambda t: t.request_stop("test") if t.state.step == 9 else None

    monkeypatch.setattr(trainer_module.Trainer, "__init__", stopping)
    with pytest.raises(TrainingInterrupted):
        train(config, tmp_path / "cut", **quiet)
    monkeypatch.setattr(trainer_module.Trainer, "__init__", original)
    resumed = train(config, tmp_path / "cut", resume=True, **quiet)
    assert resumed.state.step == full.state.step
    assert np.array_equal(weights(tmp_path / "cut"), weights(tmp_path / "full"))


def test_prepared_refuses_pool_options(prepared_dir):
    with pytest.raises(ValueError, match=r"--prepared .*: drop --pool standard \(--pool none\)"):
        TrainConfig.from_flat(prepared=str(prepared_dir))  # the default pool is still set
    with pytest.raises(
        ValueError, match="--objective siamese-cbow does not train on them"
    ):  # not "drop length_buckets"
        TrainConfig.from_flat(
            prepared=str(prepared_dir), pool=None, objective="siamese-cbow", corpus="standard"
        )


@pytest.mark.parametrize("damage", ["truncated", "bytes", "offsets"])
def test_a_damaged_shard_is_named_before_training_not_as_numpy_hundreds_of_steps_in(prepared_dir, damage):
    """A truncated shard failed 400 steps in with a bare "mmap length is greater than file
    size"; random bytes with numpy's advice on pickles; a wrong offset with a 7 TiB allocation."""
    from parasent.data.training_text.shards import PreparedCorpus
    from parasent.errors import DataFormatError

    ids, offsets = prepared_dir / "shard-00001.ids.npy", prepared_dir / "shard-00001.offsets.npy"
    if damage == "truncated":
        ids.write_bytes(ids.read_bytes()[:-40])
    elif damage == "bytes":
        ids.write_bytes(np.random.default_rng(0).bytes(len(ids.read_bytes())))
    else:
        values = np.load(offsets)
        values[3] = 10**12
        np.save(offsets, values)
    with pytest.raises(DataFormatError, match=r"shard-00001\.(ids|offsets)\.npy:1: .*damaged shard"):
        corpus = PreparedCorpus.open(prepared_dir)
        for index in range(corpus.num_shards):
            corpus.shard(index)


def test_a_prepared_set_trains_only_under_its_own_guard_and_the_model_records_it(
    mini_data_dir, tmp_path, capsys
):
    """`parasent prepare` filtered the pairs by the guard it was given; a run under another guard
    is refused naming both, and the model records the prepared set's guard (what evaluate's
    domain-test warning reads), not nothing."""
    import shutil

    from parasent.cli import main
    from parasent.core.model_card import domain_tests_kept_out

    root = tmp_path / "data"
    shutil.copytree(mini_data_dir, root)
    (root / "paraphrase/msrp/test.tsv").write_text("1\tan msrp test sentence\tits paraphrase\n")
    pairs = tmp_path / "mine.tsv"
    pairs.write_text(
        "an msrp test sentence\tits paraphrase\n" + "".join(f"the car {i}\ta car {i}\n" for i in range(40))
    )
    for guard, dropped in (("on", 1), ("suites", 0)):  # on: the msrp test pair; suites keeps it
        argv = ["prepare", f"{pairs}:tsv", "--out", str(tmp_path / guard), "--data-dir", str(root), "--quiet"]
        argv += ["--vectors", "wordvecs/mini16.txt.gz"]
        assert main([*argv, "--leakage-guard", guard]) == 0
        said = capsys.readouterr().err
        assert f"dropped {dropped} leaked" in said
        assert ("quora_bimpm/test, paws_wiki/test, twitter-url/test not there" in said) == (
            guard == "on"
        )  # the splits it lacks
        assert (
            "leakage guard suites: pairs sharing a sentence with a domain test split are kept" in said
        ) == (guard == "suites")
    options = dict(pool=None, vectors="wordvecs/mini16.txt.gz", epochs=1, batch_size=16, validation=None)
    quiet = dict(data_dir=root, progress=False, say=lambda _: None)
    with pytest.raises(ValueError, match="prepared with --leakage-guard suites, and this run's is on"):
        train(TrainConfig.from_flat(prepared=str(tmp_path / "suites"), **options), tmp_path / "run", **quiet)
    train(TrainConfig.from_flat(prepared=str(tmp_path / "on"), **options), tmp_path / "on-run", **quiet)
    suites = TrainConfig.from_flat(prepared=str(tmp_path / "suites"), leakage_guard="suites", **options)
    train(suites, tmp_path / "suites-run", **quiet)
    assert domain_tests_kept_out(load(tmp_path / "on-run").metadata) == ["msrp/test"]
    told = []  # a set that does not say its guard (prepare_pairs without guard=) is taken, and said to be
    prepare_pairs([(pairs, "tsv")], tmp_path / "unsaid", forbidden=set(), vocabulary_words=["the", "car"])
    train(
        TrainConfig.from_flat(prepared=str(tmp_path / "unsaid"), **options),
        tmp_path / "unsaid-run",
        **{**quiet, "say": told.append},
    )
    assert any("does not record the leakage guard" in line for line in told)
    assert domain_tests_kept_out(load(tmp_path / "unsaid-run").metadata) == []
    manifest = tmp_path / "suites" / "manifest.json"  # an edited manifest: no advice to train with it
    manifest.write_text(manifest.read_text().replace('"leakage_guard": "suites"', '"leakage_guard": "none"'))
    with pytest.raises(
        ValueError, match="records a leakage guard 'none', not one of on, suites, off: prepare"
    ):
        train(
            TrainConfig.from_flat(prepared=str(tmp_path / "suites"), **options),
            tmp_path / "none-run",
            **quiet,
        )
    assert load(tmp_path / "suites-run").metadata["pool"]["leakage_guard"] == "suites"
    assert domain_tests_kept_out(load(tmp_path / "suites-run").metadata) == []
