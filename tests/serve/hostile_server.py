"""``parasent serve`` whose encode misbehaves on marked texts, as a hostile tokenizer makes it:

- a text holding ``PANIC`` runs a real tokenizers pipeline whose pre-tokenizer regex backtracks
  catastrophically, which ends in ``pyo3_runtime.PanicException`` (a ``BaseException``);
- a text holding ``HANG`` never returns (a tokenizer stuck for good).

Run as ``python tests/serve/hostile_server.py serve ARGS`` by the service tests; the model is
loaded the ordinary way, only ``ParasentBackend.encode`` is wrapped.
"""

import sys
import threading

from tokenizers import Regex, Tokenizer, models, pre_tokenizers

from parasent.serve import backends

PANICKING = Tokenizer(models.WordLevel({"a": 0, "[UNK]": 1}, unk_token="[UNK]"))
PANICKING.pre_tokenizer = pre_tokenizers.Split(Regex("(a|aa)+$"), "isolated")
_real_encode = backends.ParasentBackend.encode


def hostile_encode(self, texts):
    if any("PANIC" in text for text in texts):
        PANICKING.encode("a" * 40 + "b")  # onig gives up backtracking; tokenizers panics
    if any("HANG" in text for text in texts):
        threading.Event().wait()
    return _real_encode(self, texts)


backends.ParasentBackend.encode = hostile_encode

if __name__ == "__main__":
    from parasent.cli import main

    sys.exit(main(sys.argv[1:]))
