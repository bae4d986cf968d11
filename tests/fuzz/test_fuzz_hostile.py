"""Inputs the other fuzz targets never make: files that are no regular files, writes that run
out of room, hostile tokenizer patterns, and export targets that hold someone's work.

Every case must end in success or in parasent's own one-line error naming the path, within the
time limit; a failed write leaves the previous version whole and no staging files; nothing a
user wrote is removed without ``--overwrite``.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import random
import resource
import shutil
import signal
import threading

import numpy as np
import pytest

from parasent.cli import main
from parasent.core.model import SentenceModel, load
from parasent.errors import ParasentError
from parasent.text.word_vectors import WordVectors
from tests.fuzz.mutate import FUZZ_N, Hang, Tally, time_limit

WORDS = ["the", "cat", "sat", "on", "mat", "aaaa", "dog"]


def _base(dim: int = 6) -> SentenceModel:
    rng = np.random.default_rng(0)
    return SentenceModel.from_vectors(
        WordVectors(WORDS, rng.normal(size=(len(WORDS), dim)).astype(np.float32))
    )


def _write(model: SentenceModel, path, layout: str) -> None:
    model.save(path) if layout == "parasent" else model.export(path, layout)


# -- non-regular files --------------------------------------------------------------------

MODEL_FILES = {
    "parasent": ["config.json", "tokenizer.json", "model.safetensors"],
    "sentence-transformers": ["modules.json", "tokenizer.json", "model.safetensors"],
    "model2vec": ["config.json", "modules.json", "tokenizer.json", "model.safetensors"],
}
SPECIALS = ["fifo", "dev-zero", "dev-urandom", "dev-null", "directory", "sparse-200MB", "socket"]


def _make_special(path, special: str) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    if special == "fifo":
        os.mkfifo(path)
    elif special.startswith("dev-"):
        path.symlink_to("/dev/" + special[4:])
    elif special == "directory":
        path.mkdir()
    elif special == "socket":
        import socket

        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(path))
    else:
        with open(path, "wb") as handle:
            handle.truncate(200 << 20)


def test_model_directories_with_special_files(tmp_path):
    rng = random.Random(31)
    valid = {layout: tmp_path / layout for layout in MODEL_FILES}
    for layout, path in valid.items():
        _write(_base(), path, layout)
    tally = Tally("special-model-files")
    target = tmp_path / "mutant"
    for index in range(max(FUZZ_N // 10, 20)):
        layout = rng.choice(sorted(MODEL_FILES))
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(valid[layout], target)
        for name in rng.sample(MODEL_FILES[layout], rng.randint(1, 2)):
            _make_special(target / name, rng.choice(SPECIALS))

        def run():
            load(target).encode(["the cat", ""])

        tally.check(index, run, str(target), (ParasentError,))
    print(tally.report())
    assert not tally.failures, "\n".join(tally.failures[:10])


def _run_cli(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, err.getvalue()


def _one_line_or_success(code: int, stderr: str, where: str) -> str | None:
    errors = [line for line in stderr.splitlines() if "error:" in line]
    if (
        "Traceback" in stderr
        or code not in (0, 2)
        or (code == 2 and (len(errors) != 1 or where not in errors[0]))
    ):
        return f"exit {code}: {stderr[-300:]}"
    return None


def test_command_line_inputs_that_are_special_files(tmp_path):
    """Data files named on the command line; ``encode`` reads a FIFO as a stream (a writer feeds it)."""
    rng = random.Random(37)
    _base().save(tmp_path / "m")
    tally = Tally("special-cli-inputs")
    for index in range(max(FUZZ_N // 10, 20)):
        special = rng.choice(SPECIALS)
        path = tmp_path / f"input-{index % 3}"
        _make_special(path, special)
        command = rng.choice(["encode", "evaluate-vectors", "train-pairs"])
        argv = {
            # --overwrite: the output is the test's own (a FIFO fed by a writer encodes and
            # writes it); the inputs are the point
            "encode": [
                "encode",
                "--model",
                str(tmp_path / "m"),
                str(path),
                "-o",
                str(tmp_path / "o.npy"),
                "--overwrite",
            ],
            "evaluate-vectors": ["evaluate", "--vectors", str(path), "--suite", "sts2012/MSRpar"],
            "train-pairs": [
                "train",
                "--out",
                str(tmp_path / "run"),
                "--pool",
                "none",
                "--pairs",
                str(path),
                "--vectors",
                str(path),
                "--validation",
                "none",
                "--epochs",
                "1",
                "--quiet",
                "--device",
                "cpu",
            ],
        }[command]
        writer = None
        if special == "fifo" and command == "encode":

            def feed(path=path):
                with open(path, "wb") as handle:
                    handle.write(b"the cat\n\na dog\n")

            writer = threading.Thread(target=feed, daemon=True)
            writer.start()
        tally.inputs += 1
        try:
            with time_limit():
                code, stderr = _run_cli(argv)
        except Hang:
            tally.failures.append(f"{argv}: hang")
            with contextlib.suppress(OSError):  # release a blocked thread
                os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
            continue
        if writer is not None:
            writer.join(5)
        problem = _one_line_or_success(code, stderr, str(path))
        if problem:
            tally.failures.append(f"{argv}: {problem}")
        tally.rejected += code == 2
    print(tally.report())
    assert not tally.failures, "\n".join(tally.failures[:10])


# -- writes that run out of room ---------------------------------------------------------


@contextlib.contextmanager
def file_size_limit(limit: int):
    """Writes past ``limit`` bytes of any file fail (EFBIG), as on a disk that fills at a chosen
    point; SIGXFSZ, which would end the process, is ignored while it holds."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


def _snapshot(path):
    if path.is_file():
        return path.read_bytes()
    return {p.name: p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()} if path.is_dir() else None


def _writes(tmp_path):
    """name -> (target path, write(model) function): every place parasent replaces a result."""
    import torch

    from parasent.core.vector_files import write_vectors
    from parasent.training.checkpoint import save_checkpoint

    def encode(fmt):
        def run(model, path):
            write_vectors(model, iter(["the cat", "a dog", "sat"] * 40), str(path), fmt, batch_size=2)

        return run

    return {
        "save": ("model", lambda model, path: model.save(path)),
        "save-int8": ("model", lambda model, path: model.save(path, dtype="int8")),
        "export": ("st", lambda model, path: model.export(path)),
        "export-model2vec": ("m2v", lambda model, path: model.export(path, "model2vec")),
        "checkpoint": (
            "checkpoint.safetensors",
            lambda model, path: save_checkpoint(
                path, {"w": torch.from_numpy(np.array(model.weights["embedding.weight"]))}
            ),
        ),
        "encode-npy": ("out.npy", encode("npy")),
        "encode-jsonl": ("out.jsonl", encode("jsonl")),
    }


def test_writes_that_run_out_of_room(tmp_path):
    pytest.importorskip("torch")
    rng = random.Random(41)
    writes = _writes(tmp_path)
    first, second = _base(6), _base(40)  # the second is larger: it needs more room than the first took
    tally = Tally("full-disk")
    for index in range(max(FUZZ_N // 10, 20)):
        name = rng.choice(sorted(writes))
        relative, write = writes[name]
        folder = tmp_path / f"w{index}"
        folder.mkdir()
        target = folder / relative
        write(first, target)
        before = _snapshot(target)
        limit = rng.choice([0, 1, 100, 4096, rng.randrange(0, 200_000)])
        tally.inputs += 1
        try:
            with time_limit(), file_size_limit(limit):
                write(second, target)
            succeeded = True
        except ParasentError as exc:
            succeeded = False
            tally.rejected += 1
            if str(target) not in str(exc) or "\n" in str(exc):
                tally.failures.append(
                    f"{name} limit {limit}: error does not name {target} in one line: {exc}"
                )
        except BaseException as exc:  # noqa: BLE001 - anything else is a finding
            tally.failures.append(f"{name} limit {limit}: {type(exc).__name__}: {exc}")
            continue
        leftovers = sorted(p.name for p in folder.iterdir() if p.name != relative)
        if leftovers:
            tally.failures.append(f"{name} limit {limit}: left {leftovers}")
        if not succeeded and _snapshot(target) != before:
            tally.failures.append(f"{name} limit {limit}: the previous version changed")
        shutil.rmtree(folder)
    print(tally.report())
    assert not tally.failures, "\n".join(tally.failures[:10])


# -- hostile tokenizer patterns ----------------------------------------------------------

HOSTILE_PATTERNS = [
    "(a|aa)+$",
    "(a+)+$",
    "(a*)*b",
    "([a-z]+)*$",
    "(.*a){25}",
    "(\\w+\\s?)+$",
    "(?=(a+))+b",
    "(a|a?)+$",
    "a{1000000}",
    "(",
    "\\",
    "[",
    "(?<!a)+",
    "\\1(a)",
    "(?i)((?:a|A)+)+$",
    "\\w+|[^\\w\\s]",
    " {2,}",
    "\\s+",
]
HOSTILE_TEXTS = ["a" * 40 + "b", "a" * 5000 + "!", "aaaa " * 2000, "the cat", "", "\u00e9" * 300 + "x"]


def _hostile_tokenizer(source, target, rng: random.Random) -> None:
    data = json.loads((source / "tokenizer.json").read_text())
    pattern = rng.choice(HOSTILE_PATTERNS)
    where = rng.random()
    if where < 0.6:
        data["pre_tokenizer"] = {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "WhitespaceSplit"},
                {
                    "type": "Split",
                    "pattern": {"Regex": pattern},
                    "behavior": rng.choice(["Isolated", "Removed"]),
                    "invert": rng.random() < 0.2,
                },
            ],
        }
    elif where < 0.9:
        data["normalizer"] = {
            "type": "Sequence",
            "normalizers": [
                {"type": "Lowercase"},
                {"type": "Replace", "pattern": {"Regex": pattern}, "content": " "},
            ],
        }
    else:
        data["pre_tokenizer"] = {
            "type": "Split",
            "pattern": {"String": pattern},
            "behavior": "Isolated",
            "invert": False,
        }
    (target / "tokenizer.json").write_text(json.dumps(data))
    config_path = target / "config.json"
    if config_path.is_file():  # the author also updates the hash, so that it loads
        config = json.loads(config_path.read_text())
        if "tokenizer" in config:
            config["tokenizer"]["sha256"] = hashlib.sha256(
                (target / "tokenizer.json").read_bytes()
            ).hexdigest()
            config_path.write_text(json.dumps(config))


def test_hostile_tokenizer_patterns(tmp_path):
    rng = random.Random(43)
    valid = {layout: tmp_path / layout for layout in MODEL_FILES}
    for layout, path in valid.items():
        _write(_base(), path, layout)
    tally = Tally("hostile-patterns")
    target = tmp_path / "mutant"
    for index in range(max(FUZZ_N // 5, 20)):
        layout = rng.choice(sorted(valid))
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(valid[layout], target)
        _hostile_tokenizer(valid[layout], target, rng)
        texts = rng.sample(HOSTILE_TEXTS, 3)

        def run(texts=texts):
            vectors = load(target).encode(texts)
            assert np.isfinite(vectors).all()

        tally.check(index, run, str(target), (ParasentError,))
    print(tally.report())
    assert not tally.failures, "\n".join(tally.failures[:10])


# -- export targets ----------------------------------------------------------------------

TARGETS = [
    "absent",
    "empty",
    "parasent",
    "sentence-transformers",
    "model2vec",
    "model-and-foreign",
    "foreign",
    "config-json-project",
    "link-to-model",
    "link-to-foreign",
    "dangling-link",
    "link-to-file",
    "plain-file",
    "read-only-parent",
    "module-folder-foreign",
    "link-loop",
]


def _foreign_files(root):
    """The user's files under ``root`` (anything a model writer does not write)."""
    from parasent.support.staging import MODEL_FILES as KNOWN

    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink() and p.name not in KNOWN
    }


def _make_target(root, kind: str, model: SentenceModel):
    """Build a target of ``kind`` under ``root``; return the path to export to."""
    parent = root / "parent"
    parent.mkdir(parents=True)
    path = parent / "target"
    real = root / "real"
    if kind in (
        "parasent",
        "sentence-transformers",
        "model2vec",
        "model-and-foreign",
        "module-folder-foreign",
        "link-to-model",
    ):
        _write(
            model,
            real if kind == "link-to-model" else path,
            "sentence-transformers" if kind.endswith(("foreign", "model")) else kind,
        )
    if kind == "empty":
        path.mkdir()
    if kind == "model-and-foreign":
        (path / "notes.txt").write_text("mine")
    if kind == "module-folder-foreign":
        (path / "1_Normalize").mkdir(exist_ok=True)
        (path / "1_Normalize" / "script.py").write_text("mine")
    if kind in ("foreign", "link-to-foreign"):
        where = real if kind == "link-to-foreign" else path
        (where / "src").mkdir(parents=True)
        (where / "src" / "main.py").write_text("precious")
    if kind == "config-json-project":
        (path / "src").mkdir(parents=True)
        (path / "config.json").write_text('{"app": 1}')
        (path / "src" / "main.py").write_text("precious")
    if kind.startswith("link-to-") or kind == "dangling-link":
        if kind == "link-to-file":
            real.write_text("a file")
        path.symlink_to(real)
    if kind == "link-loop":
        path.symlink_to(root / "other")
        (root / "other").symlink_to(path)
    if kind == "plain-file":
        path.write_text("a file")
    if kind == "read-only-parent":
        os.chmod(parent, 0o555)
    return path


def test_export_targets(tmp_path):
    rng = random.Random(47)
    model = _base()
    model.save(tmp_path / "m")
    tally = Tally("export-targets")
    for index in range(max(FUZZ_N // 10, 30)):
        kind = rng.choice(TARGETS)
        root = tmp_path / f"t{index}"
        path = _make_target(root, kind, model)
        overwrite = rng.random() < 0.2
        foreign = _foreign_files(root)
        fmt = rng.choice(["sentence-transformers", "model2vec", "save"])
        if fmt == "save":
            argv = None
        else:
            argv = ["export", "--model", str(tmp_path / "m"), "--format", fmt, str(path)] + (
                ["--overwrite"] * overwrite
            )
        tally.inputs += 1
        try:
            with time_limit():
                if argv is None:
                    try:
                        model.save(path, overwrite=overwrite)
                        code, stderr = 0, ""
                    except ParasentError as exc:
                        code, stderr = 2, f"parasent: error: {exc}\n"
                else:
                    code, stderr = _run_cli(argv)
        except Hang:
            tally.failures.append(f"{kind}: hang")
            continue
        finally:
            if (root / "parent").exists():
                os.chmod(root / "parent", 0o755)
        problem = _one_line_or_success(code, stderr, str(path.parent))
        if problem:
            tally.failures.append(f"{kind} overwrite={overwrite} {fmt}: {problem}")
        tally.rejected += code == 2
        after = _foreign_files(root)
        lost = sorted(set(foreign) - set(after))
        if lost and not (overwrite and code == 0):
            tally.failures.append(f"{kind} overwrite={overwrite} {fmt}: lost {lost}")
        strays = [p.name for p in (root / "parent").iterdir() if ".tmp-" in p.name or ".old-" in p.name]
        if strays:
            tally.failures.append(f"{kind} {fmt}: left {strays}")
        if code == 0:
            with contextlib.suppress(ParasentError):
                vectors = load(path).encode(["the cat"])
                if not np.allclose(vectors, model.encode(["the cat"]), atol=1e-3):
                    tally.failures.append(f"{kind} {fmt}: the written model encodes differently")
        if kind.startswith("link-to") and path.exists() and not path.is_symlink():
            tally.failures.append(f"{kind} {fmt}: the link was replaced by a directory")
    print(tally.report())
    assert not tally.failures, "\n".join(tally.failures[:10])
