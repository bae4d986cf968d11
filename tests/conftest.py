"""Shared fixtures: a synthetic data directory in the layout of the shared data MANIFEST.

Sentences are built from topic words with synonym groups, so that paraphrase pairs
(synonym substitutions) and graded STS pairs (word overlap) carry a real signal a model can
learn, while every file stays a few lines long.
"""

from __future__ import annotations

import gzip
import os
import random
import textwrap
from pathlib import Path

import numpy as np
import pytest

from parasent.data.registry.catalog import SIMILARITY

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

SYNONYMS = [
    ["car", "automobile", "vehicle"],
    ["big", "large", "huge"],
    ["small", "little", "tiny"],
    ["quick", "fast", "rapid"],
    ["man", "guy", "gentleman"],
    ["woman", "lady"],
    ["dog", "puppy", "hound"],
    ["house", "home", "dwelling"],
    ["buy", "purchase"],
    ["begin", "start", "commence"],
    ["happy", "glad", "cheerful"],
    ["talk", "speak", "chat"],
    ["road", "street"],
    ["child", "kid"],
    ["eat", "consume"],
]
FILLER = ["the", "a", "is", "on", "in", "with", "and", "of", "to", "."]


def _sentence(rng: random.Random, groups: list[int]) -> list[str]:
    words = [rng.choice(SYNONYMS[g]) for g in groups]
    out = []
    for w in words:
        out.append(w)
        if rng.random() < 0.6:
            out.append(rng.choice(FILLER))
    return out


def _paraphrase(rng: random.Random, groups: list[int]) -> tuple[str, str]:
    return " ".join(_sentence(rng, groups)), " ".join(_sentence(rng, groups))


def _scored_pair(rng: random.Random) -> tuple[float, str, str]:
    groups = rng.sample(range(len(SYNONYMS)), 4)
    keep = rng.randint(0, 4)
    other = groups[:keep] + rng.sample([g for g in range(len(SYNONYMS)) if g not in groups], 4 - keep)
    score = 5.0 * keep / 4 + rng.uniform(-0.3, 0.3)
    return (
        round(min(5.0, max(0.0, score)), 3),
        " ".join(_sentence(rng, groups)),
        " ".join(_sentence(rng, other)),
    )


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".gz":
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        path.write_text(text, encoding="utf-8")


def make_data_dir(root: Path, seed: int = 0, pairs_per_set: int = 40, train_pairs: int = 600) -> Path:
    rng = random.Random(seed)
    for spec in SIMILARITY.values():
        rows = [_scored_pair(rng) for _ in range(pairs_per_set)]
        if spec.layout == "sts":
            lines = [f"{s}\t{a}\t{b}" for s, a, b in rows]
            lines.insert(3, "\tan unscored pair\tthat must be skipped")
            _write(root / spec.files[0], "\n".join(lines) + "\n")
        elif spec.layout == "sts_official":
            _write(root / spec.files[0], "\n".join(f"{a}\t{b}" for _, a, b in rows) + "\n")
            _write(root / spec.files[1], "\n".join(f"{s:.3f}" for s, _, _ in rows) + "\n")
        elif spec.layout == "sick":
            lines = ["pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment"]
            lines += [f"{i}\t{a}\t{b}\t{1 + s * 0.8:.2f}\tNEUTRAL" for i, (s, a, b) in enumerate(rows)]
            _write(root / spec.files[0], "\n".join(lines) + "\n")
        elif spec.layout == "pit":
            data, labels = [], []
            for i, (s, a, b) in enumerate(rows):
                expert = int(round(s))
                data.append(f"{i}\ttopic\t{a}\t{b}\t{expert}\ta/O/DT\tb/O/DT")
                label = "true" if expert >= 4 else ("----" if expert == 3 else "false")
                labels.append(f"{label}\t{expert / 5:.4f}")
            _write(root / spec.files[0], "\n".join(data) + "\n")
            _write(root / spec.files[1], "\n".join(labels) + "\n")
    para = [_paraphrase(rng, rng.sample(range(len(SYNONYMS)), rng.randint(2, 5))) for _ in range(train_pairs)]
    third = train_pairs // 3
    human = [f"{rng.choice([4.2, 4.6, 5.0])}\t[NP]\t{a}\t{b}\t4.0,5.0" for a, b in para[:third]]
    human += [f"1.5\t[NP]\t{a}\tthe dog\t1.0,2.0" for a, _ in para[:5]]  # below the threshold
    _write(root / "paraphrase/ppdb_human_labels/ppdb-sample.tsv.gz", "\n".join(human) + "\n")
    _write(root / "paraphrase/ppdb_human_labels/wiki-sample.tsv.gz", "\n".join(human[:10]) + "\n")
    lexical = [f"{g[0]} {w}" for g in SYNONYMS for w in g[1:]]
    _write(root / "paraphrase/ppdb_lexical/ppdb_synonyms.txt.gz", "\n".join(lexical) + "\n")
    twitter = [f"1\t{a}\t{b}" for a, b in para[third : 2 * third]] + [f"0\t{a}\t{b}" for a, b in para[:20]]
    _write(root / "paraphrase/twitter_url_corpus/train.tsv.gz", "\n".join(twitter) + "\n")
    _write(root / "paraphrase/msrp/train.tsv", "\n".join(f"1\t{a}\t{b}" for a, b in para[2 * third :]) + "\n")
    vocab = sorted({w for g in SYNONYMS for w in g} | set(FILLER))
    vectors_rng = np.random.default_rng(seed)
    lines = [f"{len(vocab)} 16"] + [
        f"{w} " + " ".join(f"{x:.4f}" for x in vectors_rng.normal(size=16)) for w in vocab
    ]
    _write(root / "wordvecs/mini16.txt.gz", "\n".join(lines) + "\n")
    make_corpus_and_task_data(root, rng)
    return root


def _document(rng: random.Random, sentences: int) -> list[str]:
    """Running text about one topic: neighbouring sentences share synonym groups."""
    topic = rng.sample(range(len(SYNONYMS)), 4)
    out = []
    for _ in range(sentences):
        words = _sentence(rng, rng.sample(topic, 3))
        out.append(" ".join(words).replace(" .", "").strip().capitalize() + ".")
    return out


def make_corpus_and_task_data(root: Path, rng: random.Random) -> None:
    """Running text (corpus/ in its three layouts), STS 2012 train sets and word counts."""
    for b in range(3):  # wrapped prose: paragraphs of hard-wrapped lines
        paragraphs = [" ".join(_document(rng, 4)) for _ in range(6)]
        wrapped = [textwrap.fill(p, 60) for p in paragraphs]
        _write(root / f"corpus/gutenberg/book{b}.txt.gz", "\n\n".join(wrapped) + "\n")
    for r in range(8):  # one sentence per line
        text = "\n".join(s.lower().replace(".", " .") for s in _document(rng, 10))
        _write(root / f"corpus/movie_reviews/{'pos' if r % 2 else 'neg'}/cv{r:03d}.txt", text + "\n")
    for y in range(3):  # one paragraph per line
        _write(
            root / f"corpus/state_union/19{50 + y}-X.txt",
            "\n".join(" ".join(_document(rng, 3)) for _ in range(5)) + "\n",
        )
    for name in ("MSRpar", "SMTeuroparl"):
        rows = [_scored_pair(rng) for _ in range(60)]
        _write(
            root / f"sts/semeval/2012/{name}.train.tsv",
            "\n".join(f"{s}\t{a}\t{b}" for s, a, b in rows) + "\n",
        )
    rows = [_scored_pair(rng) for _ in range(60)]
    _write(
        root / "sts/msrvid2012/STS.input.MSRvid.train.txt", "\n".join(f"{a}\t{b}" for _, a, b in rows) + "\n"
    )
    _write(root / "sts/msrvid2012/STS.gs.MSRvid.train.txt", "\n".join(f"{s:.3f}" for s, _, _ in rows) + "\n")
    words = [w for g in SYNONYMS for w in g] + FILLER
    _write(
        root / "wordfreq/enwiki_vocab_min200.txt.gz",
        "\n".join(f"{w} {rng.randint(200, 100000)}" for w in words) + "\n",
    )


@pytest.fixture(scope="session")
def mini_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_data_dir(tmp_path_factory.mktemp("data"))


@pytest.fixture(scope="session")
def shared_data_dir() -> Path:
    path = Path(os.environ.get("PARASENT_DATA", SHARED_DATA))
    if not (path / "MANIFEST.md").is_file():
        pytest.skip(f"shared data not found at {path}")
    return path


def make_tiny_teacher(directory: Path, words: list[str] | None = None, dim: int = 8, seed: int = 0) -> Path:
    """A sentence-transformers model directory (a static-embedding model with random vectors)
    that the distillation code can load as a teacher: fast, offline, no download."""
    from parasent.core.model import SentenceModel
    from parasent.text import WordTokenizer

    vocabulary = words or sorted({w for g in SYNONYMS for w in g} | set(FILLER) | {"unrelated", "words"})
    tokenizer = WordTokenizer.from_vocabulary(vocabulary)
    table = np.random.default_rng(seed).normal(size=(tokenizer.vocab_size, dim)).astype(np.float32)
    table[0] = 0.0
    config = {"name": "word_averaging", "vocab_size": tokenizer.vocab_size, "embedding_dim": dim}
    return SentenceModel(tokenizer, config, {"embedding.weight": table}).export(directory)


@pytest.fixture(scope="session")
def tiny_teacher_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("sentence_transformers")
    return make_tiny_teacher(tmp_path_factory.mktemp("teacher") / "tiny-teacher")


POSITIVE = ["good", "great", "wonderful", "charming", "fun"]
NEGATIVE = ["bad", "awful", "boring", "dull", "mess"]


def make_task_data(root: Path, seed: int = 0, pairs: int = 300, sentences: int = 400) -> Path:
    """SICK train/trial/test and SST splits with a learnable signal: relatedness and
    entailment follow how many synonym groups two sentences share, sentiment the words used."""
    rng = random.Random(seed)
    header = "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment"
    for name, count in [("train", pairs), ("trial", pairs // 3), ("test_annotated", pairs // 2)]:
        lines = [header]
        for i in range(count):
            groups = rng.sample(range(len(SYNONYMS)), 4)
            keep = rng.randint(0, 4)
            other = groups[:keep] + rng.sample([g for g in range(len(SYNONYMS)) if g not in groups], 4 - keep)
            score = min(5.0, max(1.0, 1 + keep + rng.uniform(-0.3, 0.3)))
            label = "ENTAILMENT" if keep == 4 else ("CONTRADICTION" if keep == 0 else "NEUTRAL")
            a, b = " ".join(_sentence(rng, groups)), " ".join(_sentence(rng, other))
            lines.append(f"{i}\t{a}\t{b}\t{score:.2f}\t{label}")
        _write(root / f"sick2014/SICK_{name}.txt", "\n".join(lines) + "\n")
    for name, count in [
        ("train.tsv.gz", sentences),
        ("dev.tsv", sentences // 4),
        ("test.tsv", sentences // 4),
    ]:
        lines = []
        for _ in range(count):
            label = rng.randint(0, 1)
            words = [rng.choice(POSITIVE if label else NEGATIVE) for _ in range(2)]
            words += _sentence(rng, rng.sample(range(len(SYNONYMS)), 2))
            rng.shuffle(words)
            lines.append(f"{' '.join(words)} \t{label}")
        _write(root / f"sst2/sentiment-{name}", "\n".join(lines) + "\n")
    return root


@pytest.fixture(scope="session")
def text_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini data directory (it has running text and a frequency list) for distillation."""
    return make_data_dir(tmp_path_factory.mktemp("textdata"))


def make_tiny_transformer_teacher(directory: Path) -> Path:
    """A one-layer, 8-dimensional BERT with mean pooling saved as a sentence-transformers
    directory: a transformer teacher (token embeddings, word pieces) that loads offline in a second."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer
    from transformers import BertConfig, BertModel, BertTokenizerFast

    pieces = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ",", "##s", "##ing", "##er"]
    pieces += sorted({w for g in SYNONYMS for w in g} | {w for w in FILLER if w.isalpha()})
    directory.mkdir(parents=True, exist_ok=True)
    # the vocabulary as a mapping: transformers 5 reads no vocab_file here (every piece [UNK])
    tokenizer = BertTokenizerFast(vocab={piece: i for i, piece in enumerate(pieces)})
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(pieces),
        hidden_size=8,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=16,
        max_position_embeddings=64,
    )
    BertModel(config).save_pretrained(directory / "hf")
    tokenizer.save_pretrained(directory / "hf")
    modules = [
        Transformer(str(directory / "hf"), max_seq_length=32),
        Pooling(8, pooling_mode="mean"),
        Normalize(),
    ]
    SentenceTransformer(modules=modules, device="cpu").save(str(directory / "st"))
    return directory / "st"


@pytest.fixture(scope="session")
def tiny_transformer_teacher_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("transformers")
    return make_tiny_transformer_teacher(tmp_path_factory.mktemp("bert-teacher"))


@pytest.fixture(scope="session")
def task_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini data directory plus SICK train/trial and SST files (supervised heads)."""
    return make_task_data(make_data_dir(tmp_path_factory.mktemp("tasks")))


@pytest.fixture(autouse=True)
def _no_installed_teacher(monkeypatch: pytest.MonkeyPatch) -> None:
    """``parasent train``'s ``auto`` recipe as on a machine without the teacher package (as in
    CI): tests that want the distilled recipe name it or patch ``teacher_available`` back."""
    from parasent.distillation import teacher

    monkeypatch.setattr(teacher, "teacher_available", lambda: False)


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Caches (teacher embeddings, file digests) in a temporary folder, never the user's."""
    if "PARASENT_CACHE" not in os.environ:
        monkeypatch.setenv("PARASENT_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
