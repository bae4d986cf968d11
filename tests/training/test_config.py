import json
from pathlib import Path

import pytest

from parasent.errors import CheckpointError
from parasent.training.checkpoint import load_resumable_checkpoint, save_checkpoint
from parasent.training.config import OBJECTIVE_PRESETS, TrainConfig

DATA = Path(__file__).parent / "data"


def test_siamese_cbow_preset_follows_the_paper():
    config = TrainConfig.preset("siamese-cbow").flat()
    assert config["objective"] == "siamese-cbow" and config["corpus"] == "standard" and config["pool"] is None
    assert (config["dim"], config["init_std"], config["min_count"], config["batch_size"]) == (
        300,
        0.01,
        5,
        100,
    )
    assert (config["num_negatives"], config["optimizer"], config["lr_schedule"]) == (2, "sgd", "linear")
    assert config["vectors"] is None and config["unknown"] == "skip"
    assert TrainConfig.preset("siamese-cbow", epochs=3).epochs == 3
    assert TrainConfig.preset("margin") == TrainConfig()
    assert set(OBJECTIVE_PRESETS) == {"margin", "siamese-cbow"}


@pytest.mark.parametrize(
    "options, message",
    [
        ({"objective": "skip-thought"}, "objective must be one of"),
        (
            {"objective": "siamese-cbow", "corpus": None, "pool": None, "vectors": None, "dim": 8},
            "set a corpus",
        ),
        ({"objective": "siamese-cbow", "corpus": "standard", "vectors": None, "dim": 8}, "--pool none"),
        ({"corpus": "standard"}, "running text"),
        ({"lr_schedule": "cosine"}, "lr_schedule"),
        ({"num_negatives": 0}, "num_negatives"),
        ({"init_model": "runs/x"}, "init_model brings its own vectors"),
    ],
)
def test_inconsistent_options_are_rejected(options, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig.from_flat(**options)


def test_old_checkpoint_configs_still_load():
    saved = TrainConfig().flat()
    for key in ("objective", "corpus", "num_negatives", "init_std", "lr_schedule", "init_model"):
        saved.pop(key)
    assert TrainConfig.from_dict(saved).objective.name == "margin"


def test_a_stored_flat_config_loads_into_sections_and_resumes(tmp_path):
    """The configuration a run wrote before the sections (a model's metadata, a checkpoint)."""
    stored = json.loads((DATA / "train_config_flat_v1.json").read_text())
    config = TrainConfig.from_dict(stored)
    # lambda_c was 0 for every encoder then (now: the encoder's default, unset)
    assert config == TrainConfig.preset("margin", epochs=5, lambda_c=0.0)
    flat = config.flat()
    assert {k: flat[k] for k in stored} == stored  # every option kept its value under its flat name
    assert {k: flat[k] for k in set(flat) - set(stored)} == {  # options added since: their defaults
        "pull": "lazy",
        "pull_rows": "initial",
        "vocabulary": "grow",
        "freeze_words": False,
        "protocol": "standard",
        "selection": "best",
        "blend_within": None,
        "prepared": None,
        "megabatch": 1,
        "megabatch_anneal": 0,
        "negatives_across_ranks": False,
        "teacher_contrastive": 0.0,
        "teacher_temperature": 0.05,
        "teacher_relational": 0.0,
        "teacher_tokens": 0.0,
        "teacher_align": False,
        "teacher_batches": "random",
        "word_bigrams": 0,
        "word_trigrams": None,
        "piece_view": 0.0,
        "typo_view": 0.0,
        "piece_components": 0,
        "patience": None,
        "scores": "threshold",
        "held_out": 0.1,
        "leakage_guard": "on",
        "keep_start": 0.0,
    }
    assert TrainConfig.from_dict(config.to_dict()) == config
    assert set(config.to_dict()) >= {"data", "encoder", "optimizer", "objective", "teacher"}
    path = tmp_path / "checkpoint.safetensors"
    save_checkpoint(path, {"config": stored, "format": 1})
    assert load_resumable_checkpoint(path, config.replace(epochs=9))["config"] == stored
    with pytest.raises(CheckpointError, match="delta"):
        load_resumable_checkpoint(path, config.replace(delta=0.4))
    with pytest.raises(ValueError, match="unknown encoder option"):
        TrainConfig.from_dict({"encoder": {"name": "dan", "colour": "red"}})
    with pytest.raises(ValueError, match="unknown training option"):
        TrainConfig.from_flat(colour="red")


def test_protocol_layer_sets_the_selection_suite():
    from parasent.data.training_text.pools import PROTOCOLS as POOL_PROTOCOLS
    from parasent.training.config import PROTOCOLS

    assert set(PROTOCOLS) == set(POOL_PROTOCOLS)
    assert TrainConfig.preset(protocol="ppdb").validation == "ppdb-dev"
    assert TrainConfig.preset(protocol="standard").validation == "validation"
    # a typed selection suite wins: the ppdb pool selected on STS 2016 (Table 3's other arm)
    assert TrainConfig.preset(protocol="ppdb", validation="validation").validation == "validation"
    assert TrainConfig.preset("margin", recipe="distilled", protocol="ppdb").validation == "ppdb-dev"
    with pytest.raises(ValueError, match="protocol must be one of"):
        TrainConfig.preset(protocol="paper")


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("clip", -1.0, r"clip \(--clip\) must be > 0"),
        ("clip", 0.0, r"clip \(--clip\) must be > 0"),
        ("lr", float("nan"), r"lr \(--lr\) must be a finite number"),
        ("dim", -5, r"dim \(--dim\) must be > 0"),
        ("max_pairs", 0, r"max_pairs \(--max-pairs\) must be > 0"),
        ("seed", -1, r"seed \(--seed\) must be >= 0"),
        ("delta", -0.1, r"delta \(--delta\) must be >= 0"),
        ("encoder_options", {"foo": "bar"}, "has no such option"),
        ("encoder_options", {"layers": -1}, "sizes must be in"),
        ("encoder_options", {"layers": 2.5}, "expected an integer"),
        ("encoder_options", {"activation": 3}, "expected a word"),
    ],
)
def test_bad_numbers_fail_before_any_work(option, value, message):
    from parasent.errors import OptionError

    overrides = {"encoder": "dan"} if option == "encoder_options" else {}
    with pytest.raises(OptionError, match=message):
        TrainConfig.from_flat(**{**overrides, option: value})


def test_word_trigrams_are_checked_like_word_bigrams():
    with pytest.raises(
        ValueError, match="--word-trigrams adds units to an average: it needs --encoder word_averaging"
    ):
        TrainConfig.from_flat(word_trigrams=10, encoder="lstm")
    with pytest.raises(
        ValueError, match="--word-trigrams counts triples in the training text, not in a --prepared"
    ):
        TrainConfig.from_flat(word_trigrams=10, prepared="shards", pool=None)
    with pytest.raises(ValueError, match="word_trigrams must be >= 0"):
        TrainConfig.from_flat(word_trigrams=-1)
    assert TrainConfig.from_flat(word_trigrams=10).data.word_trigrams == 10
    # 0 and unset are one configuration: a run log written before the option still matches
    assert TrainConfig.from_flat(word_trigrams=0) == TrainConfig()
    assert TrainConfig().to_dict()["data"]["word_trigrams"] is None


def test_a_second_averaging_encoder_takes_the_averaging_rules(monkeypatch):
    """Units joining the average and the subword-piece rule follow the registry's record
    (``averages_words``), not one encoder's name."""
    import dataclasses

    from parasent.core.encoder_registry import ENCODERS

    second = dataclasses.replace(ENCODERS["word_averaging"], name="my_average")
    monkeypatch.setitem(ENCODERS, "my_average", second)
    assert TrainConfig.from_flat(word_bigrams=10, encoder="my_average").data.word_bigrams == 10
    with pytest.raises(ValueError, match="it needs --encoder word_averaging or my_average, not lstm"):
        TrainConfig.from_flat(word_bigrams=10, encoder="lstm")
    with pytest.raises(ValueError, match="freeze_words leaves word averaging nothing to train"):
        TrainConfig.from_flat(freeze_words=True, encoder="my_average")


@pytest.mark.parametrize(
    ("validation", "expected"),
    [
        ("validation", None),  # a suite of the registry
        ("sts2012/MSRpar", None),  # a data set of the registry
        ("held-out", None),
        (None, None),
        ("mine.tsv:labelled", "mine.tsv:labelled"),
        ("dev.tsv", "dev.tsv"),
    ],
)
def test_the_validation_file_is_the_value_that_names_no_suite(validation, expected):
    assert TrainConfig(validation=validation).validation_file == expected


def test_fine_tuning_a_composing_model_trains_its_composition_with_the_teacher_beside(monkeypatch):
    """The contextual tier's fine-tuning (docs/which-model.md): rows kept, Adam on the composition,
    the teacher's cosines on running text when it is installed; an averaging model's is unchanged."""
    import parasent.distillation.teacher as teacher_module

    base = {"init_model": "default", "vectors": None, "pair_files": [["a.tsv", "labelled"]]}
    plain = TrainConfig.preset("margin", recipe="finetune", **base)
    assert (plain.optimizer.name, plain.encoder.freeze_words, plain.teacher.model) == ("adagrad", False, None)
    monkeypatch.setattr(teacher_module, "teacher_available", lambda: False)
    alone = TrainConfig.preset("margin", recipe="finetune", encoder="contextual", **base)
    assert (alone.optimizer.name, alone.optimizer.lr, alone.encoder.freeze_words) == ("adam", 3e-4, True)
    assert alone.blend_within == 1.0 and plain.blend_within is None
    assert alone.teacher.model is None
    monkeypatch.setattr(teacher_module, "teacher_available", lambda: True)
    taught = TrainConfig.preset("margin", recipe="finetune", encoder="contextual", **base)
    assert (
        taught.teacher.model == "auto"
        and taught.teacher.teacher_weight == 10.0
        and taught.teacher.teacher_align
        and taught.teacher.teacher_relational
        == 10.0  # the finetune recipe's 30 lowered: Quora's labelled dev file ranks it first
    )
    assert taught.teacher.teacher_text == ["pool", "corpus:20000"]
    refused = TrainConfig.preset("margin", recipe="finetune", encoder="contextual", teacher=None, **base)
    assert refused.teacher.model is None


def test_which_model_quotes_the_contextual_layers_teacher_weight_and_blend():
    """docs/which-model.md says what the contextual layer of the finetune recipe does: the same
    teacher weight and blend allowance as COMPOSING / COMPOSING_TEACHER."""
    from pathlib import Path

    from parasent.training.config import COMPOSING, COMPOSING_TEACHER

    page = (Path(__file__).resolve().parents[2] / "docs" / "which-model.md").read_text(encoding="utf-8")
    assert f"running text, at weight {COMPOSING_TEACHER['teacher_weight']:g}," in page.replace("\n", " ")
    assert f"teacher's) at {COMPOSING_TEACHER['teacher_relational']:g} within it" in page.replace("\n", " ")
    assert f"(`--blend-within {COMPOSING['finetune']['blend_within']:g}`;" in page


def test_held_out_0_with_held_out_validation_is_refused_in_one_line():
    with pytest.raises(
        ValueError, match="--held-out 0 holds no pair out to choose the epoch on: --validation none"
    ):
        TrainConfig.preset("margin", recipe="finetune", init_model="default", vectors=None, held_out=0.0)
    config = TrainConfig.preset(
        "margin", recipe="finetune", init_model="default", vectors=None, held_out=0.0, validation=None
    )
    assert config.data.held_out == 0.0 and config.validation is None


def test_none_typed_is_unset_unless_it_is_one_of_the_options_choices():
    from parasent.training.config import flat_name, typed_value

    specs = {flat_name(spec): spec for _, spec in TrainConfig.option_fields()}
    assert typed_value(specs["validation"], "None") is None  # --validation none: the last epoch
    assert typed_value(specs["distill_weighting"], "none") == "none"  # no frequency prior, a choice
    assert typed_value(specs["leakage_guard"], "none") == "none"  # no unset state: refused as written
    with pytest.raises(ValueError, match="got 'none'"):
        TrainConfig.from_flat(leakage_guard=typed_value(specs["leakage_guard"], "none"))


@pytest.mark.parametrize(
    ("option", "value"), [("unknown", "piece"), ("teacher_batches", "neighbors"), ("negatives", "MAX")]
)
def test_an_option_of_choices_given_outside_them_is_refused_by_name(option, value):
    """fit's keywords and a recipe's values pass no command-line parser: the configuration
    itself refuses a value outside an option's choices (--unknown and --teacher-batches took any)."""
    with pytest.raises(ValueError, match=f"{option} must be one of .*, got {value!r}"):
        TrainConfig.from_flat(**{option: value})


def test_megabatch_refusals_name_what_to_change():
    """--megabatch on a contextual fine-tune said '--negatives max' when the negatives were MAX
    already: what excluded it was the teacher the contextual layer brings."""
    base = {"init_model": "default", "vectors": None, "pair_files": [["a.tsv", "labelled"]], "megabatch": 5}
    with pytest.raises(ValueError, match=r"learns from the teacher \(--teacher-weight 10\); --teacher none"):
        TrainConfig.preset("margin", recipe="finetune", encoder="contextual", teacher="auto", **base)
    with pytest.raises(ValueError, match=r"MAX negatives of the margin loss \(--negatives max\)"):
        TrainConfig.preset("margin", recipe="finetune", negatives="mix", **base)
    annealed = {**base, "megabatch": 1, "megabatch_anneal": 5}  # wrapped as a mega-batch too
    with pytest.raises(ValueError, match=r"MAX negatives of the margin loss"):
        TrainConfig.preset("margin", recipe="finetune", negatives="mix", **annealed)
    with pytest.raises(ValueError, match=r"learns from the teacher"):
        TrainConfig.preset("margin", recipe="finetune", encoder="contextual", teacher="auto", **annealed)
    assert (
        TrainConfig.preset(
            "margin", recipe="finetune", encoder="contextual", teacher=None, **base
        ).objective.megabatch
        == 5
    )


def test_the_distilled_recipe_is_the_one_the_shipped_default_was_trained_with():
    """`bash scripts/build_default.sh` rebuilds the shipped default from `--recipe distilled`: every
    option its training recorded is the recipe's today (options added since are absent from the
    record). The typo view (`typo_view` 0.15) was missing from the recipe, so a rebuild missed the
    out-of-vocabulary bars (misspelt pairs 0.67 against 0.70) and nothing shipped."""
    import json

    shipped = Path(__file__).resolve().parents[2] / "parasent" / "models" / "default" / "config.json"
    recorded = json.loads(shipped.read_text())["metadata"]["training"]
    recipe = TrainConfig.preset("margin", recipe="distilled").to_dict()

    def flat(options: dict, prefix: str = "") -> dict:
        out = {}
        for key, value in options.items():
            out.update(flat(value, f"{prefix}{key}.") if isinstance(value, dict) else {prefix + key: value})
        return out

    today = flat(recipe)
    # the build passes its guard (scripts/build_default.sh: GUARD); the rest is the recipe's
    recorded = {k: v for k, v in flat(recorded).items() if k != "data.leakage_guard"}
    differing = {k: (v, today.get(k)) for k, v in recorded.items() if today.get(k, "<absent>") != v}
    assert differing == {}


def test_the_per_token_term_is_refused_where_it_cannot_work():
    with pytest.raises(ValueError, match="it needs --teacher-weight > 0"):
        TrainConfig.from_flat(teacher="auto", teacher_tokens=1.0)
    with pytest.raises(ValueError, match="it needs a teacher, not --teacher none"):
        TrainConfig.from_flat(teacher=None, teacher_tokens=1.0)
    with pytest.raises(ValueError, match="--teacher-tokens is a term of the teacher's sentences"):
        TrainConfig.preset("margin", recipe="contextual", teacher_weight=0.0)  # not the recipe's batches
    with pytest.raises(ValueError, match="not with --remove-components"):
        TrainConfig.from_flat(teacher="auto", teacher_weight=1.0, teacher_tokens=1.0, remove_components=2)
    with pytest.raises(ValueError, match="teacher_tokens"):
        TrainConfig.from_flat(teacher="auto", teacher_weight=1.0, teacher_tokens=-1.0)
    with pytest.raises(
        ValueError, match="an encoder that composes rows .--encoder contextual., not word_averaging"
    ):
        TrainConfig.from_flat(vectors="distilled", teacher="auto", teacher_weight=1.0, teacher_tokens=1.0)
    TrainConfig.from_flat(  # a continued model's encoder is known when it is built
        init_model="default", vectors=None, teacher="auto", teacher_weight=1.0, teacher_tokens=1.0
    )
