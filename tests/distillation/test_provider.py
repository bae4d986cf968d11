import numpy as np
import pytest
import torch

from parasent.data.training_text.pools import TrainingPair
from parasent.distillation.provider import TeacherSide
from parasent.distillation.teacher_config import TeacherConfig
from parasent.encoders import build_encoder
from parasent.text.tokenizer import WordTokenizer

WORDS = ["a", "man", "woman", "plays", "guitar", "piano", "runs", "fast", "slow", "dog"]
PAIRS = [
    TrainingPair("a man plays guitar", "a woman plays piano", "test"),
    TrainingPair("a dog runs fast", "a man runs slow", "test"),
    TrainingPair("a woman runs", "a dog plays", "test"),
]


def encoder_and_tokenizer():
    tokenizer = WordTokenizer.from_vocabulary(WORDS)
    torch.manual_seed(0)
    encoder = build_encoder(
        {"name": "word_averaging", "vocab_size": tokenizer.vocab_size, "embedding_dim": 6}
    )
    return encoder, tokenizer


def test_remove_components_is_the_teacher_sides_step_on_a_new_encoder():
    encoder, tokenizer = encoder_and_tokenizer()
    before = encoder.embedding.weight.detach().clone()
    side, lines = TeacherSide(), []
    side.remove_components(TeacherConfig(), encoder, tokenizer, PAIRS, resumed=False, say=lines.append)
    assert torch.equal(encoder.embedding.weight, before) and not lines  # not asked for
    options = TeacherConfig(remove_components=1)
    side.remove_components(options, encoder, tokenizer, PAIRS, resumed=True, say=lines.append)
    assert torch.equal(encoder.embedding.weight, before) and not lines  # the checkpoint has the vectors
    side.remove_components(options, encoder, tokenizer, PAIRS, resumed=False, say=lines.append)
    after = encoder.embedding.weight.detach()
    assert not torch.equal(after, before) and np.all(after[0].numpy() == 0.0)  # padding stays zero
    assert side.metadata()["removed_components"] == 1
    assert lines == ["removed the top 1 principal component(s) of 6 training sentences"]


def test_a_pass_estimate_under_a_minute_and_a_half_is_said_in_seconds():
    from parasent.distillation.provider import pass_estimate

    assert "about 20 s on this machine" in pass_estimate("teacher pass", 6000, 6000, 20.4)
    assert "about 3 min on this machine" in pass_estimate("teacher pass", 6000, 6000, 170.0)
    assert "the same command continues from there" in pass_estimate("teacher pass", 1, 2, 1.0)


def test_too_little_text_for_the_per_token_map_is_refused_before_the_teacher_pass():
    """The refusal came after the word-state pass, minutes of teacher time later."""
    tokenizer = WordTokenizer.from_vocabulary(WORDS)
    encoder = build_encoder({"name": "contextual", "vocab_size": tokenizer.vocab_size, "embedding_dim": 6})
    sentences = [p.s1 for p in PAIRS]

    class NoPass:
        def check_word_states(self):
            pass  # a teacher with word states

        def word_states_estimate(self, texts):
            raise AssertionError("the teacher was asked for its estimate before the refusal")

        def word_states(self, texts):
            raise AssertionError("the teacher's pass ran before the refusal")

    side = TeacherSide(NoPass(), sentences, 1.0)
    with pytest.raises(ValueError, match="need at least 6 words seen 3\\+ times .* found 1"):
        side._check_tokens(encoder, tokenizer)
    enough = TeacherSide(NoPass(), sentences * 3, 1.0)  # 8 words seen 3+ times: the split comes back
    tokenized, (positions, ids, _, aligned) = enough._check_tokens(encoder, tokenizer)
    assert len(tokenized.offsets) == 10  # the 9 sentences tokenized once, for the views to take
    assert len(positions) == len(ids) == 33 and aligned == 9  # every word its own token
