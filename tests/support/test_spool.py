"""TextSpool: texts on disk, read back by index and in order, whatever they hold."""

from __future__ import annotations

import pytest

from parasent.support import spool
from parasent.support.spool import TextSpool

TEXTS = ["first", "", "with\ttab and\nnewline", "ünïcödé ✓", "x" * 5000, "last"]


def test_texts_come_back_by_index_and_in_order(monkeypatch):
    monkeypatch.setattr(spool, "READ_BYTES", 16)  # many small reads, one text larger than a read
    with TextSpool() as texts:
        texts.extend(TEXTS)
        assert len(texts) == len(TEXTS)
        assert [texts[i] for i in range(len(TEXTS))] == TEXTS
        assert texts[-1] == "last"
        assert list(texts) == TEXTS
        assert list(texts.iter(2, 4)) == TEXTS[2:4]
        texts.append("after a read")
        assert texts[len(TEXTS)] == "after a read"
        with pytest.raises(IndexError):
            texts[len(TEXTS) + 1]


def test_an_empty_spool_iterates_nothing():
    with TextSpool() as texts:
        assert len(texts) == 0 and list(texts) == []
