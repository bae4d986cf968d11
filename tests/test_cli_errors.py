"""Command lines that printed tracebacks or did something else than asked: each is now one
line on stderr with exit status 2 (130 when interrupted), before any expensive work."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from parasent.cli import main
from parasent.core.model import SentenceModel
from parasent.text.word_vectors import WordVectors, write_word_vectors


@pytest.fixture()
def files(tmp_path):
    rng = np.random.default_rng(0)
    words = ["the", "cat", "sat", "dog"]
    vectors = WordVectors(words, rng.normal(size=(4, 6)).astype(np.float32))
    SentenceModel.from_vectors(vectors).save(tmp_path / "m")
    write_word_vectors(tmp_path / "v.txt", vectors)
    (tmp_path / "pairs.tsv").write_text("the cat\tthe dog\n" * 4)
    (tmp_path / "file").write_text("x\n")
    return tmp_path


def one_line_error(capsys, code, expected_code=2) -> str:
    err = capsys.readouterr().err
    assert code == expected_code, err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


def _train(files, *options):
    return [
        "train", "--out", str(files / "run"), "--pool", "none", "--pairs", str(files / "pairs.tsv"),
        "--vectors", str(files / "v.txt"), "--validation", "none", "--epochs", "1", "--batch-size", "2",
        "--quiet", "--recipe", "paper", *options,
    ]  # fmt: skip


@pytest.mark.parametrize(
    "options, message",
    [
        (["--encoder", "dan", "--encoder-option", "foo=bar"], "has no such option"),
        (["--encoder", "dan", "--encoder-option", "layers=-1"], "sizes must be in"),
        (["--encoder", "dan", "--encoder-option", "layers=abc"], "layers=abc: expected an integer"),
        (["--encoder", "lstm", "--encoder-option", "hidden_dim=x"], "hidden_dim=x: expected an integer"),
        (["--encoder", "lstm", "--encoder-option", "output_gate=1"], "output_gate=1: expected true or false"),
        (["--dim", "-5", "--vectors", "none"], "--dim must be > 0"),
        (["--clip", "-1"], "--clip must be > 0"),
        (["--epochs", "0"], "--epochs must be a positive integer"),
        (["--clip", "0"], "--clip must be > 0"),
        (["--max-pairs", "-1"], "--max-pairs must be > 0"),
        (["--device", "bogus"], "not a device"),
    ],
)
def test_train_options_fail_before_work(files, capsys, options, message):
    err = one_line_error(capsys, main(_train(files, *options)))
    assert message in err
    assert not (files / "run" / "model").exists()


def test_device_cuda_without_cuda(files, capsys, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert "CUDA is not available" in one_line_error(capsys, main(_train(files, "--device", "cuda")))


def test_out_that_is_a_file(files, capsys):
    argv = _train(files)
    argv[argv.index("--out") + 1] = str(files / "file")
    assert "is not a directory" in one_line_error(capsys, main(argv))
    assert (files / "file").read_text() == "x\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "--vectors", "{d}/v.txt", "--json", "{d}/missing/r.json"],
        ["compare-models", "{d}/m", "--json", "{d}/missing/r.json"],
        ["analyze", "words", "{d}/m", "--json", "{d}/missing/r.json"],
    ],
)
def test_json_into_a_missing_directory_fails_first(files, capsys, argv):
    argv = [a.replace("{d}", str(files)) for a in argv]
    assert "does not exist" in one_line_error(capsys, main(argv))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda c: c.__setitem__("encoder", "x"), "'encoder' must be an object"),
        (lambda c: c.__setitem__("format", "2"), "'format' must be a positive integer"),
        (lambda c: c["encoder"].__setitem__("vocab_size", "8890"), "encoder.vocab_size must be an integer"),
        (lambda c: c.__setitem__("format", -5), "'format' must be a positive integer, got -5"),
        (lambda c: c.__setitem__("format", 0), "'format' must be a positive integer, got 0"),
        (
            lambda c: c["tokenizer"].__setitem__("vocab_size", 1e9),
            "tokenizer.vocab_size must be an integer in 1..50000000, got 1000000000.0",
        ),
        (
            lambda c: c["tokenizer"].__setitem__("vocab_size", 10**9),
            "tokenizer.vocab_size must be an integer in 1..50000000, got 1000000000",
        ),
    ],
)
def test_model_config_with_wrong_types(files, capsys, edit, message):
    config = json.loads((files / "m" / "config.json").read_text())
    edit(config)
    (files / "m" / "config.json").write_text(json.dumps(config))
    err = one_line_error(capsys, main(["similarity", "--model", str(files / "m"), "a", "b"]))
    assert message in err and str(files / "m" / "config.json") in err


def test_surrogates_in_a_sentence(files, capsys):
    err = one_line_error(capsys, main(["similarity", "--model", str(files / "m"), "caf\udce9", "the cat"]))
    assert "sentence1 'caf\\xe9': not UTF-8 text" in err


def test_nan_weights_never_print_a_similarity(files, capsys):
    from safetensors.numpy import load_file, save_file

    weights = load_file(str(files / "m" / "model.safetensors"))
    weights["embedding.weight"][:] = np.nan
    save_file(weights, str(files / "m" / "model.safetensors"))
    assert "non-finite" in one_line_error(
        capsys, main(["similarity", "--model", str(files / "m"), "the", "cat"])
    )


@pytest.mark.parametrize("seeds", ["0", "-1"])
def test_compare_seeds_must_be_positive(files, capsys, seeds):
    err = one_line_error(capsys, main(["compare", "--out", str(files / "c"), "--seeds", seeds]))
    assert "--seeds must be > 0" in err


def test_sts_system_sweep_is_checked_before_fine_tuning(files, capsys, monkeypatch):
    import parasent.training.run as run

    monkeypatch.setattr(run, "train", lambda *a, **k: pytest.fail("fine-tuning started"))
    argv = ["sts-system", "--model", str(files / "m"), "--out", str(files / "s"), "--sweep", "1:2"]
    assert "--sweep expects LOW:HIGH:STEP" in one_line_error(capsys, main(argv))


@pytest.mark.parametrize("where", ["parasent.core.model.load", "parasent.evaluation.evaluator.evaluate"])
def test_ctrl_c_is_one_line_and_exit_130(files, capsys, monkeypatch, where):
    module, _, name = where.rpartition(".")

    def interrupted(*_, **__):
        raise KeyboardInterrupt

    monkeypatch.setattr(
        sys.modules[module] if module in sys.modules else __import__(module, fromlist=[name]),
        name,
        interrupted,
    )
    argv = (
        ["evaluate", "--model", str(files / "m")]
        if "evaluate" in where
        else ["similarity", "--model", str(files / "m"), "a", "b"]
    )
    err = one_line_error(capsys, main(argv), expected_code=130)
    assert err == "parasent: interrupted\n"


def test_sigint_while_encoding_stdin(files):
    child = subprocess.Popen(
        [sys.executable, "-m", "parasent.cli", "encode", "--model", str(files / "m"), "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # a test run started in the background inherits SIGINT ignored, and Python then leaves it so
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    child.stdin.write(b"the cat\n")
    child.stdin.flush()
    maps = f"/proc/{child.pid}/maps"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until the model is mapped: loaded, waiting for more input
        try:
            if "model.safetensors" in open(maps).read():
                break
        except OSError:
            time.sleep(3)
            break
        time.sleep(0.1)
    time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=30)
    assert child.returncode == 130 and err.decode().strip().splitlines()[-1] == "parasent: interrupted"
    assert b"Traceback" not in err


@pytest.mark.parametrize("shape", [[4.0, 6.0], [4, 6.5], ["4", 6], [True, 6]])
def test_a_weights_shape_that_is_not_integers_is_refused(files, capsys, shape):
    """A safetensors header whose shape holds a float (or a string, a boolean): the file is not
    what it claims, and ``int()`` would have read ``6.5`` as 6."""
    import struct

    path = files / "m" / "model.safetensors"
    raw = path.read_bytes()
    (size,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + size])
    name = next(key for key in header if key != "__metadata__")
    header[name]["shape"] = shape + header[name]["shape"][2:]
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + raw[8 + size :])
    err = one_line_error(capsys, main(["similarity", "--model", str(files / "m"), "a", "b"]))
    assert (
        err.startswith(f"parasent: error: {path}: ")
        and str(path) not in err[len(f"parasent: error: {path}: ") :]
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (["train", "--leakage-guard", "bogus"], "argument --leakage-guard: invalid choice: 'bogus'"),
        (["prepare"], "the following arguments are required: FILE[:FORMAT], -o/--out"),
        (
            ["train", "--nonsense"],
            "parasent train: error: unrecognized arguments: --nonsense (usage: parasent train --help)",
        ),
        (["bogus"], "argument COMMAND: invalid choice: 'bogus'"),
    ],
)
def test_argument_errors_are_one_line_naming_the_help(capsys, argv, message):
    """argparse's own refusals printed the command's whole usage (dozens of lines for train)
    above the one line that said what was wrong."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = one_line_error(capsys, exit_info.value.code)
    assert message in err and "--help)" in err


def test_running_out_of_memory_is_one_line(monkeypatch, capsys):
    """`--encoder-option hidden=1000000` under a memory limit ended in numpy's traceback."""
    from parasent.cli import main
    from parasent.commands import similarity

    def exhausted(args):
        raise MemoryError("Unable to allocate 977. MiB for an array")

    monkeypatch.setattr(similarity, "run", exhausted)
    assert main(["similarity", "a", "b"]) == 2
    assert capsys.readouterr().err.strip() == (
        "parasent: error: out of memory (Unable to allocate 977. MiB for an array); smaller sizes or batches need less"
    )
