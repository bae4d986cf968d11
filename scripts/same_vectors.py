"""Are two checkouts' vectors the same bits? Each path of encoding, on many kinds of text.

A change to the encoding path must leave every vector as it was (or say why not). This writes
the vectors of the same texts through every path a user takes (batches at sizes 1, 7, 32,
1,024 and the default, ``iter_encode``, single strings and one-item lists,
``encode_with_counts``, normalised, a saved copy) for the shipped default, the default loaded
again, and a float32, a float16 and an int8 model of GloVe vectors; then compares two such
folders as uint32, row by row, and each path against the batch path of its own checkout.
Texts: the transfer suite, running text of the data directory, typos, accents and typeset
punctuation, capitals, and odd ones (empty, whitespace, CJK, NUL, 10,000 characters, control
characters, combining marks).

    PYTHONPATH=/path/to/main python scripts/same_vectors.py write /tmp/vectors-main
    PYTHONPATH=$PWD python scripts/same_vectors.py write /tmp/vectors-mine
    python scripts/same_vectors.py compare /tmp/vectors-main /tmp/vectors-mine
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ODD_TEXTS = [
    "",
    " ",
    "\t\n",
    "a",
    "[UNK]",
    "[PAD]",
    "東京は日本の首都です。",
    "Ein Mann spielt Gitarre, schön.",
    "ΟΔΟΣ “İstanbul” — ½ naïve\u00a0STRASSE 😀",
    "nul\0byte",
    "x" * 10_001 + " é",
    "word " * 3000,
    "guitr plaing man, teh kids",
    "zxqv blorptic frimble",
    "new york new york",
    "İİİ ﬁ ß ǅ",
    "control\x01chars\x1fhere",
    "e\u0301 combining",
]


def _typo(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        if not chars:
            break
        i, action = rng.randrange(len(chars)), rng.randrange(3)
        if action == 0:
            del chars[i]
        elif action == 1:
            chars.insert(i, rng.choice("abcdefghijklmnopqrstuvwxyz"))
        else:
            chars[i] = rng.choice("qwxzjk")
    return "".join(chars)


def texts(data_dir: str | None) -> list[str]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from bench_search import running_text

    from parasent.evaluation.evaluator import SimilarityEvaluator
    from parasent.support.paths import resolve_data_dir

    suite = list(dict.fromkeys(SimilarityEvaluator("transfer", data_dir).sentences))
    running = list(dict.fromkeys(running_text(resolve_data_dir(data_dir))))
    rng = random.Random(7)
    base = suite[:6000] + rng.sample(running, min(6000, len(running)))
    out = list(base)
    out += [_typo(t, rng) for t in base[:3000]]
    out += [t.replace("e", "é").replace("'", "\u2019") for t in base[3000:5000]]
    out += [t.upper() for t in base[5000:5500]]
    return out + ODD_TEXTS


def models(data_dir: str | None, scratch: Path) -> Iterator[tuple[str, object]]:
    import parasent
    from parasent.core.model import SentenceModel
    from parasent.support.paths import resolve_data_dir
    from parasent.text.word_vectors import read_word_vectors

    yield "default", parasent.load()
    yield "default-reloaded", parasent.load()
    glove = SentenceModel.from_vectors(
        read_word_vectors(resolve_data_dir(data_dir) / "wordvecs" / "glove50_4k.txt.gz")
    )
    yield "glove", glove
    for dtype in ("float16", "int8"):
        glove.save(scratch / dtype, dtype=dtype)
        yield f"glove-{dtype}", parasent.load(scratch / dtype)


def paths(model, items: list[str]) -> Iterator[tuple[str, np.ndarray]]:
    """``(path name, vectors)`` of ``items`` through every way of encoding them."""
    yield "batch", model.encode(items)
    for size in (1, 7, 32, 1024):
        yield f"batch-size-{size}", model.encode(items, batch_size=size)
    yield "iter-encode-3", np.concatenate(list(model.iter_encode(items, batch_size=3)))
    yield "single-string", np.stack([model.encode(text) for text in items])
    yield "single-list", np.concatenate([model.encode([text]) for text in items])
    yield "counts-one", np.concatenate([model.encode_with_counts([text])[0] for text in items])
    yield "counts-all", model.encode_with_counts(items)[0]
    yield "normalized", model.encode(items, normalize_embeddings=True)


def write(out: Path, data_dir: str | None) -> None:
    import parasent

    out.mkdir(parents=True, exist_ok=True)
    items = texts(data_dir)
    print(f"{len(items):,} texts, parasent from {Path(parasent.__file__).parent}")
    with tempfile.TemporaryDirectory() as scratch:
        for name, model in models(data_dir, Path(scratch)):
            for path, vectors in paths(model, items):
                np.save(out / f"{name}.{path}.npy", vectors)
            if name == "default":
                model.save(Path(scratch) / "saved")
                np.save(out / f"{name}.saved-copy.npy", parasent.load(Path(scratch) / "saved").encode(items))
            print(f"  {name}: done", flush=True)


def _differing(a: np.ndarray, b: np.ndarray) -> int:
    return int((a.view(np.uint32) != b.view(np.uint32)).any(axis=1).sum())


def compare(first: Path, second: Path) -> int:
    """Rows that differ between the two folders (a file missing or of another shape counts all
    its rows), printed per file; then each path against its own batch path."""
    total = rows = 0
    for path in sorted(first.glob("*.npy")):
        other = second / path.name
        a = np.load(path)
        b = np.load(other) if other.exists() else None
        differ = len(a) if b is None or a.shape != b.shape else _differing(a, b)
        total, rows = total + differ, rows + len(a)
        print(f"{path.name:<40} {len(a):>7,} rows  {differ:>7,} differ")
    for path in sorted(second.glob("*.npy")):
        model, name = path.name.split(".")[:2]
        if name not in ("batch", "normalized"):
            differ = _differing(np.load(path), np.load(second / f"{model}.batch.npy"))
            print(f"  {second.name}: {path.name:<36} against its batch path: {differ:,} rows differ")
    print(f"{rows:,} rows compared; {total:,} differ")
    return total


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("action", choices=["write", "compare"])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--data-dir")
    args = parser.parse_args()
    if args.action == "write":
        write(args.folders[0], args.data_dir)
    elif len(args.folders) != 2:
        parser.error("compare takes two folders")
    else:
        sys.exit(1 if compare(*args.folders) else 0)


if __name__ == "__main__":
    main()
