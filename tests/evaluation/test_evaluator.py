import re

import numpy as np
import pytest
from scipy import stats

from parasent.core.model import SentenceModel
from parasent.data.readers.records import ScoredPair
from parasent.evaluation import SUITES, SimilarityEvaluator, evaluate
from parasent.evaluation.metrics import pearson, spearman
from parasent.text.word_vectors import read_word_vectors

TRANSFER_COUNTS = {
    "sts2012/MSRpar": 750, "sts2012/MSRvid": 750, "sts2012/OnWN": 750, "sts2012/SMTeuroparl": 459,
    "sts2012/SMTnews": 399, "sts2013/FNWN": 189, "sts2013/OnWN": 561, "sts2013/headlines": 750,
    "sts2014/OnWN": 750, "sts2014/deft-forum": 450, "sts2014/deft-news": 300, "sts2014/headlines": 750,
    "sts2014/images": 750, "sts2014/tweet-news": 750, "sts2015/answers-forums": 375,
    "sts2015/answers-students": 750, "sts2015/belief": 375, "sts2015/headlines": 750, "sts2015/images": 750,
    "sick2014/test": 4927, "twitter2015/test": 972,
}  # fmt: skip


class Table:
    """A stand-in model: a fixed vector per sentence."""

    def __init__(self, vectors):
        self.vectors = vectors

    def encode(self, sentences, batch_size=0):
        return np.stack([self.vectors[s] for s in sentences])


def test_suites_declare_the_standard_protocol():
    assert SUITES["transfer"] == list(TRANSFER_COUNTS)
    assert len(SUITES["validation"]) == 5 and all(n.startswith("sts2016/") for n in SUITES["validation"])


def test_aggregates_are_labelled_and_computed():
    rng = np.random.default_rng(0)
    data, vectors = {}, {}
    for name, size in [("sts2016/headlines", 30), ("sts2016/plagiarism", 10)]:
        pairs = []
        for i in range(size):
            a, b = f"{name} a{i}", f"{name} b{i}"
            vectors[a], vectors[b] = rng.normal(size=4), rng.normal(size=4)
            pairs.append(ScoredPair(a, b, float(rng.uniform(0, 5))))
        data[name] = pairs
    report = SimilarityEvaluator("sts2016", datasets=data)(Table(vectors), name="table")
    values = {d.name: d for d in report.datasets}
    assert values["sts2016/headlines"].n == 30
    mean = (values["sts2016/headlines"].pearson + values["sts2016/plagiarism"].pearson) / 2
    weighted = (30 * values["sts2016/headlines"].pearson + 10 * values["sts2016/plagiarism"].pearson) / 40
    assert report.aggregates["sts2016_mean_pearson"] == pytest.approx(mean)
    assert report.aggregates["sts2016_weighted_mean_pearson"] == pytest.approx(weighted)
    assert report.primary_metric == "sts2016_mean_pearson"
    assert "pooled" in report.labels["sts2016_pooled_pearson"]
    table = report.format_table()
    assert "weighted by pairs" in table and "<- headline" in table
    as_dict = report.to_dict()
    assert as_dict["datasets"][0]["name"] == "sts2016/headlines" and "aggregates" in as_dict


def test_a_model_whose_vectors_hold_nan_is_refused_naming_the_sentence():
    """normalising a NaN row gives zeros, and a cosine of 0 would pass for a figure."""
    pairs = [ScoredPair(f"a{i}", f"b{i}", float(i % 5)) for i in range(12)]
    vectors = {text: np.ones(4) for pair in pairs for text in (pair.s1, pair.s2)}
    vectors["b3"] = np.array([1.0, np.nan, 0.0, 0.0])
    evaluator = SimilarityEvaluator("sts2016", datasets={"sts2016/headlines": pairs})
    with pytest.raises(ValueError, match=r"the vector of 'b3' \(row 7\) holds NaN or infinity"):
        evaluator(Table(vectors))


def test_constant_predictions_are_reported_not_nan():
    assert pearson(np.ones(5), np.arange(5)) == 0.0
    assert spearman(np.arange(5), np.arange(5)) == pytest.approx(100.0)


def _independent_glove_scores(data_dir):
    """Read every transfer set with plain Python and score averaged GloVe with numpy/scipy directly."""
    words, rows = [], []
    import gzip

    with gzip.open(data_dir / "wordvecs/glove50_4k.txt.gz", "rt", encoding="utf-8") as handle:
        next(handle)
        for line in handle:
            parts = line.rstrip().split(" ")
            words.append(parts[0])
            rows.append(np.array(parts[1:], dtype=np.float64))
    table = dict(zip(words, rows, strict=True))

    def embed(sentence):
        tokens = [t for t in re.findall(r"\w+|[^\w\s]", sentence.lower()) if t in table]
        return np.mean([table[t] for t in tokens], axis=0) if tokens else np.zeros(50)

    def cos(a, b):
        denominator = np.linalg.norm(a) * np.linalg.norm(b)
        return float(a @ b / denominator) if denominator > 0 else 0.0

    def sets():
        for year, names in [
            (2012, ["MSRpar", "MSRvid", "OnWN", "SMTeuroparl", "SMTnews"]),
            (2013, ["FNWN", "OnWN", "headlines"]),
            (2014, ["OnWN", "deft-forum", "deft-news", "headlines", "images", "tweet-news"]),
            (2015, ["answers-forums", "answers-students", "belief", "headlines", "images"]),
        ]:
            for name in names:
                if name == "MSRvid":
                    inputs = (data_dir / "sts/msrvid2012/STS.input.MSRvid.test.txt").read_text().splitlines()
                    gold = (data_dir / "sts/msrvid2012/STS.gs.MSRvid.test.txt").read_text().splitlines()
                    yield (
                        "sts2012/MSRvid",
                        [
                            (float(g), *i.split("\t")[:2])
                            for i, g in zip(inputs, gold, strict=True)
                            if g.strip()
                        ],
                    )
                    continue
                lines = (
                    (data_dir / f"sts/semeval/{year}/{name}.test.tsv")
                    .read_text(encoding="utf-8")
                    .splitlines()
                )
                yield (
                    f"sts{year}/{name}",
                    [(float(s), a, b) for s, a, b in (ln.split("\t") for ln in lines) if s.strip()],
                )
        sick = (data_dir / "sick2014/SICK_test_annotated.txt").read_text().splitlines()[1:]
        yield "sick2014/test", [(float(f[3]), f[1], f[2]) for f in (ln.split("\t") for ln in sick)]
        data = (data_dir / "sts/pit2015/test.data").read_text().splitlines()
        labels = (data_dir / "sts/pit2015/test.label").read_text().splitlines()
        yield (
            "twitter2015/test",
            [
                (float(lab.split("\t")[1]), d.split("\t")[2], d.split("\t")[3])
                for d, lab in zip(data, labels, strict=True)
            ],
        )

    scores = {}
    for name, triples in sets():
        predicted = [cos(embed(a), embed(b)) for _, a, b in triples]
        gold = [s for s, _, _ in triples]
        scores[name] = (
            len(triples),
            stats.pearsonr(predicted, gold)[0] * 100,
            stats.spearmanr(predicted, gold)[0] * 100,
        )
    return scores


@pytest.mark.data
def test_transfer_suite_matches_direct_scipy_computation(shared_data_dir):
    model = SentenceModel.from_vectors(read_word_vectors(shared_data_dir / "wordvecs/glove50_4k.txt.gz"))
    report = evaluate(model, "transfer", shared_data_dir)
    expected = _independent_glove_scores(shared_data_dir)
    assert [d.name for d in report.datasets] == list(TRANSFER_COUNTS)
    for result in report.datasets:
        n, r, rho = expected[result.name]
        assert result.n == n == TRANSFER_COUNTS[result.name]
        assert result.pearson == pytest.approx(r, abs=0.01), result.name
        assert result.spearman == pytest.approx(rho, abs=0.2), result.name
    assert report.aggregates["transfer_mean_pearson"] == pytest.approx(
        np.mean([v[1] for v in expected.values()]), abs=0.01
    )
    # the reference figure measured independently for this baseline
    assert report.primary == pytest.approx(33.71, abs=0.01)


def test_ppdb_suite_headline_is_spearman_and_sets_are_labelled(tmp_path):
    import gzip

    rng = np.random.default_rng(1)
    vectors, files = {}, {}
    for name in ("ppdb-sample", "wiki-sample"):
        lines = []
        for i in range(60):
            a, b = f"{name} x{i}", f"{name} y{i}"
            vectors[a] = rng.normal(size=4)
            vectors[b] = vectors[a] + rng.normal(size=4) * (i % 5)  # noisier for larger i % 5
            lines.append(f"{5 - (i % 5) * 0.9:.1f}\t[NP]\t{a}\t{b}\t1.0,2.0")
        files[name] = tmp_path / f"paraphrase/ppdb_human_labels/{name}.tsv.gz"
        files[name].parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(files[name], "wt") as handle:
            handle.write("\n".join(lines) + "\n")
    report = evaluate(Table(vectors), "ppdb", tmp_path, name="table")
    assert [(d.name, d.n) for d in report.datasets] == [("ppdb2015/ppdb", 60), ("ppdb2015/wiki", 60)]
    assert report.primary_metric == "ppdb_mean_spearman"
    assert report.primary == pytest.approx(np.mean([d.spearman for d in report.datasets]))
    assert report.datasets[0].spearman > 30  # closer vectors for higher scores
    table = report.format_table()
    assert "<- headline (spearman)" in table and "Pavlick et al. 2015" in table
    assert "Pavlick" in report.to_dict()["datasets"][0]["label"]
    dev = evaluate(Table(vectors), "ppdb-dev", tmp_path)
    test = evaluate(Table(vectors), "ppdb-test", tmp_path)
    assert dev.datasets[0].n + test.datasets[0].n == 60 and dev.primary_metric == "ppdb-dev_mean_spearman"


def test_the_mteb_suite_headlines_mtebs_measure(shared_data_dir):
    """`evaluate --suite mteb-sts` leads with what the README quotes: the mean of the six tasks'
    pooled Spearman (scripts/mteb_sts_table.py), not the mean over its 26 sets."""
    from parasent import load
    from parasent.data.registry.catalog import MTEB_STS_TASKS

    report = evaluate(load(), "mteb-sts", shared_data_dir)
    tasks = [report.aggregates[f"{group}_pooled_spearman"] for group in MTEB_STS_TASKS]
    assert report.primary == pytest.approx(np.mean(tasks)) != report.aggregates["mteb-sts_mean_pearson"]
    assert "MTEB's STS measure" in report.format_table() and "<- headline (spearman)" in report.format_table()
