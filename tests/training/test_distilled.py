"""The teacher-distilled recipe end to end on tiny data, with a tiny sentence-transformers teacher."""

import json

import numpy as np
import pytest

from parasent import load
from parasent.cli import main
from parasent.data.training_text.leakage import normalize_for_leakage
from parasent.data.training_text.pools import build_pool, evaluation_sentences
from parasent.distillation.cache import CachedTeacher
from parasent.distillation.unlabelled import unlabelled_sentences
from parasent.text.word_vectors import read_word_vectors
from parasent.training.config import RECIPES, TrainConfig, resolve_recipe
from parasent.training.run import train

pytest.importorskip("sentence_transformers")


def distilled_config(teacher, cache, **overrides):
    base = dict(
        vectors="distilled",
        teacher=str(teacher),
        teacher_weight=1.0,
        optimizer="adam",
        epochs=2,
        batch_size=16,
        teacher_batch_size=16,
        distill_vocab=20,
        cache_dir=str(cache),
        seed=3,
    )
    base.update(overrides)
    return TrainConfig.from_flat(**base)


def test_unlabelled_sentences_never_include_evaluation_sentences(text_data_dir, tmp_path):
    from parasent.data.registry.catalog import suite_datasets

    forbidden = evaluation_sentences(text_data_dir)
    pairs, _ = build_pool(text_data_dir, "standard", forbidden=forbidden)
    evaluation_sentence = suite_datasets("validation")[0].load(text_data_dir)[0].s1
    extra = tmp_path / "mine.txt"
    extra.write_text(f"{evaluation_sentence.upper()}\na sentence of my own\n")
    sentences, counts = unlabelled_sentences(["corpus", "pool", str(extra)], text_data_dir, pairs, forbidden)
    assert counts["leaked"] >= 1  # the upper-cased evaluation sentence at least
    assert "a sentence of my own" in sentences
    assert not any(normalize_for_leakage(s) in forbidden for s in sentences)
    assert len(sentences) == len(set(sentences))
    assert counts["pool"] > 0 and counts["gutenberg"] > 0 and counts["movie_reviews"] > 0
    sampled, sampled_counts = unlabelled_sentences(["corpus", "pool:25"], text_data_dir, pairs, forbidden)
    assert sampled_counts["pool"] == 25 and len(sampled) == len(sentences) - counts["pool"] - 1 + 25
    limited, _ = unlabelled_sentences(["corpus"], text_data_dir, pairs, forbidden, limit=10)
    assert len(limited) == 10


def test_distilled_training_end_to_end_and_exact_resume(
    text_data_dir, tiny_teacher_dir, tmp_path, monkeypatch
):
    cache = tmp_path / "cache"
    config = distilled_config(tiny_teacher_dir, cache)
    result = train(config, tmp_path / "full", data_dir=text_data_dir, progress=False, say=lambda _: None)
    model = load(tmp_path / "full")
    meta = model.metadata
    assert meta["distilled"]["weighting"] == "sif" and meta["teacher"]["fingerprint"]
    assert meta["teacher_sentences"]["leaked"] >= 0 and meta["teacher_sentences"]["pool"] > 0
    assert model.dim == 8 and result.state.best_epoch is not None
    log = [json.loads(line) for line in (tmp_path / "full" / "log.jsonl").read_text().splitlines()]
    assert any("teacher_cos" in r for r in log if r["event"] == "step") or len(log) > 0
    # the cache now holds every word and sentence: a second run never loads the teacher
    from parasent.distillation import teacher as teacher_module

    def refuse(*args, **kwargs):
        raise AssertionError("teacher loaded although everything is cached")

    monkeypatch.setattr(teacher_module.Teacher, "__init__", refuse)
    from parasent.training import trainer as trainer_module

    original_init = trainer_module.Trainer.__init__

    def stopping_init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        self.on_step = lambda t: t.request_stop("test stop") if t.state.step == 5 else None

    monkeypatch.setattr(trainer_module.Trainer, "__init__", stopping_init)
    with pytest.raises(trainer_module.TrainingInterrupted):
        train(config, tmp_path / "cut", data_dir=text_data_dir, progress=False, say=lambda _: None)
    monkeypatch.setattr(trainer_module.Trainer, "__init__", original_init)
    resumed = train(
        config, tmp_path / "cut", data_dir=text_data_dir, resume=True, progress=False, say=lambda _: None
    )
    assert resumed.state.step == result.state.step
    assert np.array_equal(
        load(tmp_path / "cut").weights["embedding.weight"], model.weights["embedding.weight"]
    )


def test_regression_alone_pulls_the_student_toward_the_teacher(text_data_dir, tiny_teacher_dir, tmp_path):
    """With only the teacher objective, training raises the student-teacher cosine on held-out text."""
    cache = tmp_path / "cache"
    config = distilled_config(
        tiny_teacher_dir, cache, pool=None, teacher_text=["gutenberg"], epochs=6, lr=0.01, validation=None
    )
    train(config, tmp_path / "run", data_dir=text_data_dir, progress=False, say=lambda _: None)
    student = load(tmp_path / "run")
    teacher = CachedTeacher(str(tiny_teacher_dir), cache_dir=cache, progress=False)
    held_out = ["the big car is on the road .", "a happy kid and a dog", "the lady talks with a guy"]
    target = teacher.encode(held_out)
    initial = read_vectors_model(teacher, student, text_data_dir)
    before = cos(initial.encode(held_out), target)
    after = cos(student.encode(held_out), target)
    assert after.mean() > before.mean()


def read_vectors_model(teacher, student, data_dir):
    from parasent.core.model import SentenceModel
    from parasent.data.readers.wordfreq import read_word_frequencies
    from parasent.distillation.words import distill_word_vectors

    words = [w for w in student.tokenizer.vocabulary()[2:]]
    frequencies = read_word_frequencies(data_dir / "wordfreq/enwiki_vocab_min200.txt.gz")
    vectors = distill_word_vectors(teacher.encode, words, frequencies=frequencies).vectors
    return SentenceModel.from_vectors(vectors)


def cos(a, b):
    return (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1) + 1e-12)


def test_word_bigrams_start_at_zero_train_and_resume(text_data_dir, tiny_teacher_dir, tmp_path):
    from parasent.text.word_bigrams import JOINER, WordBigramTokenizer

    config = distilled_config(tiny_teacher_dir, tmp_path / "cache", word_bigrams=40, epochs=1)
    lines: list[str] = []
    train(config, tmp_path / "run", data_dir=text_data_dir, progress=False, say=lines.append)
    model = load(tmp_path / "run")
    assert isinstance(model.tokenizer, WordBigramTokenizer)
    rows = model.tokenizer.bigram_ids
    assert len(rows) == 40 and all(JOINER in t for t in np.array(model.tokenizer.vocabulary())[rows])
    assert any("40 word bigrams (rows from zero)" in line for line in lines)
    table = np.asarray(model.weights["embedding.weight"])
    assert np.count_nonzero(np.abs(table[rows]).sum(1)) > 0  # trained away from zero
    again = train(
        config, tmp_path / "run", data_dir=text_data_dir, resume=True, progress=False, say=lambda _: None
    )
    assert again.state.epoch == 1 and isinstance(load(tmp_path / "run").tokenizer, WordBigramTokenizer)


def test_piece_rows_are_distilled_and_trained_and_stand_in_for_unknown_words(
    text_data_dir, tiny_transformer_teacher_dir, tmp_path
):
    from parasent.text.word_pieces import is_piece_token

    config = distilled_config(
        tiny_transformer_teacher_dir,
        tmp_path / "cache",
        unknown="pieces",
        piece_view=0.5,
        typo_view=0.3,
        distill_context=True,
        word_bigrams=10,
        epochs=1,
    )
    lines: list[str] = []
    train(config, tmp_path / "run", data_dir=text_data_dir, progress=False, say=lines.append)
    model = load(tmp_path / "run")
    vocabulary = model.tokenizer.vocabulary()
    pieces = [i for i, token in enumerate(vocabulary) if is_piece_token(token)]
    assert len(pieces) == model.tokenizer.config()["pieces"] > 0
    assert "[p]##ing" in vocabulary and "[p][CLS]" not in vocabulary
    assert any("words and pieces take their mean contextual vector" in line for line in lines)
    assert any(line.startswith("teacher pass: ") and " on this machine (resumable" in line for line in lines)
    table = np.asarray(model.weights["embedding.weight"])
    assert np.count_nonzero(np.abs(table[pieces]).sum(1)) == len(pieces)
    # "talkinger" is no word of the training text: its pieces (talk ##ing ##er) stand in for it
    assert model.tokenizer.encode_batch(["talkinger"]).ids.tolist() == [
        vocabulary.index(t) for t in ("[p]talk", "[p]##ing", "[p]##er")
    ]
    assert model.similarity_pairwise("zzzz qqqq", "xxxx wwww") < 0.999
    resumed = train(
        config, tmp_path / "run", data_dir=text_data_dir, resume=True, progress=False, say=lambda _: None
    )
    assert resumed.state.epoch == 1 and load(tmp_path / "run").tokenizer.unknown == "pieces"


def test_pieces_options_are_checked():
    with pytest.raises(ValueError, match="needs --vectors distilled"):
        TrainConfig.from_flat(unknown="pieces")
    with pytest.raises(ValueError, match="needs --unknown pieces"):
        TrainConfig.from_flat(vectors="distilled", teacher="auto", teacher_weight=1.0, piece_view=0.2)
    with pytest.raises(ValueError, match=r"piece_view must be in \[0, 1\)"):
        TrainConfig.from_flat(piece_view=1.5)
    with pytest.raises(ValueError, match="--typo-view adds teacher targets"):
        TrainConfig.from_flat(typo_view=0.1)


def test_pca_distillation_projects_the_targets(text_data_dir, tiny_teacher_dir, tmp_path):
    config = distilled_config(tiny_teacher_dir, tmp_path / "cache", distill_pca=4, epochs=1)
    train(config, tmp_path / "run", data_dir=text_data_dir, progress=False, say=lambda _: None)
    assert load(tmp_path / "run").dim == 4


def test_recipes_and_config_validation(monkeypatch):
    from parasent.distillation import teacher as teacher_module

    monkeypatch.setattr(teacher_module, "teacher_available", lambda: False)
    assert resolve_recipe("auto") == "paper"
    monkeypatch.setattr(teacher_module, "teacher_available", lambda: True)
    assert resolve_recipe("auto") == "distilled"
    config = TrainConfig.preset("margin", recipe="distilled", epochs=3)
    assert config.epochs == 3 and config.encoder.vectors == "distilled" and config.teacher.model == "auto"
    assert TrainConfig.preset("margin", recipe="paper") == TrainConfig()
    assert set(RECIPES) == {"paper", "distilled", "finetune", "contextual"}
    general = TrainConfig.preset("margin", recipe="contextual")  # a valid run: the teacher's terms alone
    assert general.objective.margin_weight == 0 and general.teacher.teacher_batches == "neighbours"
    assert general.teacher.teacher_tokens > 0 and general.teacher.teacher_relational > 0
    assert general.encoder.freeze_words and general.encoder.name == "contextual"
    # continuing a model is fine-tuning, whatever else was typed and whether the teacher is there
    assert (
        resolve_recipe("auto", typed={"init_model": "default", "pair_files": [["a.tsv", "tsv"]]})
        == "finetune"
    )
    assert resolve_recipe("auto", typed={"pair_files": [["a.tsv", "tsv"]]}) == "paper"
    with pytest.raises(ValueError, match="needs a teacher"):
        TrainConfig.from_flat(vectors="distilled")
    with pytest.raises(ValueError, match="needs a teacher"):
        TrainConfig.from_flat(teacher_weight=1.0)
    with pytest.raises(ValueError, match="unknown recipe"):
        resolve_recipe("fancy")
    with pytest.raises(ValueError, match="needs --encoder word_averaging, not lstm"):
        TrainConfig.from_flat(word_bigrams=10, encoder="lstm")
    with pytest.raises(ValueError, match="not in a --prepared directory"):
        TrainConfig.from_flat(word_bigrams=10, prepared="shards", pool=None)
    with pytest.raises(ValueError, match="word_bigrams must be >= 0"):
        TrainConfig.from_flat(word_bigrams=-1)
    assert TrainConfig.from_flat(word_bigrams=10).data.word_bigrams == 10


def test_cli_recipe_defaults_and_explicit_options(monkeypatch):
    from parasent.cli import build_parser
    from parasent.commands.train import config_from_args
    from parasent.distillation import teacher as teacher_module

    monkeypatch.setattr(teacher_module, "teacher_available", lambda: True)
    parser = build_parser("train")

    def config(*argv: str) -> TrainConfig:
        return config_from_args(parser.parse_args(["train", *argv]))

    def flat(*argv: str) -> dict:
        return config(*argv).flat()

    distilled = flat()
    assert (
        distilled["vectors"] == "distilled"
        and distilled["teacher"] == "auto"
        and distilled["optimizer"] == "adam"
    )
    typed = flat("--epochs", "50", "--optimizer", "adagrad", "--margin-weight", "0")
    assert (typed["epochs"], typed["optimizer"], typed["margin_weight"], typed["teacher"]) == (
        50,
        "adagrad",
        0.0,
        "auto",
    )
    own = flat("--vectors", "wordvecs/x.txt")  # own vectors: the paper recipe
    assert own["teacher"] is None and own["optimizer"] == "adagrad"
    assert config("--recipe", "paper") == TrainConfig()
    assert config("--objective", "siamese-cbow").teacher.model is None
    # the user's own pairs: never the distilled recipe's teacher pass unless asked for by name
    said: list[str] = []
    mine = config_from_args(
        parser.parse_args(["train", "--pairs", "mine.tsv", "--pool", "none"]), say=said.append
    )
    assert mine.teacher.model is None and mine.optimizer.name == "adagrad" and mine.data.pool is None
    assert said == [
        "recipe: paper (your own --pairs, --pool); pass --recipe distilled for the teacher-distilled recipe"
    ]
    asked = config("--pairs", "mine.tsv", "--recipe", "distilled")
    assert asked.teacher.model == "auto" and asked.data.pair_files == [["mine.tsv", "tsv"]]


def test_distill_command_writes_vectors_the_trainer_reads(text_data_dir, tiny_teacher_dir, tmp_path, capsys):
    out = tmp_path / "vectors.txt.gz"
    words = tmp_path / "words.txt"
    words.write_text("zebra\n")
    code = main(
        [
            "distill",
            "--data-dir",
            str(text_data_dir),
            "--teacher",
            str(tiny_teacher_dir),
            "--vocab",
            "5",
            "--words",
            str(words),
            "--text",
            "movie_reviews",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--quiet",
            "-o",
            str(out),
        ]
    )
    assert code == 0
    vectors = read_word_vectors(out)
    assert vectors.dim == 8 and "zebra" in vectors.words and "automobile" in vectors.words
    assert len(vectors.words) == len(set(vectors.words))
    assert "wrote" in capsys.readouterr().err


def test_every_line_of_a_run_goes_to_its_say(text_data_dir, tiny_teacher_dir, tmp_path, capsys):
    """fit(say=...) and train(say=...) took every line but the teacher alignment's, which went to stdout."""
    config = distilled_config(
        tiny_teacher_dir,
        tmp_path / "cache",
        pool=None,
        teacher_text=["gutenberg"],
        epochs=1,
        validation=None,
        vectors=None,
        dim=6,
        teacher_align=True,
    )  # fmt: skip (a student of 6 dimensions, the teacher's 8 carried into them)
    said: list[str] = []
    train(config, tmp_path / "run", data_dir=text_data_dir, progress=False, say=said.append)
    assert any(line.startswith("teacher targets aligned") for line in said)
    assert capsys.readouterr().out == ""


def per_token_config(data_dir, teacher, cache, rows_dir):
    """A contextual run with the per-token term over rows distilled (and trained) first."""
    rows = distilled_config(teacher, cache, epochs=1)
    train(rows, rows_dir, data_dir=data_dir, progress=False, say=lambda _: None)
    return distilled_config(
        teacher,
        cache,
        vectors=None,
        init_model=str(rows_dir),
        encoder="contextual",
        freeze_words=True,
        teacher_relational=1.0,
        teacher_tokens=1.0,
        margin_weight=0.0,
        validation=None,  # the trained model is written, not a start that scores better
        epochs=1,
    )


def test_the_teacher_pass_stores_the_word_states_a_per_token_run_reads(
    text_data_dir, tiny_transformer_teacher_dir, tmp_path
):
    """`parasent teacher-pass` made the sentence pass alone: the word states waited for the run."""
    from parasent.training.run import teacher_pass

    config = per_token_config(
        text_data_dir, tiny_transformer_teacher_dir, tmp_path / "cache", tmp_path / "rows"
    )
    said: list[str] = []
    teacher_pass(config, text_data_dir, progress=False, say=said.append)
    assert any(line.startswith("teacher pass (word states): ") for line in said), said
    lines: list[str] = []
    train(config, tmp_path / "ctx", data_dir=text_data_dir, progress=False, say=lines.append)
    assert any(line.startswith("per-token teacher targets on") for line in lines)
    assert not any(line.startswith("teacher pass (word states): ") for line in lines)  # nothing left to pass


def test_a_contextual_run_learns_each_tokens_move_from_the_teacher(
    text_data_dir, tiny_transformer_teacher_dir, tmp_path
):
    """--teacher-tokens: the teacher's word states passed once (cached), each token's target
    built, the term trained beside the relational one, and the run resumed."""
    cache = tmp_path / "cache"
    config = per_token_config(text_data_dir, tiny_transformer_teacher_dir, cache, tmp_path / "rows")
    lines: list[str] = []
    train(config, tmp_path / "ctx", data_dir=text_data_dir, progress=False, say=lines.append)
    assert any(line.startswith("per-token teacher targets on") for line in lines), lines
    assert any(line.startswith("teacher pass (word states): ") for line in lines)
    steps = [json.loads(line) for line in (tmp_path / "ctx" / "log.jsonl").read_text().splitlines()]
    assert any("teacher_tokens" in step for step in steps if step["event"] == "step")
    assert any(cache.rglob("word-states/*.safetensors"))  # the teacher's word states, kept for the next run
    model = load(tmp_path / "ctx")
    assert model.encoder_config["name"] == "contextual" and model.encode(["the dog ran"]).shape[0] == 1
    resumed = train(
        config, tmp_path / "ctx", data_dir=text_data_dir, resume=True, progress=False, say=lambda _: None
    )
    assert resumed.state.epoch == 1
    averaging = distilled_config(  # the start's own encoder (word averaging): refused before any pass
        tiny_transformer_teacher_dir,
        tmp_path / "empty-cache",
        vectors=None,
        init_model=str(tmp_path / "rows"),
        teacher_relational=1.0,
        teacher_tokens=1.0,
        epochs=1,
    )
    with pytest.raises(ValueError, match="needs an encoder that composes rows token by token"):
        train(averaging, tmp_path / "plain", data_dir=text_data_dir, progress=False, say=lambda _: None)
    assert not any((tmp_path / "empty-cache").rglob("*.safetensors"))  # no teacher pass was made
