import numpy as np
import pytest

from parasent.distillation.cache import CONTEXTUAL_FOLDER, CachedTeacher
from parasent.distillation.contextual import ContextualSums, word_spans
from parasent.distillation.teacher import Teacher


def test_word_spans_follow_the_tokenizer():
    assert word_spans("Dominick's DOG.") == [
        ("dominick", 0, 8),
        ("'", 8, 9),
        ("s", 9, 10),
        ("dog", 11, 14),
        (".", 14, 15),
    ]


def test_sums_average_word_pieces_per_occurrence():
    sums = ContextualSums.empty(2)
    tokens = np.array([[9, 9], [1, 0], [3, 0], [0, 1], [9, 9]], dtype=np.float32)
    offsets = [(0, 0), (0, 4), (4, 7), (8, 11), (0, 0)]  # [CLS] play ##ing dog [SEP]
    sums.add("Playing dog", tokens, offsets)
    sums.add("dog", np.array([[0, 3]], dtype=np.float32), [(0, 3)])
    vectors = sums.vectors()
    np.testing.assert_allclose(vectors["playing"], [1, 0])  # mean of its two pieces, normalised
    np.testing.assert_allclose(vectors["dog"], [0, 1])
    assert sums.counts[sums.words.index("dog")] == 2
    assert set(sums.vectors(min_count=2)) == {"dog"}
    trimmed = sums.trimmed()
    assert len(trimmed.sums) == 2 and trimmed.vectors().keys() == vectors.keys()


def test_transformer_teacher_tokens_average_to_its_sentence_embedding(tiny_transformer_teacher_dir):
    teacher = Teacher(tiny_transformer_teacher_dir, device="cpu")
    assert teacher.mean_pooling()
    texts = ["the big dogs", "a man is talking ."]
    encoded = teacher.encode_tokens(texts)
    sentence = teacher.encode(texts)
    for (tokens, offsets, pieces), target in zip(encoded, sentence, strict=True):
        assert pieces[0] == "[CLS]" and len(pieces) == len(tokens)
        assert len(tokens) == len(offsets) and offsets[0] == (0, 0)
        mean = tokens.mean(axis=0)
        np.testing.assert_allclose(mean / np.linalg.norm(mean), target, atol=1e-5)


def test_cached_contextual_pass_fills_both_caches(tiny_transformer_teacher_dir, tiny_teacher_dir, tmp_path):
    texts = ["the big dogs", "a man is talking .", "the dog"]
    teacher = CachedTeacher(str(tiny_transformer_teacher_dir), cache_dir=tmp_path, progress=False)
    sums = teacher.contextual(texts)
    assert {"dogs", "dog", "talking", "."} <= set(sums.words)
    assert all(t in teacher.cache for t in texts)
    again = CachedTeacher(str(tiny_transformer_teacher_dir), cache_dir=tmp_path, progress=False)
    reloaded = again.contextual(list(reversed(texts)))  # same set of texts: from the cache
    assert again._teacher is None and reloaded.words == sums.words
    np.testing.assert_allclose(reloaded.sums, sums.sums)
    static = CachedTeacher(str(tiny_teacher_dir), cache_dir=tmp_path, progress=False)
    assert static.contextual(texts) is None  # a static-embedding teacher has no token embeddings


def test_distillation_uses_contextual_vectors_where_it_has_them():
    from parasent.distillation.words import distill_word_vectors

    contextual = {"dog": np.array([0.0, 1.0], dtype=np.float32)}
    asked = []

    def encode(words):
        asked.extend(words)
        return np.tile(np.array([[1.0, 0.0]], dtype=np.float32), (len(words), 1))

    result = distill_word_vectors(encode, ["cat", "dog"], weighting="none", contextual=contextual)
    assert asked == ["cat"] and result.info["contextual"] == 1
    np.testing.assert_allclose(result.vectors.matrix, [[1, 0], [0, 1]])
    with pytest.raises(ValueError):
        distill_word_vectors(encode, [], weighting="none")


def test_token_budget_batches_match_sentence_transformers(tiny_transformer_teacher_dir, monkeypatch):
    """Length-sorted token-budget batches give sentence-transformers' own embeddings, in the
    input order, whatever the batch boundaries."""
    from parasent.distillation import teacher as teacher_module

    teacher = Teacher(tiny_transformer_teacher_dir, device="cpu")
    texts = [
        "a man is talking to the big dogs on the road today .",
        "dogs",
        "",
        "the big dogs",
        "a man .",
    ] * 3
    reference = teacher.model.encode(texts, convert_to_numpy=True, normalize_embeddings=True)
    for budget in (1, 16, 4096):
        monkeypatch.setattr(teacher_module, "TOKEN_BUDGET", budget)
        np.testing.assert_allclose(teacher.encode(texts, batch_size=1), reference, atol=1e-5)
        tokens = teacher.encode_tokens(texts, batch_size=1)
        assert [len(t.vectors) for t in tokens] == [len(t.offsets) for t in tokens]
        means = np.stack([t.vectors.mean(axis=0) for t in tokens])
        np.testing.assert_allclose(means / np.linalg.norm(means, axis=1, keepdims=True), reference, atol=1e-5)


def test_killed_contextual_pass_resumes_from_its_last_save(
    tiny_transformer_teacher_dir, tmp_path, monkeypatch
):
    import parasent.distillation.cache as teacher_cache

    texts = ["the big dogs", "a man is talking .", "the dog", "dogs run", "a big man"]
    whole = CachedTeacher(str(tiny_transformer_teacher_dir), cache_dir=tmp_path / "whole", progress=False)
    expected = whole.contextual(texts, chunk=1)
    monkeypatch.setattr(teacher_cache, "CHECKPOINT_SECONDS", -1.0)  # save after every chunk
    first = CachedTeacher(str(tiny_transformer_teacher_dir), cache_dir=tmp_path / "cut", progress=False)
    first._teacher = teacher_cache.Teacher(first.path, max_length=first.max_length)
    calls = []
    real = first._teacher.encode_tokens

    def dies_on_the_third_chunk(part, **kwargs):
        calls.append(list(part))
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(part, **kwargs)

    first._teacher.encode_tokens = dies_on_the_third_chunk
    with pytest.raises(KeyboardInterrupt):
        first.contextual(texts, chunk=1)
    assert list((first.cache.directory / teacher_cache.CONTEXTUAL_FOLDER).glob("*.partial.safetensors"))
    resumed = CachedTeacher(str(tiny_transformer_teacher_dir), cache_dir=tmp_path / "cut", progress=False)
    resumed._teacher = teacher_cache.Teacher(resumed.path, max_length=resumed.max_length)
    seen = []
    again = resumed._teacher.encode_tokens
    resumed._teacher.encode_tokens = lambda part, **kw: (seen.extend(part), again(part, **kw))[1]
    sums = resumed.contextual(texts, chunk=1)
    assert sorted(seen) == sorted(set(texts) - {t for chunk in calls[:2] for t in chunk})  # only the rest
    assert sums.words == expected.words
    np.testing.assert_allclose(sums.sums, expected.sums, atol=1e-6)
    np.testing.assert_array_equal(sums.counts, expected.counts)
    assert not list((resumed.cache.directory / teacher_cache.CONTEXTUAL_FOLDER).glob("*.partial.safetensors"))


def test_a_damaged_partial_file_is_named_in_a_one_line_error(tiny_transformer_teacher_dir, tmp_path):
    from parasent.errors import ModelFormatError

    texts = ["the dog", "a cat"]
    teacher = CachedTeacher(str(tiny_transformer_teacher_dir), cache_dir=tmp_path, progress=False)
    digest = __import__("hashlib").sha256("\n".join(sorted(set(texts))).encode()).hexdigest()[:16]
    partial = teacher.cache.directory / CONTEXTUAL_FOLDER / f"{digest}.partial.safetensors"
    partial.parent.mkdir(parents=True)
    partial.write_bytes(b"not safetensors")
    with pytest.raises(ModelFormatError, match="partial.safetensors"):
        teacher.contextual(texts)


def test_a_larger_text_passes_the_teacher_over_the_new_texts_only(tiny_transformer_teacher_dir, tmp_path):
    from parasent.distillation import cache as teacher_cache

    first = ["the big dogs", "a man is talking .", "the dog"]
    more = first + ["dogs run", "a big man"]
    expected = CachedTeacher(str(tiny_transformer_teacher_dir), cache_dir=tmp_path / "one", progress=False)
    expected = expected.contextual(more)
    teacher = CachedTeacher(str(tiny_transformer_teacher_dir), cache_dir=tmp_path / "two", progress=False)
    teacher.contextual(first)
    teacher._teacher = teacher_cache.Teacher(teacher.path, max_length=teacher.max_length)
    seen = []
    real = teacher._teacher.encode_tokens
    teacher._teacher.encode_tokens = lambda part, **kw: (seen.extend(part), real(part, **kw))[1]
    sums = teacher.contextual(more)
    assert sorted(seen) == ["a big man", "dogs run"]
    assert sorted(sums.words) == sorted(expected.words)
    order = [sums.words.index(w) for w in expected.words]
    np.testing.assert_allclose(sums.sums[order], expected.sums, atol=1e-5)
    np.testing.assert_array_equal(sums.counts[order], expected.counts)
    seen.clear()
    assert (
        teacher.contextual(list(reversed(more))).words == sums.words and not seen
    )  # from the two stored files
    subset = teacher.contextual(["the dog", "dogs run"])  # no stored file covers only these: a pass
    assert sorted(seen) == ["dogs run", "the dog"] and "big" not in subset.words


def test_lone_pieces_lose_their_common_directions():
    from parasent.distillation.postprocess import all_but_the_top
    from parasent.distillation.words import distill_word_vectors

    rng = np.random.default_rng(0)
    shared = rng.normal(size=8)
    pieces = ["[p]\u0430", "[p]##\u043e", "[p]##\u0435", "[p]\u0438", "[p]##\u043d", "[p]##\u0442"]

    def encode(words):  # alone, every piece is mostly the shared direction
        return np.array([shared + 0.1 * rng.normal(size=8) for _ in words], dtype=np.float32)

    contextual = {"dog": np.ones(8, dtype=np.float32) / np.sqrt(8)}
    result = distill_word_vectors(
        encode, ["dog", *pieces], weighting="none", contextual=contextual, piece_components=1
    )
    rows = result.vectors.matrix[1:]
    np.testing.assert_allclose(rows.mean(axis=0), 0, atol=1e-6)  # centred
    np.testing.assert_allclose(result.vectors.matrix[0], contextual["dog"])  # contextual rows untouched
    assert result.info["piece_components"] == {"removed": 1, "pieces": 6}
    assert abs(np.corrcoef(rows)[np.triu_indices(6, 1)].mean()) < 0.5
    with pytest.raises(ValueError, match="need more than 6"):
        all_but_the_top(rows, 6)
