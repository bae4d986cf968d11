"""A model scored on the user's own pairs: the figures of each kind of file, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from parasent.cli import main
from parasent.data.readers.records import TrainingPair
from parasent.data.training_text.pools import sniff_pair_format
from parasent.evaluation.file_pairs import PairsEvaluator, evaluate_pairs
from parasent.evaluation.metrics import average_precision, best_f1, roc_auc

pytestmark = pytest.mark.core


class Lookup:
    """A model whose vector of a text is given: the figures are checked against hand-made cosines."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors = vectors

    def encode(self, texts, batch_size=32):
        return np.array([self.vectors[t] for t in texts], dtype=np.float32)


def _brute_ap(scores, labels):
    order = np.argsort(-np.asarray(scores))
    hits = np.asarray(labels)[order]
    precision = np.cumsum(hits) / np.arange(1, len(hits) + 1)
    return float((precision * hits).sum() / hits.sum() * 100)


def test_ranking_figures_match_their_definitions():
    rng = np.random.default_rng(0)
    scores, labels = rng.normal(size=200), (rng.random(200) < 0.3).astype(int)  # no ties
    assert average_precision(scores, labels) == pytest.approx(_brute_ap(scores, labels))
    positives, negatives = scores[labels == 1], scores[labels == 0]
    auc = (positives[:, None] > negatives[None, :]).mean() * 100
    assert roc_auc(scores, labels) == pytest.approx(auc)
    decided = best_f1(scores, labels)
    predicted = scores >= decided["threshold"]
    tp = int((predicted & (labels == 1)).sum())
    assert decided["f1"] == pytest.approx(200 * tp / (predicted.sum() + labels.sum()))
    assert average_precision(scores, np.zeros(200)) == 0.0 and roc_auc(scores, np.ones(200)) == 0.0


def test_labelled_scored_and_plain_pairs_each_get_their_figures():
    model = Lookup({"a": [1, 0], "b": [1, 0.1], "c": [0, 1], "d": [1, 1], "e": [-1, 0.2]})
    labelled = PairsEvaluator([TrainingPair("a", "b", "f", 1.0), TrainingPair("a", "c", "f", 0.0),
                               TrainingPair("c", "e", "f", 0.0)])(model)  # fmt: skip
    assert labelled.primary_metric == "average_precision" and labelled.primary == 100.0
    assert labelled.figures["roc_auc"] == 100.0 and labelled.figures["f1_at_threshold"] == 100.0
    scored = PairsEvaluator([TrainingPair("a", "b", "f", 4.5), TrainingPair("a", "d", "f", 3.0),
                             TrainingPair("a", "c", "f", 0.5)])(model)  # fmt: skip
    assert scored.primary_metric == "pearson" and scored.figures["spearman"] == pytest.approx(100.0)
    plain = PairsEvaluator([TrainingPair("a", "b", "f"), TrainingPair("d", "e", "f")])(model)
    assert plain.kind == "retrieval" and plain.figures == {"top1_accuracy": 50.0, "mrr": 75.0}
    with pytest.raises(ValueError, match="mix scored and unscored"):
        PairsEvaluator([TrainingPair("a", "b", "f", 1.0), TrainingPair("a", "c", "f")])


def test_retrieval_in_blocks_is_the_whole_matrix_and_duplicates_do_not_count_against(monkeypatch):
    from parasent.evaluation import file_pairs
    from parasent.evaluation.file_pairs import rank_answers

    rng = np.random.default_rng(1)
    first, second = rng.normal(size=(50, 8)), rng.normal(size=(50, 8))
    answers = np.arange(50)
    whole = rank_answers(first, second, answers)
    monkeypatch.setattr(file_pairs, "RETRIEVAL_BLOCK", 7 * 50)
    assert rank_answers(first, second, answers) == whole
    # two pairs with the same second sentence: a perfect model finds both
    model = Lookup({"a": [1, 0, 0], "b": [0, 0.1, 1], "x": [1, 0.1, 0], "y": [0, 0, 1]})
    pairs = [TrainingPair("a", "x", "f"), TrainingPair("a", "x", "f"), TrainingPair("b", "y", "f")]
    assert PairsEvaluator(pairs)(model).figures == {"top1_accuracy": 100.0, "mrr": 100.0}


def test_a_candidate_the_file_pairs_with_the_query_or_the_query_itself_is_no_miss(monkeypatch):
    from parasent.evaluation import file_pairs

    # "q" has two duplicates, "d1" and "d2", and is itself a pair's second sentence
    vectors = {"q": [1, 0, 0], "d1": [0.9, 0.1, 0], "d2": [0.8, 0.3, 0], "r": [0, 1, 0], "s": [0, 0.9, 0.2]}
    pairs = [TrainingPair("q", "d1", "f"), TrainingPair("q", "d2", "f"), TrainingPair("d1", "q", "f"),
             TrainingPair("r", "s", "f")]  # fmt: skip
    report = PairsEvaluator(pairs)(Lookup(vectors))
    # q -> d2 finds q itself and d1 (its other duplicate) nearer: neither competes with d2
    assert report.figures == {"top1_accuracy": 100.0, "mrr": 100.0}
    monkeypatch.setattr(file_pairs, "known_answers", lambda pairs, index: None)  # unfiltered
    assert PairsEvaluator(pairs)(Lookup(vectors)).figures["top1_accuracy"] == 25.0  # each finds itself first


def test_filtered_retrieval_is_its_definition_in_blocks_of_any_size(monkeypatch):
    from parasent.evaluation import file_pairs

    rng = np.random.default_rng(4)
    texts = [f"t{i}" for i in range(40)]
    model = Lookup({t: list(rng.normal(size=6)) for t in texts})
    pairs = [TrainingPair("t0", f"t{i}", "f") for i in range(1, 16)]  # one question, 15 duplicates
    pairs += [TrainingPair(texts[i], texts[j], "f") for i, j in rng.integers(0, 40, size=(30, 2)) if i != j]
    vectors = {t: np.array(v) / np.linalg.norm(v) for t, v in model.vectors.items()}
    candidates = list(dict.fromkeys(p.s2 for p in pairs))
    partners = {}
    for p in pairs:
        partners.setdefault(p.s1, set()).add(p.s2)
        partners.setdefault(p.s2, set()).add(p.s1)
    hits = []
    for p in pairs:  # by definition: the answer against every candidate not known to answer the query
        rivals = [c for c in candidates if c not in partners[p.s1] | {p.s1}]
        own = vectors[p.s1] @ vectors[p.s2]
        hits.append(all(vectors[p.s1] @ vectors[c] < own for c in rivals))
    whole = PairsEvaluator(pairs)(model).figures
    assert whole["top1_accuracy"] == pytest.approx(100 * np.mean(hits))
    monkeypatch.setattr(file_pairs, "RETRIEVAL_BLOCK", 3 * len(candidates))  # 3 queries a block
    assert PairsEvaluator(pairs)(model).figures == pytest.approx(whole)


def test_pairs_of_several_files_are_scored_file_by_file():
    model = Lookup({"a": [1, 0], "b": [1, 0.1], "c": [0, 1], "d": [1, 1], "e": [-1, 0.2]})
    pairs = [TrainingPair("a", "b", "f:x.tsv"), TrainingPair("d", "e", "f:x.tsv"),
             TrainingPair("a", "b", "f:y.tsv", 1.0), TrainingPair("a", "c", "f:y.tsv", 0.0)]  # fmt: skip
    report = PairsEvaluator(pairs, "held-out")(model)
    assert report.kind == "mixed" and report.primary_metric == "mean_of_files"
    assert (
        report.figures["f:x.tsv top1_accuracy"] == 50.0
        and report.figures["f:y.tsv average_precision"] == 100.0
    )
    assert report.primary == pytest.approx(75.0)


def test_the_format_is_read_from_the_file_when_not_given(tmp_path):
    cases = {"1\ta\tb\n0\tc\td\n": "labelled", "4.2\ta\tb\n1\tc\td\n": "sts", "a\tb\nc\td\n": "tsv"}
    for index, (text, fmt) in enumerate(cases.items()):
        path = tmp_path / f"f{index}.tsv"
        path.write_text(text)
        assert sniff_pair_format(path) == fmt


def test_one_bad_line_is_reported_where_it_is_not_read_as_another_format(tmp_path, capsys):
    good = [f"{i % 2}\tsentence {i}\tanother {i}" for i in range(40)]
    path = tmp_path / "mine.tsv"
    path.write_text("\n".join(good[:20] + ["a line with no tab"] + good[20:]) + "\n")
    assert sniff_pair_format(path) == "labelled"  # what most lines are, not tsv
    assert main(["evaluate", "--pairs", str(path), "--model", "default"]) == 2
    assert "mine.tsv:21: expected 'label<TAB>s1<TAB>s2'" in capsys.readouterr().err
    path.write_text("\n".join(good[:30] + ["2\ta third class\tof pairs"] + good[30:]) + "\n")
    with pytest.raises(ValueError, match=r"mine\.tsv:31: its first field takes only the values 0, 1, 2"):
        sniff_pair_format(path)
    many = [f"{i % 2}\tsentence {i}\tanother {i}" for i in range(400)]
    path.write_text("\n".join(many[:300] + ["2\ta stray label\tof a pair"] + many[300:]) + "\n")
    assert sniff_pair_format(path) == "labelled"  # one stray 2 in 401 lines: a bad line, named by its reader


def test_evaluate_pairs_from_the_command_line_and_python(tmp_path, capsys):
    path = tmp_path / "mine.tsv"
    path.write_text(("1\tA man plays a guitar.\tSomeone plays the guitar.\n0\tA man plays a guitar.\tThe stock market fell.\n"
                     "1\tA dog runs in a field.\tA puppy is running on grass.\n0\tA dog runs.\tTaxes rose again.\n") * 3)  # fmt: skip
    assert main(["evaluate", "--pairs", str(path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "mine.tsv:labelled (12 labelled pairs)" in out and "average precision  <- headline" in out
    import parasent

    report = evaluate_pairs(parasent.load(), f"{path}:labelled")
    assert report.primary == pytest.approx(100.0)
    bad = tmp_path / "bad.tsv"
    bad.write_text("1\tA man.\tA guy.\nyes\tA dog.\tA cat.\n")
    assert main(["evaluate", "--pairs", f"{bad}:labelled", "--quiet"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"parasent: error: {bad}:2: label 'yes' is not an integer; it looks like a label 'yes': labelled pairs "
        "are 1 (paraphrase) or 0, as label<TAB>s1<TAB>s2"
    )


def test_a_file_of_one_score_is_never_a_silent_figure():
    model = Lookup({"a": [1, 0], "b": [1, 0.1], "c": [0, 1], "d": [1, 1]})
    positives = PairsEvaluator([TrainingPair("a", "b", "f", 1.0), TrainingPair("c", "d", "f", 1.0)], "mine")
    report = positives(model)  # AP would be 100 and ROC AUC undefined: each s1 finds its s2 instead
    assert report.kind == "retrieval" and report.primary_metric == "top1_accuracy"
    assert report.skipped == [
        "mine: every pair is labelled 1: scored as retrieval (each first sentence finds its second among all)"
    ]
    with pytest.raises(ValueError, match="mine: every pair is labelled 0"):
        PairsEvaluator([TrainingPair("a", "b", "f", 0.0), TrainingPair("c", "d", "f", 0.0)], "mine")
    with pytest.raises(
        ValueError, match="mine: every pair has the score 3: ranking and correlation need different scores"
    ):
        PairsEvaluator([TrainingPair("a", "b", "f", 3.0), TrainingPair("c", "d", "f", 3.0)], "mine")


def test_a_pairs_spec_names_its_mistake(tmp_path, capsys):
    from parasent.data.training_text.pools import resolve_pair_spec

    mine = tmp_path / "mine.tsv"
    mine.write_text("1\ta cat\ta kitten\n0\ta dog\ta car\n")
    assert resolve_pair_spec(f"{mine}:labeled") == (str(mine), "labelled")  # either spelling, any case
    assert resolve_pair_spec(f"{mine}:STS") == (str(mine), "sts")
    with pytest.raises(ValueError, match="unknown pair format 'csv' \\(known: tsv, labelled, ppdb, sts\\)"):
        resolve_pair_spec(f"{mine}:csv")
    assert main(["evaluate", "--pairs", "sts2016"]) == 2
    assert (
        capsys.readouterr().err.strip()
        == "parasent: error: sts2016: a suite, not a file of pairs (evaluate --suite sts2016)"
    )


def test_class_labels_are_never_read_as_scores(tmp_path, capsys):
    """NLI's 0/1/2 read as scores gave Pearson -45.42 without a word; a label 2 in a file named
    :labelled was scored as STS (pearson 6.66): the format named is obeyed, and guessing refuses."""
    nli = tmp_path / "nli.tsv"
    nli.write_text("".join(f"{i % 3}\ta man sleeps {i}\ta person is asleep {i}\n" for i in range(30)))
    with pytest.raises(ValueError, match="takes only the values 0, 1, 2: class labels"):
        sniff_pair_format(nli)
    assert main(["evaluate", "--pairs", str(nli)]) == 2
    assert "name the format" in capsys.readouterr().err
    assert main(["evaluate", "--pairs", f"{nli}:labelled"]) == 2
    assert "nli.tsv:3: label 2 is not 0 or 1" in capsys.readouterr().err.strip().splitlines()[-1]
    assert main(["evaluate", "--pairs", f"{nli}:sts"]) == 0  # named: scores, as asked
    graded = tmp_path / "graded.tsv"
    graded.write_text("".join(f"{i % 6}\ta man sleeps {i}\ta person is asleep {i}\n" for i in range(30)))
    assert sniff_pair_format(graded) == "sts"  # 0..5: a scale, not three classes


def test_a_handful_of_pairs_gives_no_figure(tmp_path, capsys):
    """`evaluate --pairs` on 2 pairs printed Pearson 100.00 (train refuses under 10 for this reason)."""
    few = tmp_path / "few.tsv"
    few.write_text("4.5\ta man plays\tsomeone plays\n1.0\ta dog runs\tstocks fell\n")
    assert main(["evaluate", "--pairs", f"{few}:sts"]) == 2
    assert "2 pair(s); a figure needs at least 10" in capsys.readouterr().err


def test_constant_predictions_are_undefined_not_zero(capsys):
    """A model that gave every pair one cosine printed Pearson 0.00: the correlation is undefined."""
    model = Lookup({t: [1.0, 0.0] for t in "abcdef"})
    pairs = [
        TrainingPair("a", "b", "f", 1.0),
        TrainingPair("c", "d", "f", 3.0),
        TrainingPair("e", "f", "f", 5.0),
    ]
    report = PairsEvaluator(pairs, "mine")(model)
    assert report.figures == {"pearson": None, "spearman": None} and report.primary == 0.0
    assert (
        "undefined" in report.format_table()
        and "pearson, spearman: undefined: every pair got" in report.skipped[-1]
    )
    assert report.to_dict()["figures"]["pearson"] is None and report.log_values() == {}


def test_tied_candidates_are_shared_hits_never_free_ones():
    """A file of identical pairs scored top-1 100.00: a candidate tied with the answer counted as
    a miss of no one. Ties now share the hit (its expectation under a random order)."""
    from parasent.evaluation.file_pairs import rank_answers

    queries = np.array([[1.0, 0.0]])
    candidates = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])  # the answer tied with 2 others
    figures = rank_answers(queries, candidates, np.array([0]))
    assert figures["top1_accuracy"] == pytest.approx(100 / 3)
    assert figures["mrr"] == pytest.approx(100 * (1 + 1 / 2 + 1 / 3) / 3)
    one = PairsEvaluator([TrainingPair("a", "b", "f"), TrainingPair("c", "b", "f")])(
        Lookup({"a": [1], "b": [1], "c": [1]})
    )
    assert (
        one.figures == {"top1_accuracy": None, "mrr": None}
        and "one distinct second sentence" in one.skipped[-1]
    )


def test_each_figure_comes_with_its_standard_error_over_the_pairs():
    rng = np.random.default_rng(3)
    texts = [f"t{i}" for i in range(400)]
    model = Lookup({t: rng.normal(size=4).tolist() for t in texts})
    few = [TrainingPair(texts[i], texts[i + 1], "f", float(rng.integers(0, 2))) for i in range(0, 40, 2)]
    many = [TrainingPair(texts[i], texts[i + 1], "f", float(rng.integers(0, 2))) for i in range(0, 400, 2)]
    small, large = PairsEvaluator(few)(model), PairsEvaluator(many)(model)
    assert small.standard_error > large.standard_error > 0  # fewer pairs, more noise
    assert "+- " in large.format_table() and large.to_dict()["standard_error"] == large.standard_error
    assert large.log_values()["average_precision_standard_error"] == large.standard_error
    assert PairsEvaluator(many)(model).standard_error == large.standard_error  # seeded: the same each call
    assert large.difference_error(PairsEvaluator(many)(model)) == 0.0  # a model against itself
    shifted = Lookup(
        {t: (np.asarray(v) + rng.normal(size=4) * 0.3).tolist() for t, v in model.vectors.items()}
    )
    paired = PairsEvaluator(many)(shifted).difference_error(large)
    assert 0 < paired < large.standard_error  # two models on one set differ less than a figure varies
    assert large.difference_error(small) is None  # not the same pairs


def test_pairs_sharing_a_sentence_are_resampled_together():
    """PIT's held-out pairs are a few tweet topics: the error over pairs said 3-5 where the
    figure moved 17.6-58.3 from one draw of topics to the next. Pairs linked by a sentence now
    resample as a group (the cluster bootstrap); independent pairs as before."""
    rng = np.random.default_rng(5)
    vectors, pairs = {}, []
    for topic in range(8):  # each topic: one tweet, 25 replies, its own offset of cosines to scores
        hub = f"topic {topic}"
        vectors[hub] = [1.0, 0.0]
        bias = rng.normal() * 0.8
        for reply in range(25):
            score = float(rng.uniform(0, 1))
            angle = np.clip(1.2 - score + bias + rng.normal() * 0.2, 0.0, 3.0)
            vectors[f"{hub} reply {reply}"] = [float(np.cos(angle)), float(np.sin(angle))]
            pairs.append(TrainingPair(hub, f"{hub} reply {reply}", "f", round(score, 3)))
    model = Lookup(vectors)
    grouped = PairsEvaluator(pairs)(model)
    singly = [TrainingPair(f"{p.s1} for {k}", p.s2, "f", p.score) for k, p in enumerate(pairs)]
    model.vectors.update({f"{p.s1} for {k}": vectors[p.s1] for k, p in enumerate(pairs)})
    alone = PairsEvaluator(singly)(model)
    assert grouped.primary == pytest.approx(alone.primary)  # the same cosines and scores
    assert grouped.standard_error > 1.5 * alone.standard_error
    assert (
        "over 8 groups of pairs linked by a shared sentence (either side), resampled whole"
        in grouped.format_table()
    )
    assert "over the pairs (" in alone.format_table()
    replies = [TrainingPair(p.s1, "lol", "f", 0.0) for p in pairs[::25]]  # one reply links every topic
    model.vectors["lol"] = [0.0, 1.0]
    linked = PairsEvaluator(pairs + replies)(model)
    assert linked.standard_error > 0  # one group resampled is always the same: pairs are instead
    assert "shared sentences link them into 1 group, too few to resample whole" in linked.format_table()


def test_a_users_scores_may_be_on_any_scale(tmp_path):
    """docs/adapt.md: `sts` is `score<TAB>s1<TAB>s2` on any scale (a correlation does not see it)."""
    import parasent

    rows = [("a cat sat", "a cat was sitting"), ("a dog ran", "stocks fell"), ("the man sings", "a man is singing"),
            ("she left", "prices rose"), ("a boy plays", "the boy is playing"), ("it rains", "he laughs"),
            ("the car is red", "a red car"), ("i eat", "they run"), ("a big dog", "a large dog"),
            ("he reads", "the sky")]  # fmt: skip
    scores = [9.5, 2, 7, 1, 8, 0.5, 6, 3, 10, 4]
    ten = tmp_path / "ten.tsv"
    five = tmp_path / "five.tsv"
    ten.write_text("".join(f"{s}\t{a}\t{b}\n" for s, (a, b) in zip(scores, rows, strict=True)))
    five.write_text("".join(f"{s / 2}\t{a}\t{b}\n" for s, (a, b) in zip(scores, rows, strict=True)))
    model = parasent.load()
    assert evaluate_pairs(model, f"{ten}:sts").primary == pytest.approx(
        evaluate_pairs(model, f"{five}:sts").primary
    )
    assert evaluate_pairs(model, str(ten)).primary == pytest.approx(
        evaluate_pairs(model, f"{ten}:sts").primary
    )


def test_a_file_named_sts_is_scored_by_correlation_even_when_its_scores_are_0_and_1(tmp_path):
    import parasent

    rows = [(i % 2, f"a cat number {i} sat", f"a cat {i} was sitting" if i % 2 else f"stocks fell {i}") for i in range(20)]  # fmt: skip
    path = tmp_path / "grades.tsv"
    path.write_text("".join(f"{s}\t{a}\t{b}\n" for s, a, b in rows))
    model = parasent.load()
    assert evaluate_pairs(model, f"{path}:sts").primary_metric == "pearson"  # as named
    assert evaluate_pairs(model, str(path)).primary_metric == "average_precision"  # read as labels


def test_a_model_whose_vectors_hold_nan_is_refused_and_an_unnamed_model_has_no_empty_name(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("".join(f"{i % 2}\ts{i} a\tt{i} b\n" for i in range(20)))
    vectors = {text: [1.0, float(i), 0.5] for i in range(20) for text in (f"s{i} a", f"t{i} b")}
    table = evaluate_pairs(Lookup(vectors), str(path)).format_table()
    assert table.startswith("pairs: ") and "model:" not in table
    vectors["t4 b"] = [np.inf, 0.0, 0.0]
    with pytest.raises(ValueError, match="the vector of 't4 b' .* holds NaN or infinity"):
        evaluate_pairs(Lookup(vectors), str(path))
