"""The contextual teacher pass shared by processes: each passes the texts of its share, and
process 0 adds the shares into exactly the file one process writes."""

import numpy as np

from parasent.distillation.cache import CONTEXTUAL_FOLDER, CachedTeacher, Ranks, rank_share

TEXTS = [f"the {a} cat sat on the {b} mat near a {c} dog" for a in ("big", "small", "red") for b in ("blue", "old") for c in ("fast", "slow", "talking", "dog")]  # fmt: skip
TEXTS += ["a guitar", "talkinger things", "running and playing", "zzzz qqqq"]


def test_rank_shares_are_whole_chunks_of_the_single_pass_dealt_in_a_snake():
    ordered = sorted(sorted(set(TEXTS)), key=len)
    chunks = [ordered[i : i + 3] for i in range(0, len(ordered), 3)]  # 10 chunks, the last of 1
    shares = [rank_share(list(reversed(TEXTS)), rank, 3, chunk=3) for rank in range(3)]
    assert shares[0] == chunks[0] + chunks[5] + chunks[6]  # 0 1 2 | 2 1 0 | 0 1 2 | 2
    assert shares[1] == chunks[1] + chunks[4] + chunks[7]
    assert shares[2] == chunks[2] + chunks[3] + chunks[8] + chunks[9]
    assert rank_share(TEXTS, 0, 1, chunk=3) == ordered


def stored_files(cache):
    folder = next(cache.glob(f"*/{CONTEXTUAL_FOLDER}"))
    return sorted(p.name for p in folder.glob("*.safetensors"))


def test_two_ranks_write_the_file_of_one_process(tiny_transformer_teacher_dir, tmp_path):
    teacher = str(tiny_transformer_teacher_dir)
    single = CachedTeacher(teacher, cache_dir=tmp_path / "one", progress=False, batch_size=4)
    single.contextual(TEXTS, chunk=5)
    targets = single.cache.get(TEXTS, lambda texts: 1 / 0)
    expected = CachedTeacher(teacher, cache_dir=tmp_path / "one", progress=False).contextual(
        TEXTS
    )  # its file
    # process 1 then process 0 (the barriers are where each waits for the other)
    processes = [
        CachedTeacher(teacher, cache_dir=tmp_path / "two", progress=False, batch_size=4) for _ in range(2)
    ]
    barrier = lambda: None  # noqa: E731
    assert processes[1].contextual(TEXTS, chunk=5, ranks=Ranks(1, 2, barrier)) is None  # not combined yet
    assert len(stored_files(tmp_path / "two")) == 1  # its share's file
    combined = processes[0].contextual(TEXTS, chunk=5, ranks=Ranks(0, 2, barrier))
    assert stored_files(tmp_path / "two") == stored_files(tmp_path / "one")  # the shares' files merged away
    assert combined.words == expected.words  # the same rows in the same order
    np.testing.assert_array_equal(combined.counts, expected.counts)
    np.testing.assert_allclose(combined.sums, expected.sums, rtol=1e-5, atol=1e-6)
    assert not np.array_equal(expected.sums, 0)
    # every sentence target is there, computed on its process: identical to one process's
    np.testing.assert_array_equal(processes[0].cache.get(TEXTS, lambda texts: 1 / 0), targets)
    # the file is now what one process reads, without loading the teacher
    again = CachedTeacher(teacher, cache_dir=tmp_path / "two", progress=False)
    assert again.contextual(TEXTS).words == expected.words and again._teacher is None


def test_a_rank_whose_share_is_stored_passes_nothing(tiny_transformer_teacher_dir, tmp_path):
    teacher = str(tiny_transformer_teacher_dir)
    barrier = lambda: None  # noqa: E731
    first = CachedTeacher(teacher, cache_dir=tmp_path, progress=False)
    first.contextual(TEXTS, ranks=Ranks(1, 2, barrier))
    again = CachedTeacher(teacher, cache_dir=tmp_path, progress=False)
    again.contextual(TEXTS, ranks=Ranks(1, 2, barrier))  # a restarted process 1: its share is done
    assert again._teacher is None


def test_the_shares_of_a_static_teacher_are_none(tiny_teacher_dir, tmp_path):
    barrier = lambda: None  # noqa: E731
    for rank in (1, 0):
        teacher = CachedTeacher(str(tiny_teacher_dir), cache_dir=tmp_path, progress=False)
        assert teacher.contextual(TEXTS, ranks=Ranks(rank, 2, barrier)) is None


def test_two_ranks_pass_the_word_states_one_process_passes(tiny_transformer_teacher_dir, tmp_path):
    """`teacher-pass` with --teacher-tokens: each process passes its share of the word states."""
    from parasent.distillation.corpus_pass import _pass_word_states
    from parasent.distillation.provider import TeacherSide

    teacher, said, barrier = str(tiny_transformer_teacher_dir), [], lambda: None
    sides = [
        TeacherSide(CachedTeacher(teacher, cache_dir=tmp_path, progress=False, batch_size=4), TEXTS, 1.0)
        for _ in range(2)
    ]
    for rank in (1, 0):
        _pass_word_states(sides[rank], Ranks(rank, 2, barrier), said.append, chunk=5)
    shards = list(tmp_path.glob("*/word-states/*.safetensors"))
    assert len(shards) >= 2  # each process wrote its own
    reader = CachedTeacher(teacher, cache_dir=tmp_path, progress=False)
    assert reader.word_states_estimate(TEXTS)[0] == 0 and reader._teacher is None  # all there
    one = CachedTeacher(teacher, cache_dir=tmp_path / "one", progress=False, batch_size=4).word_states(TEXTS)
    for mine, theirs in zip(reader.word_states(TEXTS), one, strict=True):
        np.testing.assert_allclose(mine.astype(np.float32), theirs.astype(np.float32), atol=2e-3)
    assert any(line.startswith("teacher pass (word states): ") for line in said)


def test_a_teacher_without_mean_pooling_is_refused_before_any_pass(tiny_teacher_dir, tmp_path):
    import pytest

    from parasent.distillation.corpus_pass import pass_teacher_text
    from parasent.distillation.provider import TeacherSide
    from parasent.distillation.teacher import mean_pooling_files
    from parasent.errors import OptionError

    teacher = CachedTeacher(str(tiny_teacher_dir), cache_dir=tmp_path, progress=False)
    with pytest.raises(
        OptionError, match="--teacher-tokens matches the teacher's word states: teacher .* not a"
    ):
        pass_teacher_text(
            TeacherSide(teacher, TEXTS, 1.0), None, contextual=False, say=print, word_states=True
        )
    assert not list(tmp_path.rglob("*.safetensors"))  # not even the sentence pass was made
    assert not mean_pooling_files(tiny_teacher_dir)
