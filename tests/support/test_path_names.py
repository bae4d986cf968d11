"""Names handed to Rust libraries as UTF-8 text."""

import os

import pytest

from parasent.errors import NameEncodingError
from parasent.support.path_names import as_utf8, native_path, shown


def test_utf8_bytes_read_in_an_ascii_locale_become_the_text_they_are():
    read_as_ascii = "idx-\udce6\udc97\udca5"  # b"idx-\xe6\x97\xa5" decoded as ASCII + surrogateescape
    assert as_utf8(read_as_ascii) == "idx-日"
    assert native_path(read_as_ascii) == "idx-日"
    assert native_path("plain/日本") == "plain/日本"


def test_bytes_that_are_no_utf8_are_one_line_naming_the_path(tmp_path):
    name = os.fsdecode(b"model-\xff")
    assert as_utf8(name) is None and shown(name) == "model-\\xff"
    with pytest.raises(NameEncodingError, match=r"^model-\\xff: the name is not UTF-8 text.*rename it"):
        native_path(name)
    assert shown("\ud800x") == "\\ud800x"  # a surrogate no byte stands for


def test_a_utf8_name_in_an_ascii_locale_loads(tmp_path):
    """``LC_ALL=POSIX PYTHONUTF8=0 parasent query 日本/idx ...``: the library opens the file
    Python names (safetensors and tokenizers failed on the surrogates)."""
    import subprocess
    import sys

    import numpy as np

    from parasent.core.model import SentenceModel
    from parasent.text.word_vectors import WordVectors

    folder = tmp_path / "日本"
    SentenceModel.from_vectors(WordVectors(["a", "b"], np.eye(2, dtype=np.float32))).save(folder)
    env = {**os.environ, "LC_ALL": "POSIX", "LANG": "POSIX", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "parasent.cli", "similarity", "--model", str(folder), "a", "a b"],
        capture_output=True,
        env=env,
    )
    assert done.returncode == 0 and float(done.stdout) > 0.5, done.stderr
