"""The linear-probing hash table of many-key lookups (parasent.text.probing_table)."""

import numpy as np
import pytest

from parasent.text.probing_table import _MIX, ProbingTable

pytestmark = pytest.mark.core


def test_every_key_is_found_and_absent_keys_are_missing():
    rng = np.random.default_rng(0)
    keys = np.unique(rng.integers(0, 2**63, size=5000, dtype=np.uint64))
    values = rng.permutation(len(keys))
    table = ProbingTable(keys, values)
    np.testing.assert_array_equal(table.find(keys, missing=-7), values)
    absent = np.setdiff1d(rng.integers(0, 2**63, size=2000, dtype=np.uint64), keys)
    assert (table.find(absent, missing=-7) == -7).all()
    mixed = np.concatenate([absent[:50], keys[:50]])
    assert table.find(mixed, missing=1).tolist() == [1] * 50 + values[:50].tolist()


def test_keys_sharing_a_home_slot_form_a_run_past_the_last_slot():
    # keys whose mixed value has the same top bits share the last home slot: they must spill
    # into the table's tail, and a key that is absent but has that home must still miss
    inverse = np.uint64(pow(int(_MIX), -1, 2**64))
    top = np.uint64(0xFFFF_FFFF_0000_0000)
    keys = (top + np.arange(1, 41, dtype=np.uint64)) * inverse  # all mix to the top of the range
    table = ProbingTable(keys, np.arange(40))
    assert table.find(keys, missing=-1).tolist() == list(range(40))
    assert table.find(np.array([top + np.uint64(99)]) * inverse, missing=-1).tolist() == [-1]


def test_small_and_empty_tables():
    empty = ProbingTable(np.zeros(0, np.uint64), np.zeros(0, np.int64))
    assert empty.find(np.arange(3, dtype=np.uint64), missing=5).tolist() == [5, 5, 5]
    one = ProbingTable(np.array([0], np.uint64), np.array([4]))  # the key 0 is a key like any other
    assert one.find(np.array([0, 1], np.uint64), missing=9).tolist() == [4, 9]
    assert one.find(np.zeros(0, np.uint64), missing=9).tolist() == []


def test_ids_outside_int32_are_refused_and_signed_keys_are_found():
    with pytest.raises(ValueError, match="2\\*\\*31"):
        ProbingTable(np.array([1, 2], np.uint64), np.array([0, 2**31]))
    with pytest.raises(ValueError):
        ProbingTable(np.array([1], np.uint64), np.array([-1]))  # -1 marks a free slot
    table = ProbingTable(np.array([5, 7], np.uint64), np.array([1, 2]))
    assert table.find(np.array([7, 5, 6], dtype=np.int64), missing=0).tolist() == [2, 1, 0]


def test_keys_of_higher_priority_take_their_home_slot_first():
    # keys sharing one home slot: the first in priority sits at home (one probe to find it),
    # whatever their order or their ids, and every key is still found
    inverse = np.uint64(pow(int(_MIX), -1, 2**64))
    keys = (np.uint64(0x8000_0000_0000_0000) + np.arange(1, 9, dtype=np.uint64)) * inverse
    for priority in (np.arange(8), np.arange(8)[::-1], np.array([5, 3, 7, 0, 6, 1, 4, 2])):
        table = ProbingTable(keys, np.arange(8) + 10, priority)
        home = int(table._home(keys[:1])[0])
        assert table._keys[home] == keys[int(np.argmin(priority))]
        assert table.find(keys, missing=-1).tolist() == list(range(10, 18))
    by_value = ProbingTable(keys, np.array([9, 8, 7, 6, 5, 4, 3, 2]))  # default: lower ids first
    assert by_value._keys[int(by_value._home(keys[:1])[0])] == keys[7]
