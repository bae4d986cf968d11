"""Unlabelled sentences of the shared data beyond the running text: the sentences of
``paraphrase_extra/`` and of the in-domain training splits, read as plain text (labels and
pairing ignored) for objectives that only need sentences (the teacher regression).

Three named groups (MANIFEST, "paraphrase_extra/"):

- ``extended``: Quora questions, PAWS-Wiki, TurkCorpus/ASSET rewrites, WikiSplit,
  OneStopEnglish, WikiAnswers and SciTail sentences (the extended pool without captions);
- ``captions``: Flickr8k and Multi30k captions and SNLI sentences, from the photo pools of the
  STS ``images`` and MSRvid-like sets and SICK: in-domain for those test sets, so a number
  that uses them must say so;
- ``sts-train``: the STS 2012 train sets, SICK train and trial, and PIT-2015 dev (training
  splits of the evaluation families, never their test or validation sentences).

One reader per format family; every line goes through :class:`~parasent.data.lines.LineReader`
(so a bad file names its path and line). The no-leakage filter is the caller's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from parasent.data.lines import LineReader
from parasent.errors import DataNotFoundError

EXTRA = "paraphrase_extra"


def _reader(path: Path) -> LineReader:
    # some releases mix encodings: a line that is not UTF-8 is read as Latin-1
    return LineReader(path, fallback_encoding="latin-1")


def _tsv_columns(columns: tuple[int, ...], header: bool = False) -> Callable[[Path], Iterator[str]]:
    """Tab-separated rows (Quora, PAWS, SciTail, SNLI): the text of the given columns."""

    def read(path: Path) -> Iterator[str]:
        for number, text in _reader(path):
            if header and number == 1:
                continue
            fields = text.split("\t")
            for column in columns:
                if column < len(fields):
                    yield fields[column]

    return read


def _lines(path: Path) -> Iterator[str]:
    """One sentence per line (line-aligned paraphrase files, rewrites, captions)."""
    for _, text in _reader(path):
        yield text


def _wikisplit(path: Path) -> Iterator[str]:
    """``source<TAB>split``, the split's sentences separated by `` <::::> ``."""
    for _, text in _reader(path):
        source, _, split = text.partition("\t")
        yield source
        yield from split.split(" <::::> ")


def _flickr8k(path: Path) -> Iterator[str]:
    """``image#k<TAB>caption``."""
    for _, text in _reader(path):
        yield text.partition("\t")[2]


# group -> [(glob under paraphrase_extra/, reader)]
GROUPS: dict[str, list[tuple[str, Callable[[Path], Iterator[str]]]]] = {
    "extended": [
        ("quora_bimpm/*.tsv.gz", _tsv_columns((1, 2))),
        ("quora_paragen/*.q[12]", _lines),
        ("paws_wiki/*.tsv.gz", _tsv_columns((1, 2), header=True)),
        ("turkcorpus/*.tok.norm", _lines),
        ("turkcorpus/*.tok.turk.*", _lines),
        ("asset/asset.*", _lines),
        ("wikisplit/*.tsv.gz", _wikisplit),
        ("onestopenglish/*.txt*", _lines),
        ("wikianswers_paralex/val.q[12]", _lines),
        ("scitail/*.txt", _tsv_columns((0, 1))),
    ],
    "captions": [
        ("flickr8k/Flickr8k.token.txt.gz", _flickr8k),
        ("multi30k_task2_en/*.en.gz", _lines),
        ("snli/*.tsv.gz", _tsv_columns((0, 1), header=True)),
    ],
}


def _sts_train(root: Path) -> Iterator[tuple[str, str]]:
    from parasent.data.pit import read_pit2015
    from parasent.data.pools import sts2012_train_pairs
    from parasent.data.sick import read_sick

    for pair in sts2012_train_pairs(root):
        yield "sts2012-train", pair.s1
        yield "sts2012-train", pair.s2
    for split in ("SICK_train.txt", "SICK_trial.txt"):
        for pair in read_sick(root / "sick2014" / split):
            yield "sick-train", pair.s1
            yield "sick-train", pair.s2
    for pair in read_pit2015(root / "sts/pit2015/dev.data.gz"):
        yield "pit-dev", pair.s1
        yield "pit-dev", pair.s2


SOURCES = (*GROUPS, "sts-train")


def unlabelled_text(data_dir: str | Path, group: str) -> Iterator[tuple[str, str]]:
    """``(source, sentence)`` for every sentence of a group (see the module docstring), in a
    fixed order, stripped, empty ones skipped; duplicates are the caller's to remove."""
    root = Path(data_dir)
    if group == "sts-train":
        items: Iterator[tuple[str, str]] = _sts_train(root)
    elif group in GROUPS:
        items = _group(root, group)
    else:
        raise ValueError(f"unknown text group {group!r} (known: {', '.join(SOURCES)})")
    for source, text in items:
        text = text.strip()
        if text:
            yield source, text


def _group(root: Path, group: str) -> Iterator[tuple[str, str]]:
    for pattern, read in GROUPS[group]:
        files = sorted((root / EXTRA).glob(pattern))
        if not files:
            raise DataNotFoundError(f"text group {group!r}: no files match {root / EXTRA / pattern}")
        for path in files:
            for text in read(path):
                yield pattern.split("/")[0], text
