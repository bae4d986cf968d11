"""The PPDB phrase-similarity task of Pavlick et al. (2015) and its fixed dev/test split.

Wieting et al. (2016, Sec. 4.2.1 and Table 3) select every hyperparameter by Spearman's rho
on the human-rated PPDB pairs, so that the whole procedure uses PPDB alone. Here the 26,456
pairs of ``ppdb-sample`` are split once, by a seeded hash of the pair, into a *dev* half that
selects and a *test* half that reports; the split depends neither on file order nor on a
random number generator's version. ``wiki-sample`` (13,954 pairs) is a second, whole set.

The *ppdb* protocol trains on no Pavlick pair at all and on no pair that shares a phrase
with the test half (:func:`ppdb_protocol_exclusions`): the leakage guard on phrases.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from parasent.data.readers.ppdb import read_ppdb_human
from parasent.data.readers.records import ScoredPair
from parasent.data.training_text.leakage import normalize_for_leakage, pair_key

PPDB_SAMPLE = "paraphrase/ppdb_human_labels/ppdb-sample.tsv.gz"
WIKI_SAMPLE = "paraphrase/ppdb_human_labels/wiki-sample.tsv.gz"
PAVLICK_FILES = (PPDB_SAMPLE, WIKI_SAMPLE)
SPLIT_SEED = "parasent-ppdb-split-1"
SPLIT_PARTS = ("dev", "test")
#: Sizes of the split of the shared ``ppdb-sample.tsv.gz`` (26,456 pairs), checked by a data test.
SPLIT_SIZES = {"dev": 13_250, "test": 13_206}


def split_part(phrase1: str, phrase2: str, seed: str = SPLIT_SEED) -> str:
    """``dev`` or ``test`` for one pair: the parity of a SHA-256 of the seed and the pair."""
    digest = hashlib.sha256(f"{seed}\t{phrase1}\t{phrase2}".encode()).digest()
    return SPLIT_PARTS[digest[0] & 1]


def read_ppdb_scored(path: str | Path, part: str | None = None) -> list[ScoredPair]:
    """The rated pairs of ``path`` as scored pairs (mean human score, 1-5), all or one split part."""
    if part is not None and part not in SPLIT_PARTS:
        raise ValueError(f"unknown split part {part!r} (known: {', '.join(SPLIT_PARTS)})")
    return [
        ScoredPair(p.s1, p.s2, p.score)
        for p in read_ppdb_human(path)
        if part is None or split_part(p.s1, p.s2) == part
    ]


def ppdb_protocol_exclusions(root: str | Path) -> tuple[set[str], set[tuple[str, str]]]:
    """What the ppdb protocol keeps out of training: the normalised phrases of the test half
    (a pair with either side among them is dropped) and every Pavlick pair, as order-free keys
    of normalised phrases (both samples, all scores)."""
    root = Path(root)
    phrases: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    for name in PAVLICK_FILES:
        for pair in read_ppdb_human(root / name):
            left, right = normalize_for_leakage(pair.s1), normalize_for_leakage(pair.s2)
            pairs.add(pair_key(left, right))
            if name == PPDB_SAMPLE and split_part(pair.s1, pair.s2) == "test":
                phrases.update((left, right))
    phrases.discard("")
    return phrases, pairs
