"""Index directories (``parasent index``, ``load_index``, ``parasent query``) mutated, their files
replaced by special files, their model swapped: every case ends in an answer drawn from the
index's own texts.txt, or in parasent's own one-line error naming the index directory, within the
time limit; a model that is not the one the vectors were made with never answers."""

from __future__ import annotations

import json
import random
import shutil

import numpy as np
import pytest

from parasent.core.model import SentenceModel
from parasent.corpus.index import build_index, load_index
from parasent.errors import OptionError, ParasentError
from parasent.text.word_vectors import WordVectors
from tests.fuzz.mutate import FUZZ_N, Tally, mutate
from tests.fuzz.test_fuzz_hostile import SPECIALS, _make_special, _one_line_or_success, _run_cli
from tests.fuzz.test_fuzz_models import _json_mutant, _safetensors_mutant

WORDS = ["the", "cat", "sat", "on", "mat", "a", "dog", "runs"]
CORPUS = ["the cat sat on the mat", "a dog runs", "", "the dog sat", "cat", "runs on a mat"]
FILES = [
    "index.json",
    "texts.txt",
    "vectors.safetensors",
    "model/config.json",
    "model/tokenizer.json",
    "model/model.safetensors",
]


def _model(seed: int) -> SentenceModel:
    rng = np.random.default_rng(seed)
    return SentenceModel.from_vectors(WordVectors(WORDS, rng.normal(size=(len(WORDS), 6)).astype(np.float32)))


@pytest.fixture(scope="module")
def valid(tmp_path_factory):
    root = tmp_path_factory.mktemp("indexes")
    corpus = root / "corpus.txt"
    corpus.write_text("\n".join(CORPUS) + "\n")
    path = build_index(_model(0), corpus, root / "valid", batch_size=2, progress=False)
    _model(1).save(root / "other")  # another model of the same dimension
    return path


def _mutant(data: bytes, name: str, rng: random.Random) -> bytes:
    if name.endswith(".json"):
        return _json_mutant(data, rng)
    if name.endswith(".safetensors") and rng.random() < 0.7:
        return _safetensors_mutant(data, rng)
    return mutate(data, rng)


def _answers_from_its_texts(target) -> None:
    """A loaded index answers with finite scores and lines of its texts.txt (ids in range)."""
    index = load_index(target)
    for hits in index.search(["the cat sat", "unknown words", "?!"], top_k=3):
        for hit in hits:
            assert np.isfinite(hit["score"]), "a non-finite score"
            assert hit["text"] == index.texts[hit["corpus_id"]]  # texts.txt may be mutated: its own line


def _change(target, valid, rng: random.Random) -> str:
    """One change of ``target`` (a copy of ``valid``): a mutated file, a special file in place of
    one, or the model swapped for another (whole, or one of its files)."""
    action = rng.random()
    name = rng.choice(FILES)
    if action < 0.6:
        (target / name).write_bytes(_mutant((valid / name).read_bytes(), name, rng))
    elif action < 0.85:
        _make_special(target / name, rng.choice(SPECIALS))
    elif action < 0.95:
        shutil.rmtree(target / "model")
        shutil.copytree(valid.parent / "other", target / "model")
        return "swapped"
    else:
        model_file = rng.choice([n for n in FILES if n.startswith("model/")])
        source = valid.parent / "other" / model_file.split("/", 1)[1]
        if source.read_bytes() == (valid / model_file).read_bytes():
            return "same"  # the two models share this file (their vocabulary): no change
        shutil.copy(source, target / model_file)
        return "swapped"
    return "mutated"


def test_index_directories_survive_mutation_special_files_and_swapped_models(tmp_path, valid):
    rng = random.Random(40)
    tally = Tally("index-directories")
    target = tmp_path / "mutant"
    answered_swapped = []
    for index in range(max(FUZZ_N, 20)):
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(valid, target, symlinks=True)
        kind = _change(target, valid, rng)

        def run(kind=kind, index=index):
            if index % 10 == 0:  # the command line as well: one line or an answer
                code, err = _run_cli(["query", str(target), "the cat sat", "-k", "2"])
                problem = _one_line_or_success(code, err, str(target))
                assert problem is None, problem
            _answers_from_its_texts(target)
            if kind == "swapped":
                answered_swapped.append(index)

        tally.check(index, run, str(target), (ParasentError,))
    print(tally.report())
    assert not answered_swapped, f"swapped models answered: inputs {answered_swapped[:10]}"
    assert not tally.failures, "\n".join(tally.failures[:10])


def test_the_valid_index_answers(valid):
    _answers_from_its_texts(valid)
    with pytest.raises(OptionError, match="query 2 is empty"):
        load_index(valid).search(["the cat sat", "  "], top_k=3)
    assert json.loads((valid / "index.json").read_text())["format"] == 3
