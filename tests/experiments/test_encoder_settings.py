"""The experiments' settings of the encoders: one record per registered encoder, and none of it
in the core's registry, which holds the model's settings only."""

import dataclasses

from parasent.core.encoder_registry import ENCODERS, EncoderEntry
from parasent.experiments.encoder_settings import SETTINGS, EncoderSettings, settings_of
from parasent.experiments.search import PAPER_GRID, paper_grid


def test_every_registered_encoder_has_one_record_in_registry_order():
    assert list(SETTINGS) == list(ENCODERS)
    assert all(record.encoder == name for name, record in SETTINGS.items())


def test_the_core_registry_holds_no_setting_of_the_experiments():
    model = {field.name for field in dataclasses.fields(EncoderEntry)}
    experiments = {field.name for field in dataclasses.fields(EncoderSettings)} - {"encoder"}
    assert experiments == {"grid", "shared_lambda", "variants"}
    assert not model & experiments, model & experiments


def test_an_encoder_without_a_record_is_tuned_on_the_paper_s_grid_and_has_no_column():
    assert settings_of("unlisted") == EncoderSettings("unlisted")
    assert paper_grid("unlisted") == PAPER_GRID
    assert paper_grid("identity_rnn")["lambda_c"] == [1000.0, 100.0, 10.0, 1.0]
    assert "freeze_words" not in paper_grid("word_averaging")
