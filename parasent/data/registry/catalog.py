"""Every data set of the shared data that parasent reads, declared as a
:class:`~parasent.data.registry.DataRecord` (see ``docs/adding-a-dataset.md``).

Records are grouped by use: :data:`SIMILARITY` (the scored pair sets of the standard
protocol, named ``sts<year>/<set>``, ``sick2014/test``, ``twitter2015/test``) and the
:data:`SUITES` made of them; :data:`TASK_DATA` (the splits of the supervised tasks);
:data:`POOLS` (named lists of paraphrase-pair sources); :data:`CORPORA` (running text) and
:data:`TEXT_GROUPS` (unlabelled sentences). The sha256 of each file is in :data:`parasent.data.registry.checksums.SHA256`
(checked against the shared data by ``tests/data/registry/test_catalog.py``).
"""

from __future__ import annotations

from typing import Any

from parasent.data.registry import DataRecord, Registry
from parasent.data.registry.checksums import SHA256

AGIRRE = {
    2012: "Agirre et al. (2012), SemEval-2012 Task 6: A Pilot on Semantic Textual Similarity",
    2013: "Agirre et al. (2013), *SEM 2013 shared task: Semantic Textual Similarity",
    2014: "Agirre et al. (2014), SemEval-2014 Task 10: Multilingual Semantic Textual Similarity",
    2015: "Agirre et al. (2015), SemEval-2015 Task 2: Semantic Textual Similarity",
    2016: "Agirre et al. (2016), SemEval-2016 Task 1: Semantic Textual Similarity",
}
STS_LICENCE = "per source: see the year's readme / LICENSE files of the release"
SICK_CITATION = (
    "Marelli et al. (2014), A SICK cure for the evaluation of compositional distributional semantic models"
)
SICK_LICENCE = "CC BY-NC-SA 3.0"
PPDB_CITATION = (
    "Pavlick et al. (2015), PPDB 2.0: Better paraphrase ranking, fine-grained entailment relations"
)
PIT_CITATION = "Xu et al. (2015), SemEval-2015 Task 1: Paraphrase and Semantic Similarity in Twitter"


def record(name: str, kind: str, layout: str, files: tuple[str, ...], **fields: Any) -> DataRecord:
    """A record whose files' digests come from :data:`SHA256`."""
    return DataRecord(name, kind, layout, files, sha256={f: SHA256.get(f, "") for f in files}, **fields)


# --- similarity sets (the standard protocol's transfer suite and STS 2016 validation) -------
STS_SETS = {
    2012: ["MSRpar", "MSRvid", "OnWN", "SMTeuroparl", "SMTnews"],
    2013: ["FNWN", "OnWN", "headlines"],
    2014: ["OnWN", "deft-forum", "deft-news", "headlines", "images", "tweet-news"],
    2015: ["answers-forums", "answers-students", "belief", "headlines", "images"],
    2016: ["answer-answer", "headlines", "plagiarism", "postediting", "question-question"],
}
SCORED = {"kind": "similarity", "main_metric": "pearson"}


def _similarity_records() -> list[DataRecord]:
    records = []
    for year, names in STS_SETS.items():
        for name in names:
            layout, files = "sts", (f"sts/semeval/{year}/{name}.test.tsv",)
            if (year, name) == (2012, "MSRvid"):  # shipped in the official SemEval layout
                layout = "sts_official"
                files = ("sts/msrvid2012/STS.input.MSRvid.test.txt", "sts/msrvid2012/STS.gs.MSRvid.test.txt")
            split = "validation" if year == 2016 else "test"
            records.append(
                record(
                    f"sts{year}/{name}",
                    layout=layout,
                    files=files,
                    split=split,
                    group=f"sts{year}",
                    score_range=(0.0, 5.0),
                    citation=AGIRRE[year],
                    licence=STS_LICENCE,
                    **SCORED,
                )  # fmt: skip
            )
    records.append(
        record(
            "sick2014/test",
            layout="sick",
            files=("sick2014/SICK_test_annotated.txt",),
            group="sick2014",
            score_range=(1.0, 5.0),
            citation=SICK_CITATION,
            licence=SICK_LICENCE,
            description="SICK test, relatedness",
            **SCORED,
        )  # fmt: skip
    )
    records.append(
        record(
            "sick2014/train+trial",
            layout="sick",
            files=("sick2014/SICK_train.txt", "sick2014/SICK_trial.txt"),
            split="train",
            group="sick2014",
            score_range=(1.0, 5.0),
            citation=SICK_CITATION,
            licence=SICK_LICENCE,
            description="SICK train and trial, relatedness: with the test set, MTEB's SICK-R (9,927 pairs)",
            **SCORED,
        )  # fmt: skip
    )
    records.append(
        record(
            "twitter2015/test",
            layout="pit",
            files=("sts/pit2015/test.data", "sts/pit2015/test.label"),
            group="twitter2015",
            score_range=(0.0, 1.0),
            citation=PIT_CITATION,
            description="PIT-2015 test, 972 pairs, the degree of test.label",
            **SCORED,
        )  # fmt: skip
    )
    return records + _ppdb_task_records()


def _ppdb_task_records() -> list[DataRecord]:
    """The phrase task of Pavlick et al. (2015), Table 3 of Wieting et al. (2016): both rated
    samples, and the seeded dev/test halves of ``ppdb-sample`` (parasent.data.readers.ppdb_task)."""
    sample, wiki = (
        "paraphrase/ppdb_human_labels/ppdb-sample.tsv.gz",
        "paraphrase/ppdb_human_labels/wiki-sample.tsv.gz",
    )
    return [
        record(
            f"ppdb2015/{name}",
            "similarity",
            "ppdb_scored",
            (path,),
            split=split,
            group="ppdb2015",
            score_range=(1.0, 5.0),
            main_metric="spearman",
            citation=PPDB_CITATION,
            licence="CC BY 3.0",
            description=description,
            options={"part": part},
        )  # fmt: skip
        for name, path, split, part, description in [
            ("ppdb", sample, "test", None, "PPDB 2.0 human ratings (Pavlick et al. 2015), all 26,456 pairs"),
            (
                "ppdb-dev",
                sample,
                "validation",
                "dev",
                "PPDB ratings, seeded dev half (13,250 pairs): selection",
            ),
            ("ppdb-test", sample, "test", "test", "PPDB ratings, seeded test half (13,206 pairs): report"),
            (
                "wiki",
                wiki,
                "test",
                None,
                "PPDB ratings of Wikipedia phrases (Pavlick et al. 2015), 13,954 pairs",
            ),
        ]
    ]


SIMILARITY: Registry[DataRecord] = Registry("dataset", {r.name: r for r in _similarity_records()})

_TRANSFER = [n for n in SIMILARITY if n.startswith(("sts2012", "sts2013", "sts2014", "sts2015"))]
#: Named lists of similarity sets: ``transfer`` (the 21 test sets), ``validation`` (STS 2016).
SUITES: dict[str, list[str]] = {
    "transfer": [*_TRANSFER, "sick2014/test", "twitter2015/test"],
    "validation": [n for n in SIMILARITY if n.startswith("sts2016")],
    **{f"sts{y}": [n for n in SIMILARITY if n.startswith(f"sts{y}/")] for y in STS_SETS},
    "sick": ["sick2014/test"],
    "twitter": ["twitter2015/test"],
    "ppdb": ["ppdb2015/ppdb", "ppdb2015/wiki"],
    "ppdb-dev": ["ppdb2015/ppdb-dev"],
    "ppdb-test": ["ppdb2015/ppdb-test"],
    # MTEB's STS tasks whose data is here (SICK-R, STS12-16), for its main score: one Spearman
    # correlation per task over all its pairs (the ``<group>_pooled_spearman`` aggregates).
    # A reporting measure: STS 2016 is the validation set and the rest are test sets.
    "mteb-sts": [*(n for n in SIMILARITY if n.startswith("sts")), "sick2014/train+trial", "sick2014/test"],
}
MTEB_SUITE = "mteb-sts"
#: The ``mteb-sts`` suite's headline: the mean of its tasks' main scores, MTEB's STS measure.
MTEB_SCORE = "mteb-sts_mteb_spearman"
#: The MTEB task of each ``mteb-sts`` group (``<group>_pooled_spearman`` is its main score).
MTEB_STS_TASKS = {
    "sick2014": "SICKRelatedness",
    "sts2012": "STS12",
    "sts2013": "STS13",
    "sts2014": "STS14",
    "sts2015": "STS15",
    "sts2016": "STS16",
}


def suite_metric(specs: list[DataRecord]) -> str:
    """The headline correlation of a set of datasets: theirs when they agree, else Pearson."""
    metrics = {spec.main_metric or "pearson" for spec in specs}
    return metrics.pop() if len(metrics) == 1 else "pearson"


def suite_datasets(suite: str) -> list[DataRecord]:
    """The datasets of a suite, or of a single dataset name."""
    if suite in SUITES:
        return [SIMILARITY[n] for n in SUITES[suite]]
    if suite in SIMILARITY:
        return [SIMILARITY[suite]]
    known = ", ".join([*SUITES, "<dataset name>"])
    raise KeyError(f"unknown suite {suite!r} (known: {known})")


# --- supervised tasks' splits ---------------------------------------------------------------
def _task_records() -> list[DataRecord]:
    sick = {"train": "SICK_train.txt", "dev": "SICK_trial.txt", "test": "SICK_test_annotated.txt"}
    sst = {"train": "sentiment-train.tsv.gz", "dev": "sentiment-dev.tsv", "test": "sentiment-test.tsv"}
    records = [
        record(
            f"sick2014/{split}-pairs",
            "task",
            "sick_pairs",
            (f"sick2014/{name}",),
            split=split,
            group="sick2014",
            score_range=(1.0, 5.0),
            citation=SICK_CITATION,
            licence=SICK_LICENCE,
            description=f"SICK {name}: relatedness and entailment",
        )  # fmt: skip
        for split, name in sick.items()
    ]
    records += [
        record(
            f"sst2/{split}",
            "task",
            "labelled_sentences",
            (f"sst2/{name}",),
            split=split,
            group="sst2",
            options={"classes": 2},
            main_metric="accuracy",
            citation="Socher et al. (2013), Recursive Deep Models for Semantic Compositionality Over a "
            "Sentiment Treebank",
            description="Stanford Sentiment Treebank, binary",
        )  # fmt: skip
        for split, name in sst.items()
    ]
    return records


TASK_DATA: Registry[DataRecord] = Registry("task split", {r.name: r for r in _task_records()})


# --- training pools -----------------------------------------------------------------------
PPDB_HUMAN_MIN_SCORE = 4.0
# Hokamp & Arora (2016), Sec. 2.1: task-internal STS pairs are paraphrases when their gold
# score is >= 3.8 (tuned between 3 and 4.5 in steps of 0.1).
STS_PARAPHRASE_MIN_SCORE = 3.8
TWITTER_URL_CITATION = "Lan et al. (2017), A Continuously Growing Dataset of Sentential Paraphrases"
MSRP_CITATION = "Dolan & Brockett (2005), Automatically Constructing a Corpus of Sentential Paraphrases"
MSRP_LICENCE = "Microsoft Shared Source License (in the release)"

_POOL_SOURCES = [
    record(
        "ppdb-human", "pool", "ppdb_human",
        ("paraphrase/ppdb_human_labels/ppdb-sample.tsv.gz", "paraphrase/ppdb_human_labels/wiki-sample.tsv.gz"),
        split="train", group="ppdb-human", score_range=(1.0, 5.0), options={"min_score": PPDB_HUMAN_MIN_SCORE},
        citation=PPDB_CITATION, licence="CC BY 3.0",
        description="PPDB 2.0 human-rated phrase pairs, mean score >= 4",
    ),
    record(
        "ppdb-lexical", "pool", "ppdb_lexical", ("paraphrase/ppdb_lexical/ppdb_synonyms.txt.gz",),
        split="train", group="ppdb-lexical", citation=PPDB_CITATION, licence="CC BY 3.0",
        description="lexical PPDB 2.0 synonyms",
    ),
    record(
        "twitter-url", "pool", "labelled", ("paraphrase/twitter_url_corpus/*.tsv*",), split="train+test",
        group="twitter-url", description="Twitter URL corpus pairs labelled 1 (train + test)",
        citation=TWITTER_URL_CITATION,
    ),
    record(
        "msrp", "pool", "labelled", ("paraphrase/msrp/*.tsv*",), split="train+test", group="msrp",
        description="MSRP pairs labelled 1 (train + test)",
        citation=MSRP_CITATION, licence=MSRP_LICENCE,
    ),
    record(
        "sts2012-train/semeval", "pool", "sts",
        ("sts/semeval/2012/MSRpar.train.tsv", "sts/semeval/2012/SMTeuroparl.train.tsv"),
        split="train", group="sts2012-train", score_range=(0.0, 5.0), citation=AGIRRE[2012],
        licence=STS_LICENCE, description="STS 2012 train sets MSRpar and SMTeuroparl with gold scores",
    ),
    record(
        "sts2012-train/MSRvid", "pool", "sts_official",
        ("sts/msrvid2012/STS.input.MSRvid.train.txt", "sts/msrvid2012/STS.gs.MSRvid.train.txt"),
        split="train", group="sts2012-train", score_range=(0.0, 5.0), citation=AGIRRE[2012],
        licence=STS_LICENCE, description="STS 2012 train set MSRvid with gold scores",
    ),
]  # fmt: skip
POOL_SOURCES: Registry[DataRecord] = Registry("pool source", {r.name: r for r in _POOL_SOURCES})


class Pool:
    """A named list of pool sources; ``min_score`` makes scored sources' pairs paraphrases from
    that gold score up (a run may override it)."""

    def __init__(self, name: str, sources: list[str], description: str, min_score: float | None = None):
        self.name = name
        self.sources = [POOL_SOURCES[s] for s in sources]
        self.description = description
        self.min_score = min_score


POOLS: Registry[Pool] = Registry(
    "pool",
    {
        "standard": Pool(
            "standard",
            ["ppdb-human", "ppdb-lexical", "twitter-url", "msrp"],
            "PPDB human-rated and lexical pairs, Twitter URL and MSRP paraphrases (data MANIFEST)",
        ),
        # The task-internal data of the DCU-SEManiacs system, for fine-tuning a trained model.
        "sts2012-train": Pool(
            "sts2012-train",
            ["sts2012-train/semeval", "sts2012-train/MSRvid"],
            "STS 2012 train sets (MSRpar, SMTeuroparl, MSRvid) with gold score >= min_score",
            min_score=STS_PARAPHRASE_MIN_SCORE,
        ),
    },
)


# --- running text (Siamese CBOW) ----------------------------------------------------------
_CORPORA = [
    record(
        "gutenberg", "corpus", "wrapped", ("corpus/gutenberg/*.txt*",), split="train", group="gutenberg",
        licence="public domain", description="13 Project Gutenberg books (wrapped prose)",
    ),
    record(
        "movie_reviews", "corpus", "sentences", ("corpus/movie_reviews/*/*.txt",), split="train",
        group="movie_reviews", description="2,000 movie reviews, one tokenized sentence per line",
        citation="Pang & Lee (2004), A Sentimental Education",
    ),
    record(
        "state_union", "corpus", "paragraphs", ("corpus/state_union/*.txt",), split="train",
        group="state_union", licence="public domain",
        description="65 State of the Union addresses, one paragraph per line",
    ),
]  # fmt: skip
CORPUS_SOURCES: Registry[DataRecord] = Registry("corpus source", {r.name: r for r in _CORPORA})
#: Named corpora: lists of sources. ``standard`` is all running text of the shared data.
CORPORA: dict[str, list[str]] = {"standard": list(CORPUS_SOURCES), **{n: [n] for n in CORPUS_SOURCES}}


# --- unlabelled sentences (the teacher regression) -----------------------------------------
def _text(name: str, layout: str, *patterns: str, **fields: Any) -> DataRecord:
    files = tuple(f"paraphrase_extra/{p}" for p in patterns)
    return record(name, "text", layout, files, split="mixed", group=name.split("/")[0], **fields)


_TEXT = [
    _text("quora_bimpm", "tsv_columns", "quora_bimpm/*.tsv.gz", options={"columns": (1, 2)}, licence="non-commercial"),
    _text("quora_paragen", "lines", "quora_paragen/*.q[12]"),
    _text("paws_wiki", "tsv_columns", "paws_wiki/*.tsv.gz", options={"columns": (1, 2), "header": True}),
    _text("turkcorpus/sources", "lines", "turkcorpus/*.tok.norm", licence="GPL-3.0"),
    _text("turkcorpus/rewrites", "lines", "turkcorpus/*.tok.turk.*", licence="GPL-3.0"),
    _text("asset", "lines", "asset/asset.*", licence="CC BY-NC"),
    _text("wikisplit", "wikisplit", "wikisplit/*.tsv.gz", licence="CC BY-SA"),
    _text("onestopenglish", "lines", "onestopenglish/*.txt*", licence="CC BY-SA"),
    _text("wikianswers_paralex", "lines", "wikianswers_paralex/val.q[12]"),
    _text("scitail", "tsv_columns", "scitail/*.txt", options={"columns": (0, 1)}),
    _text("flickr8k", "flickr8k", "flickr8k/Flickr8k.token.txt.gz", licence="research use"),
    _text("multi30k_task2_en", "lines", "multi30k_task2_en/*.en.gz"),
    _text("snli", "tsv_columns", "snli/*.tsv.gz", options={"columns": (0, 1), "header": True}, licence="CC BY-SA 4.0"),
    record(
        "sick-train", "text", "sick", ("sick2014/SICK_train.txt", "sick2014/SICK_trial.txt"), split="train+dev",
        group="sick-train", citation=SICK_CITATION, licence=SICK_LICENCE,
    ),
    record(
        "pit-dev", "text", "pit_pairs", ("sts/pit2015/dev.data.gz",), split="dev", group="pit-dev",
        citation=PIT_CITATION,
    ),
    record(
        "twitter-url/all", "text", "tsv_columns", ("paraphrase/twitter_url_corpus/*.tsv*",), split="train+test",
        group="twitter-url-all", options={"columns": (1, 2)}, citation=TWITTER_URL_CITATION,
        description="every sentence of the Twitter URL corpus, non-paraphrase pairs included",
    ),
    record(
        "msrp/all", "text", "tsv_columns", ("paraphrase/msrp/*.tsv*",), split="train+test", group="msrp-all",
        options={"columns": (1, 2)}, citation=MSRP_CITATION, licence=MSRP_LICENCE,
        description="every sentence of MSRP, non-paraphrase pairs included",
    ),
]  # fmt: skip
# The test splits of the domains docs/adapt.md fine-tunes on, outside the protocol's suites: the
# leakage guard keeps their sentences out of training too (parasent.data.training_text.pools.
# evaluation_sentences), or every figure measured on them would be of sentences trained on.
_DOMAIN_TESTS = [
    record(
        "quora_bimpm/test", "text", "tsv_columns", ("paraphrase_extra/quora_bimpm/test.tsv.gz",), split="test",
        group="quora_bimpm-test", options={"columns": (1, 2)}, licence="non-commercial",
    ),
    record(
        "paws_wiki/test", "text", "tsv_columns", ("paraphrase_extra/paws_wiki/test.tsv.gz",), split="test",
        group="paws_wiki-test", options={"columns": (1, 2), "header": True},
    ),
    record(
        "msrp/test", "text", "tsv_columns", ("paraphrase/msrp/test.tsv",), split="test", group="msrp-test",
        options={"columns": (1, 2)}, citation=MSRP_CITATION, licence=MSRP_LICENCE,
    ),
    record(
        "twitter-url/test", "text", "tsv_columns", ("paraphrase/twitter_url_corpus/test.tsv.gz",), split="test",
        group="twitter-url-test", options={"columns": (1, 2)}, citation=TWITTER_URL_CITATION,
    ),
]  # fmt: skip
TEXT_SOURCES: Registry[DataRecord] = Registry("text source", {r.name: r for r in [*_TEXT, *_DOMAIN_TESTS]})
#: The domain test splits (above), by name: sentences no training run sees.
DOMAIN_TESTS: tuple[str, ...] = tuple(r.name for r in _DOMAIN_TESTS)
#: Named groups of unlabelled text (see :mod:`parasent.data.training_text.unlabelled`); a record of pairs
#: contributes both sides of each pair.
TEXT_GROUPS: dict[str, list[DataRecord]] = {
    "extended": [TEXT_SOURCES[n] for n in list(TEXT_SOURCES)[:10]],
    "captions": [TEXT_SOURCES[n] for n in ("flickr8k", "multi30k_task2_en", "snli")],
    "sts-train": [*POOLS["sts2012-train"].sources, TEXT_SOURCES["sick-train"], TEXT_SOURCES["pit-dev"]],
    "labelled-all": [TEXT_SOURCES["twitter-url/all"], TEXT_SOURCES["msrp/all"]],
}


def all_records() -> list[DataRecord]:
    """Every declared record, each once."""
    seen: dict[str, DataRecord] = {}
    for registry in (SIMILARITY, TASK_DATA, POOL_SOURCES, CORPUS_SOURCES, TEXT_SOURCES):
        for item in registry.values():
            seen.setdefault(f"{item.kind}:{item.name}", item)
    return list(seen.values())
