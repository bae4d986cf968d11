"""Training features of the architecture comparison: cumulative training from a trained model,
embedding dropout, length-bucketed batches, and what lambda_c pulls towards."""

import json

import numpy as np
import pytest
import torch

from parasent import load
from parasent.encoders.batch import TokenBatch
from parasent.encoders.word_averaging import WordAveraging
from parasent.text import Tokenized
from parasent.training.config import TrainConfig
from parasent.training.pairs import PairData
from parasent.training.run import assemble, train


def config(**overrides):
    base = dict(vectors="wordvecs/mini16.txt.gz", epochs=2, batch_size=16, lambda_w=1e-4, seed=3)
    base.update(overrides)
    return TrainConfig.from_flat(**base)


def quiet(**kwargs):
    return dict(progress=False, say=lambda _: None, **kwargs)


def test_cumulative_training_continues_a_model_and_keeps_the_best(mini_data_dir, tmp_path):
    first = train(config(encoder="cse"), tmp_path / "phrases", **quiet(data_dir=mini_data_dir))
    start = load(tmp_path / "phrases")
    second_pool = tmp_path / "sentences.tsv"
    second_pool.write_text("a big car is on the road\tthe large automobile is on the street\n" * 20)
    continued = train(
        config(
            encoder="cse",
            init_model=str(tmp_path / "phrases"),
            vectors=None,
            pool=None,
            pair_files=[[str(second_pool), "tsv"]],
        ),
        tmp_path / "cumulative",
        **quiet(data_dir=mini_data_dir),
    )
    history = continued.state.history
    assert history[0]["epoch"] == 0  # the starting model is scored first ...
    assert history[0]["validation"]["validation_mean_pearson"] == pytest.approx(
        first.state.best_score, abs=1e-6
    )
    assert continued.state.best_score >= first.state.best_score  # ... and kept unless beaten
    model = load(tmp_path / "cumulative")
    assert model.tokenizer.vocab_size == start.tokenizer.vocab_size  # same vocabulary
    assert model.metadata["epoch"] == continued.state.best_epoch
    from parasent.support.paths import portable_path

    # the start model by where it lay, made portable (no absolute path in a model's metadata)
    assert model.metadata["training"]["encoder"]["init_model"] == portable_path(tmp_path / "phrases")
    if continued.state.best_epoch == 0:
        assert np.array_equal(model.encode(["a big car"]), start.encode(["a big car"]))
    # the universal prior: lambda_w pulls to the continued model's vectors, lambda_c to its W_c
    trainer = assemble(
        config(encoder="cse", init_model=str(tmp_path / "phrases"), vectors=None, lambda_c=1.0),
        tmp_path / "again",
        **quiet(data_dir=mini_data_dir),
    ).trainer
    assert trainer.objective.composition.toward_initial
    assert float(trainer.objective.composition().detach()) == 0.0
    assert torch.equal(
        trainer.objective.pull.initial, torch.from_numpy(np.array(start.weights["embedding.weight"]))
    )
    with pytest.raises(ValueError, match="pass --encoder cse"):
        train(
            config(init_model=str(tmp_path / "phrases"), vectors=None),
            tmp_path / "wrong",
            **quiet(data_dir=mini_data_dir),
        )
    # a continued model keeps its own settings: a differing one is refused, not dropped
    assert start.encoder_config["feature_maps"] != [3]
    with pytest.raises(ValueError, match=r"feature_maps=\[3\]: --init-model .* holds feature_maps="):
        train(
            config(
                encoder="cse",
                init_model=str(tmp_path / "phrases"),
                vectors=None,
                encoder_options={"feature_maps": [3]},
            ),
            tmp_path / "other",
            **quiet(data_dir=mini_data_dir),
        )


def test_composition_prior_per_encoder_and_override(mini_data_dir, tmp_path):
    def prior(**kwargs):
        trainer = assemble(config(**kwargs), tmp_path / "run", **quiet(data_dir=mini_data_dir)).trainer
        return trainer.objective.composition.toward_initial

    assert prior(encoder="identity_rnn", lambda_c=1.0)
    assert not prior(encoder="rnn", lambda_c=1.0)
    assert prior(encoder="rnn", lambda_c=1.0, composition_prior="initial")
    assert not prior(encoder="identity_rnn", lambda_c=1.0, composition_prior="zero")


def test_character_models_pull_towards_zero(mini_data_dir, tmp_path):
    trainer = assemble(
        config(encoder="charagram", max_ngrams=50), tmp_path / "run", **quiet(data_dir=mini_data_dir)
    ).trainer
    assert trainer.tokenizer.vocab_size == 52  # capped n-gram vocabulary plus [PAD] and [UNK]
    assert not trainer.objective.pull.initial.any()  # lambda_w is L2 on W, as the supplement's lambda


def test_embedding_dropout_only_while_training():
    torch.manual_seed(0)
    encoder = WordAveraging(10, 64)
    encoder.set_embeddings(torch.randn(10, 64))
    batch = TokenBatch.from_tokenized(Tokenized.from_lists([[2, 3, 4], [5]]))
    clean = encoder(batch).detach()
    encoder.dropout = 0.5
    noisy = encoder(batch)
    assert not torch.allclose(noisy, clean)
    noisy.sum().backward()
    assert encoder.embedding.weight.grad.is_sparse
    encoder.eval()
    torch.testing.assert_close(encoder(batch), clean)
    # the dropped-out sum: each token vector elementwise zeroed or scaled by 1 / (1 - p)
    encoder.train()
    torch.manual_seed(7)
    total = encoder.embed_sum(batch)
    torch.manual_seed(7)
    vectors = torch.nn.functional.dropout(encoder.embedding.weight[[2, 3, 4, 5]], 0.5)
    torch.testing.assert_close(total, torch.stack([vectors[:3].sum(0), vectors[3]]))


def test_dropout_option_reaches_the_encoder_and_changes_training(mini_data_dir, tmp_path):
    plain = train(config(epochs=1, validation=None), tmp_path / "plain", **quiet(data_dir=mini_data_dir))
    dropped = train(
        config(epochs=1, validation=None, dropout=0.3), tmp_path / "drop", **quiet(data_dir=mini_data_dir)
    )
    assert dropped.encoder.dropout == 0.3
    assert not np.array_equal(
        load(tmp_path / "plain").weights["embedding.weight"],
        load(tmp_path / "drop").weights["embedding.weight"],
    )
    assert plain.state.step == dropped.state.step


def test_length_buckets_group_similar_lengths_deterministically():
    lengths = np.random.default_rng(0).integers(1, 40, size=1005)
    sentences = Tokenized.from_lists([[2] * n for n in lengths])
    pairs = np.stack([np.arange(1005), np.arange(1005)], axis=1)
    data = PairData(sentences, pairs, length_buckets=5)
    order = data.order(epoch=2, seed=1, batch_size=10)
    assert sorted(order.tolist()) == list(range(1005))
    assert np.array_equal(order, data.order(epoch=2, seed=1, batch_size=10))
    assert not np.array_equal(order, data.order(epoch=3, seed=1, batch_size=10))
    spread = [np.ptp(lengths[order[i : i + 10]]) for i in range(0, 1000, 10)]
    random_spread = [np.ptp(lengths[i : i + 10]) for i in range(0, 1000, 10)]
    assert np.mean(spread) < np.mean(random_spread) / 3
    tail = np.random.default_rng([1, 2]).permutation(1005)[1000:]  # the last, partial chunk ...
    assert sorted(order[1000:].tolist()) == sorted(tail.tolist())  # ... is the last batch
    assert len(list(data.batches(0, 1, 10))) == 101
    assert data.fingerprint() != PairData(sentences, pairs).fingerprint()


def test_length_bucket_option_is_part_of_the_run(mini_data_dir, tmp_path):
    result = train(
        config(epochs=1, length_buckets=4, validation=None), tmp_path / "run", **quiet(data_dir=mini_data_dir)
    )
    record = [json.loads(x) for x in (tmp_path / "run" / "log.jsonl").read_text().splitlines()][0]
    assert record["config"]["data"]["length_buckets"] == 4 and result.state.step > 0


def test_pull_applies_to_the_rows_of_the_initial_vectors_only(mini_data_dir, tmp_path):
    from parasent.text.word_vectors import read_word_vectors

    words = set(read_word_vectors(mini_data_dir / "wordvecs/mini16.txt.gz").words)
    extra = tmp_path / "extra.tsv"
    extra.write_text("zorblax quux\tquux zorblax\n" * 4)
    trainer = assemble(
        config(pull="exact", pair_files=[[str(extra), "tsv"]]),
        tmp_path / "run",
        **quiet(data_dir=mini_data_dir),
    ).trainer
    tokenizer, pull = trainer.tokenizer, trainer.objective.pull
    assert pull.mode == "exact"
    new_words = [w for w in tokenizer.tokenizer.get_vocab() if w not in words and not w.startswith("[")]
    assert sorted(new_words) == ["quux", "zorblax"]  # words the vectors lack get rows, but no pull
    assert not pull.pulled[[tokenizer.token_to_id(w) for w in new_words]].any()
    assert pull.pulled[[tokenizer.token_to_id(w) for w in words]].all()
    everything = assemble(config(pull_rows="all"), tmp_path / "all", **quiet(data_dir=mini_data_dir)).trainer
    assert everything.objective.pull.pulled.all()  # the lazy pull as it was, on request


def test_paper_vocabulary_adds_no_training_words(mini_data_dir, tmp_path):
    from parasent.text.word_vectors import read_word_vectors

    vectors = read_word_vectors(mini_data_dir / "wordvecs/mini16.txt.gz")
    trainer = assemble(
        config(vocabulary="initial"), tmp_path / "run", **quiet(data_dir=mini_data_dir)
    ).trainer
    assert trainer.tokenizer.vocab_size == 2 + len(set(vectors.words))  # [PAD], [UNK] and the vectors' words
    assert trainer.objective.pull.pulled.sum() == len(set(vectors.words))


def test_each_encoder_has_its_paper_lambda_c_by_default(mini_data_dir, tmp_path):
    from parasent.encoders import ENCODERS

    assert ENCODERS["identity_rnn"].lambda_c == 1.0 and ENCODERS["word_averaging"].lambda_c == 0.0
    trainer = assemble(
        config(encoder="identity_rnn"), tmp_path / "run", **quiet(data_dir=mini_data_dir)
    ).trainer
    assert trainer.objective.composition.weight == 1.0  # regularised to the identity by default
    assert trainer.objective.composition.toward_initial
    assert TrainConfig.from_flat(encoder="identity_rnn", lambda_c=0.0).composition_weight == 0.0
    assert TrainConfig.from_flat(encoder="projection").composition_weight == 1e-4


def test_freeze_words_keeps_the_word_vectors(mini_data_dir, tmp_path):
    result = train(
        config(encoder="projection", freeze_words=True, epochs=1, validation=None),
        tmp_path / "run",
        **quiet(data_dir=mini_data_dir),
    )
    assert not result.encoder.embedding.weight.requires_grad
    start = assemble(
        config(encoder="projection"), tmp_path / "start", **quiet(data_dir=mini_data_dir)
    ).trainer
    assert torch.equal(result.encoder.embedding.weight.detach(), start.encoder.embedding.weight.detach())
    assert result.state.step > 0
    with pytest.raises(ValueError, match="nothing to train"):
        TrainConfig.from_flat(freeze_words=True)  # word averaging has only its word vectors
