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


def test_take_reads_texts_by_index_in_runs(monkeypatch):
    monkeypatch.setattr(spool, "READ_BYTES", 64)
    monkeypatch.setattr(spool, "READ_GAP", 8)
    with TextSpool() as texts:
        texts.extend(f"text {i}" * (i % 5) for i in range(300))
        wanted = [299, 0, 7, 7, 150, 151, 152, 40]
        assert texts.take(wanted) == {i: f"text {i}" * (i % 5) for i in wanted}
        assert texts.take([]) == {}
        texts.append("later")
        assert texts.take([300, 1]) == {300: "later", 1: "text 1"}
        with pytest.raises(IndexError):
            texts.take([301])
