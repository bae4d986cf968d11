"""Unlabelled sentences of the shared data beyond the running text: the sentences of
``paraphrase_extra/`` and of the in-domain training splits, read as plain text (labels and
pairing ignored) for objectives that only need sentences (the teacher regression).

Four named groups (MANIFEST, "paraphrase_extra/"):

- ``extended``: Quora questions, PAWS-Wiki, TurkCorpus/ASSET rewrites, WikiSplit,
  OneStopEnglish, WikiAnswers and SciTail sentences (the extended pool without captions);
- ``captions``: Flickr8k and Multi30k captions and SNLI sentences, from the photo pools of the
  STS ``images`` and MSRvid-like sets and SICK: in-domain for those test sets, so a number
  that uses them must say so;
- ``sts-train``: the STS 2012 train sets, SICK train and trial, and PIT-2015 dev (training
  splits of the evaluation families, never their test or validation sentences);
- ``labelled-all``: every sentence of the Twitter URL corpus and MSRP, the pairs labelled
  non-paraphrase included (the standard pool takes the paraphrases alone).

The sources are records of :mod:`parasent.data.registry.catalog`, read by the reader their layout
names (:mod:`parasent.data.registry.layouts`; every line goes through
:class:`~parasent.support.lines.LineReader`, so a bad file names its path and line). The no-leakage filter is the caller's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from parasent.data.registry.catalog import TEXT_GROUPS

#: The named groups (see the module docstring); each is a list of registry records.
SOURCES = tuple(TEXT_GROUPS)


def unlabelled_text(data_dir: str | Path, group: str) -> Iterator[tuple[str, str]]:
    """``(source, sentence)`` for every sentence of a group (see the module docstring), in a
    fixed order, stripped, empty ones skipped; duplicates are the caller's to remove. A record
    of pairs gives both sides of each pair; the source is the record's group."""
    if group not in TEXT_GROUPS:
        raise ValueError(f"unknown text group {group!r} (known: {', '.join(SOURCES)})")
    root = Path(data_dir)
    for record in TEXT_GROUPS[group]:
        for item in record.read(root):
            for text in (item,) if isinstance(item, str) else (item.s1, item.s2):
                text = text.strip()
                if text:
                    yield record.group, text
