"""parasent/encoders/class_names.py: a class's registry name and an entry's class, from the
registry's metadata alone."""

import pytest

from parasent.encoders.class_names import class_path_of, encoder_name
from parasent.encoders.lstm import LSTM


def test_an_entry_names_its_module_and_class():
    assert class_path_of("lstm") == ("parasent.encoders.lstm", "LSTM")
    with pytest.raises(KeyError):
        class_path_of("no-such-encoder")


def test_a_class_and_its_unregistered_subclass_have_the_entry_s_name():
    class ForATest(LSTM):
        pass

    assert encoder_name(LSTM) == encoder_name(ForATest) == "lstm"
    with pytest.raises(KeyError):
        encoder_name(int)
