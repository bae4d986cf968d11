import gzip

import pytest

from parasent.data.readers.ppdb_task import (
    PPDB_SAMPLE,
    SPLIT_SIZES,
    WIKI_SAMPLE,
    ppdb_protocol_exclusions,
    read_ppdb_scored,
    split_part,
)
from parasent.data.training_text.leakage import normalize_for_leakage, pair_key


def write_ratings(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for score, a, b in rows:
            handle.write(f"{score}\t[NP]\t{a}\t{b}\t1.0,2.0\n")


ROWS = [(1.0 + (i % 40) / 10, f"phrase {i}", f"other phrase {i}") for i in range(200)]


def test_split_is_a_fixed_partition_of_the_pairs(tmp_path):
    path = tmp_path / "ratings.tsv.gz"
    write_ratings(path, ROWS)
    every = read_ppdb_scored(path)
    dev, test = read_ppdb_scored(path, "dev"), read_ppdb_scored(path, "test")
    assert len(every) == 200 and len(dev) + len(test) == 200
    assert {(p.s1, p.s2) for p in dev}.isdisjoint({(p.s1, p.s2) for p in test})
    assert 60 < len(dev) < 140  # about half
    assert [p.score for p in every[:3]] == [1.0, 1.1, 1.2]
    # the part depends on the pair alone: not on file order, and a different seed gives a different split
    write_ratings(path, ROWS[::-1])
    assert {(p.s1, p.s2) for p in read_ppdb_scored(path, "dev")} == {(p.s1, p.s2) for p in dev}
    assert [split_part(a, b) for _, a, b in ROWS] != [split_part(a, b, seed="other") for _, a, b in ROWS]
    with pytest.raises(ValueError, match="unknown split part"):
        read_ppdb_scored(path, "train")


def test_ppdb_protocol_excludes_test_phrases_and_every_pavlick_pair(tmp_path):
    write_ratings(tmp_path / PPDB_SAMPLE, ROWS)
    write_ratings(tmp_path / WIKI_SAMPLE, [(3.0, "The Wiki phrase", "a wiki phrase")])
    phrases, pairs = ppdb_protocol_exclusions(tmp_path)
    test = [(a, b) for _, a, b in ROWS if split_part(a, b) == "test"]
    dev = [(a, b) for _, a, b in ROWS if split_part(a, b) == "dev"]
    assert {normalize_for_leakage(a) for a, _ in test} <= phrases
    assert not {normalize_for_leakage(a) for a, _ in dev} & phrases
    assert len(pairs) == 201  # both samples, every score
    assert pair_key(normalize_for_leakage("a wiki phrase"), normalize_for_leakage("The Wiki phrase")) in pairs


@pytest.mark.data
def test_split_sizes_of_the_shared_file(shared_data_dir):
    sizes = {part: len(read_ppdb_scored(shared_data_dir / PPDB_SAMPLE, part)) for part in SPLIT_SIZES}
    assert sizes == SPLIT_SIZES and sum(sizes.values()) == 26_456
