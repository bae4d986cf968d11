import numpy as np
import pytest
import torch

from parasent import load
from parasent.encoders.batch import TokenBatch
from parasent.objectives.megabatch import localize, select_in_megabatch, take_sentences
from parasent.training.config import TrainConfig
from parasent.training.run import train
from parasent.training.trainer import TrainingInterrupted


def unit(*rows):
    return torch.tensor(rows, dtype=torch.float32)


def test_max_negative_comes_from_another_mini_batch_but_never_the_pair_or_a_duplicate():
    # two mini-batches of two pairs: order [l0 l1 r0 r1 | l2 l3 r2 r3]
    vectors = unit(
        [1, 0, 0], [0, 1, 0], [1, 0.1, 0], [0, 1, 0.1],  # batch 0
        [0.99, 0.12, 0], [0, 0, 1], [0, 0.1, 1], [0, 0.2, 1],  # batch 1
    )  # fmt: skip
    ids = torch.tensor([10, 11, 12, 13, 14, 15, 16, 17])
    (t1, t2, has1, has2), _ = select_in_megabatch(vectors, [2, 2], ids)
    assert has1.all() and has2.all()
    assert t1[0].item() == 4  # l0's nearest outside its pair is l2, in the other mini-batch
    # a duplicate of l0 (same id) in the other mini-batch is never its negative
    ids_dup = ids.clone()
    ids_dup[4] = 10
    (t1, t2, _, _), _ = select_in_megabatch(vectors, [2, 2], ids_dup)
    assert t1[0].item() != 4 and t1[0].item() not in (0, 2)
    # and a pair never takes its own sides
    chosen = select_in_megabatch(vectors, [2, 2], ids)
    start = 0
    for size, (t1, t2, _, _) in zip([2, 2], chosen, strict=True):
        for row in range(size):
            own = {start + row, start + size + row}
            assert t1[row].item() not in own and t2[row].item() not in own
        start += 2 * size


def test_single_mini_batch_equals_the_in_batch_max():
    from parasent.objectives.margin import margin_loss

    torch.manual_seed(0)
    g = torch.randn(12, 5)
    ids = torch.tensor([0, 1, 2, 3, 4, 5, 6, 0, 8, 9, 10, 11])  # a repeated sentence
    ((t1, t2, has1, has2),) = select_in_megabatch(g, [6], ids)
    expected, _ = margin_loss(g[:6], g[6:], ids1=ids[:6], ids2=ids[6:])
    got, _ = margin_loss(g[:6], g[6:], chosen=(t1, t2, has1, has2))
    assert torch.equal(expected, got)


def test_localize_gathers_the_negatives_from_other_mini_batches():
    pool = TokenBatch(torch.arange(16), torch.arange(0, 16, 2), torch.full((8,), 2))
    t1, t2 = torch.tensor([5, 2]), torch.tensor([0, 7])
    chosen = localize((t1, t2, torch.ones(2, dtype=bool), torch.ones(2, dtype=bool)), 0, 2, pool)
    # inside: 2 -> 2, 0 -> 0; outside: 5 and 7 become extra rows 0 and 1 (local 4, 5)
    assert chosen.index1.tolist() == [4, 2] and chosen.index2.tolist() == [0, 5]
    assert chosen.extra.ids.tolist() == [10, 11, 14, 15]
    assert take_sentences(pool, torch.tensor([3])).ids.tolist() == [6, 7]


def config(**overrides):
    base = dict(vectors="wordvecs/mini16.txt.gz", epochs=2, batch_size=16, seed=3, validation=None)
    return TrainConfig.from_flat(**{**base, **overrides})


def weights(run):
    return load(run).weights["embedding.weight"]


def test_megabatch_of_one_trains_exactly_like_the_mini_batch(mini_data_dir, tmp_path):
    quiet = dict(data_dir=mini_data_dir, progress=False, say=lambda _: None)
    train(config(), tmp_path / "plain", **quiet)
    train(config(megabatch=1, megabatch_anneal=1000), tmp_path / "mega1", **quiet)  # wrapped, M stays 1
    train(config(megabatch=4), tmp_path / "mega4", **quiet)
    assert np.allclose(weights(tmp_path / "plain"), weights(tmp_path / "mega1"), atol=1e-6)
    assert not np.allclose(weights(tmp_path / "plain"), weights(tmp_path / "mega4"), atol=1e-6)


def test_megabatch_resumes_inside_a_group_bit_exact(mini_data_dir, tmp_path, monkeypatch):
    quiet = dict(data_dir=mini_data_dir, progress=False, say=lambda _: None)
    cfg = config(megabatch=5, megabatch_anneal=3)
    full = train(cfg, tmp_path / "full", **quiet)
    from parasent.training import trainer as trainer_module

    original = trainer_module.Trainer.__init__

    def stopping(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.on_step = lambda t: t.request_stop("test") if t.state.step == 13 else None

    monkeypatch.setattr(trainer_module.Trainer, "__init__", stopping)
    with pytest.raises(TrainingInterrupted):
        train(cfg, tmp_path / "cut", **quiet)
    monkeypatch.setattr(trainer_module.Trainer, "__init__", original)
    resumed = train(cfg, tmp_path / "cut", resume=True, **quiet)
    assert resumed.state.step == full.state.step
    assert np.array_equal(weights(tmp_path / "cut"), weights(tmp_path / "full"))


def test_groups_grow_with_annealing():
    from parasent.training.megabatch import MegabatchData

    class Pairs:
        def num_batches(self, batch_size):
            return 10

    data = MegabatchData(Pairs(), torch.nn.Identity(), 3, anneal=2)
    assert data.groups(0, 16) == [(0, 1), (1, 1), (2, 2), (4, 3), (7, 3)]
    assert MegabatchData(Pairs(), torch.nn.Identity(), 4).groups(0, 16) == [(0, 4), (4, 4), (8, 2)]


def test_a_fine_tune_takes_its_plain_pairs_negatives_from_the_mega_batch(mini_data_dir, tmp_path):
    """The fine-tuning objective (``--init-model``) read no mega-batch negatives: --megabatch
    changed nothing. Now M = 1 trains as the mini-batch does and M = 4 otherwise; labelled pairs
    of the same batches keep their ranking term."""
    from tests.training.test_fine_tuning import jargon_pairs

    labelled = jargon_pairs(60, seed=5).splitlines()
    plain = "\n".join("\t".join(line.split("\t")[1:]) for line in labelled if line.startswith("1"))
    (tmp_path / "plain.tsv").write_text(plain + "\n")
    (tmp_path / "labelled.tsv").write_text("\n".join(labelled[:20]) + "\n")
    only_plain = [[str(tmp_path / "plain.tsv"), "tsv"]]
    both = [*only_plain, [str(tmp_path / "labelled.tsv"), "labelled"]]
    quiet = dict(data_dir=mini_data_dir, progress=False, say=lambda _: None)

    def fine_tune(name, files, **options):
        run = TrainConfig.preset(
            "margin", recipe="finetune", init_model="default", vectors=None, pair_files=files,
            validation=None, epochs=1, batch_size=8, seed=3, **options,
        )  # fmt: skip
        train(run, tmp_path / name, **quiet)
        return load(tmp_path / name).encode(plain.splitlines()[:20])  # the rows are int8: their vectors

    plain_run = fine_tune("plain", only_plain)
    assert np.allclose(
        plain_run, fine_tune("mega1", only_plain, megabatch=1, megabatch_anneal=1000), atol=1e-6
    )
    assert not np.allclose(plain_run, fine_tune("mega4", only_plain, megabatch=4), atol=1e-6)
    mixed = fine_tune("mixed1", both, megabatch=1, megabatch_anneal=1000)
    assert not np.allclose(mixed, fine_tune("mixed4", both, megabatch=4), atol=1e-6)
