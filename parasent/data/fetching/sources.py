"""Where the public data sets of the standard protocol come from, declaratively.

Each :class:`Source` is one download from the data set's original public location and the
files it yields in the layout the readers read (the shared data MANIFEST): ``(member,
target, transform)``, where ``member`` is a path inside the downloaded archive (``""``: the
download itself; a trailing ``/``: every file under that folder, extracted into the folder
of ``target``, then a glob naming the files its checksum covers) and ``transform`` is

- ``""``: the bytes as they are;
- ``gzip``: compressed as ``gzip -9n`` does (deflate level 9, no name, no time), which
  reproduces the shared data's ``.gz`` files byte for byte (of a folder: its ``.txt`` files);
- ``sts``: a SemEval ``STS.input.X.txt`` joined with its ``STS.gs.X.txt`` into
  ``score<TAB>sent1<TAB>sent2`` lines (an unscored pair keeps an empty score field).

``derived`` marks files that the shared data holds as a reformat of the original release
(lowercased and tokenised, restricted to a vocabulary, rebuilt from another release) that no
transform here reproduces byte for byte: ``parasent data fetch`` names where to get the
original and does not pretend to install it.

A single-file download records its own ``sha256`` and ``size`` (checked before anything is made
from it): each was computed once from the bytes the shared data directory holds, which are the
download's own (a ``""`` transform) or its ``gzip -9n`` (``gzip``: decompressed, the download's
bytes again), every target verified against the registry (tests/data/test_fetch.py recomputes
them). An archive's own digest is not recorded: the data directory holds what was extracted, not
the archive, and these machines cannot download it; its members are listed and capped
(:data:`parasent.support.archives.MAX_MEMBERS`) before any is extracted, only the declared ones
are, and each target is verified against the registry before it is put in place.

Targets are files or globs of the dataset registry; their sha256 (of a glob: of its sorted
``relative-path  sha256`` lines) is the registry's, :data:`parasent.data.registry.checksums.SHA256`.
"""

from __future__ import annotations

from dataclasses import dataclass

from parasent.data.fetching.download import MAX_BYTES

EXPANDS_TO = 256 << 20  # bytes an archive may write in all, unless its record says otherwise


@dataclass(frozen=True)
class Source:
    """One download and the files it yields. ``sha256`` and ``size`` are the download's own,
    where known (checked before anything is extracted); ``max_bytes`` bounds a download of
    unknown size and ``expands_to`` what its archive may write in all (a zip bomb stops there);
    every target is checked against the registry's sha256 before it is put in place."""

    name: str
    url: str
    files: tuple[tuple[str, str, str], ...]
    description: str
    derived: str = ""
    sha256: str | None = None
    size: int | None = None
    max_bytes: int = MAX_BYTES
    expands_to: int = EXPANDS_TO

    @property
    def targets(self) -> list[str]:
        return [target for _, target, _ in self.files]


STS_WIKI = "http://ixa2.si.ehu.es/stswiki/images"
GITHUB = "https://raw.githubusercontent.com"
NLTK = f"{GITHUB}/nltk/nltk_data/gh-pages/packages/corpora"


def _sts(folder: str, year: int, names: dict[str, str], prefix: str = "STS", split: str = "test"):
    return tuple(
        (f"{folder}/{prefix}.input.{member}.txt", f"sts/semeval/{year}/{name}.{split}.tsv", "sts")
        for member, name in names.items()
    )


SOURCES: tuple[Source, ...] = (
    Source(
        "sts2012",
        f"{STS_WIKI}/4/40/STS2012-en-test.zip",
        _sts(
            "test-gold",
            2012,
            {
                "MSRpar": "MSRpar",
                "surprise.OnWN": "OnWN",
                "SMTeuroparl": "SMTeuroparl",
                "surprise.SMTnews": "SMTnews",
            },
        )
        + (
            ("test-gold/STS.input.MSRvid.txt", "sts/msrvid2012/STS.input.MSRvid.test.txt", ""),
            ("test-gold/STS.gs.MSRvid.txt", "sts/msrvid2012/STS.gs.MSRvid.test.txt", ""),
        ),
        "SemEval STS 2012 test sets (Agirre et al. 2012)",
    ),
    Source(
        "sts2012-train",
        f"{STS_WIKI}/e/e4/STS2012-en-train.zip",
        _sts("train", 2012, {"MSRpar": "MSRpar", "SMTeuroparl": "SMTeuroparl"}, split="train")
        + (
            ("train/STS.input.MSRvid.txt", "sts/msrvid2012/STS.input.MSRvid.train.txt", ""),
            ("train/STS.gs.MSRvid.txt", "sts/msrvid2012/STS.gs.MSRvid.train.txt", ""),
        ),
        "SemEval STS 2012 training sets",
    ),
    Source(
        "sts2013",
        f"{STS_WIKI}/2/2f/STS2013-en-test.zip",
        _sts("test-gs", 2013, {"FNWN": "FNWN", "headlines": "headlines", "OnWN": "OnWN"}),
        "SemEval STS 2013 test sets (the licensed SMT set is not public)",
    ),
    Source(
        "sts2014",
        f"{STS_WIKI}/8/8c/STS2014-en-test.zip",
        _sts(
            "sts-en-test-gs-2014",
            2014,
            {n: n for n in ("deft-forum", "deft-news", "headlines", "images", "OnWN", "tweet-news")},
        ),
        "SemEval STS 2014 test sets",
    ),
    Source(
        "sts2015",
        f"{STS_WIKI}/d/da/STS2015-en-test.zip",
        _sts(
            "test_evaluation_task2a",
            2015,
            {n: n for n in ("answers-forums", "answers-students", "belief", "headlines", "images")},
        ),
        "SemEval STS 2015 test sets",
    ),
    Source(
        "sts2016",
        f"{STS_WIKI}/9/98/STS2016-en-test.zip",
        _sts(
            "sts2016-english-with-gs-v1.0",
            2016,
            {n: n for n in ("answer-answer", "headlines", "plagiarism", "postediting", "question-question")},
            prefix="STS2016",
        ),
        "SemEval STS 2016 test sets (the protocol's validation sets)",
    ),
    *(
        Source(
            f"sick2014-{split.split('_')[0]}",
            f"http://alt.qcri.org/semeval2014/task1/data/uploads/sick_{split}.zip",
            ((f"SICK_{split}.txt", f"sick2014/SICK_{split}.txt", ""),),
            f"SICK {split} (Marelli et al. 2014)",
        )
        for split in ("train", "trial", "test_annotated")
    ),
    Source(
        "pit2015",
        f"{GITHUB}/cocoxu/SemEval-PIT2015/master/data/test.data",
        (("", "sts/pit2015/test.data", ""),),
        "SemEval-2015 Task 1 Twitter paraphrase test pairs (Xu et al. 2015)",
        sha256="2a234da3d86a97e69b6afe7e480f772093f54bc83b11affdba618b9c19cfc1e3",
        size=406_678,
    ),
    Source(
        "pit2015-label",
        f"{GITHUB}/cocoxu/SemEval-PIT2015/master/data/test.label",
        (("", "sts/pit2015/test.label", ""),),
        "their gold labels and degrees",
        sha256="8815cb24e7d76ca319647b7c218a5040c68ffba1979f0dfcb11f96fd2ab74b08",
        size=12_327,
    ),
    Source(
        "pit2015-dev",
        f"{GITHUB}/cocoxu/SemEval-PIT2015/master/data/dev.data",
        (("", "sts/pit2015/dev.data.gz", "gzip"),),
        "the PIT-2015 dev pairs",
        sha256="0169127ac96b8225b183b068e67f47999495ccbf83ad4a4d640694ff780a195d",
        size=2_028_105,
    ),
    Source(
        "ppdb-human",
        "http://www.seas.upenn.edu/~nlp/resources/ppdb-2.0-human-labels.tgz",
        (
            (
                "ppdb-2.0-human-labels/ppdb-sample.tsv",
                "paraphrase/ppdb_human_labels/ppdb-sample.tsv.gz",
                "gzip",
            ),
            (
                "ppdb-2.0-human-labels/wiki-sample.tsv",
                "paraphrase/ppdb_human_labels/wiki-sample.tsv.gz",
                "gzip",
            ),
        ),
        "PPDB 2.0 human-rated phrase pairs (Pavlick et al. 2015)",
    ),
    Source(
        "ppdb-synonyms",
        f"{GITHUB}/nmrksic/counter-fitting/master/linguistic_constraints/ppdb_synonyms.txt",
        (("", "paraphrase/ppdb_lexical/ppdb_synonyms.txt.gz", "gzip"),),
        "lexical PPDB 2.0 synonym pairs, as released with counter-fitting (Mrksic et al. 2016)",
        sha256="a294657ae78b443d2d3676bdbbe3c1c9f3f43f21a8ef2548bfbd00e20462b288",
        size=959_787,
    ),
    Source(
        "ppdb-antonyms",
        f"{GITHUB}/nmrksic/counter-fitting/master/linguistic_constraints/ppdb_antonyms.txt",
        (("", "paraphrase/ppdb_lexical/ppdb_antonyms.txt", ""),),
        "lexical PPDB 2.0 antonym pairs",
        sha256="da985c7cd92237a9a906cde1dc8f13e928d159c62d0b8059dfa04e2b45e6485a",
        size=9_730,
    ),
    Source(
        "twitter-url",
        "https://github.com/lanwuwei/Twitter-URL-Corpus",
        (("", "paraphrase/twitter_url_corpus/*.tsv*", ""),),
        "Twitter URL paraphrase corpus (Lan et al. 2017)",
        derived="lowercased and tokenized label/s1/s2 files made from the release",
    ),
    Source(
        "msrp",
        "https://download.microsoft.com/download/D/4/6/D46FF87A-F6B9-4252-AA8B-3604ED519838/MSRParaphraseCorpus.msi",
        (("", "paraphrase/msrp/*.tsv*", ""),),
        "Microsoft Research Paraphrase corpus (Dolan et al. 2004)",
        derived="lowercased and tokenized label/s1/s2 files made from the .msi release",
    ),
    *(
        Source(
            f"sst2-{split}",
            f"{GITHUB}/PrincetonML/SIF/master/data/sentiment-{split}",
            (
                (
                    "",
                    f"sst2/sentiment-{split}.tsv" + (".gz" if split == "train" else ""),
                    "gzip" if split == "train" else "",
                ),
            ),
            f"Stanford Sentiment Treebank, binary, {split} (as SIF and SentEval distribute it)",
            sha256=sha256,
            size=size,
        )
        for split, sha256, size in (
            ("train", "10a92a297ec38e262386e5a2713b4bc70e5d18ced88b7f54bd171a26e5b34ab5", 3_806_066),
            ("dev", "9a6c7403b71a9b762158387afe4431253ae10cdfb2319b5275289f3766f48291", 94_916),
            ("test", "4fefd1cd67526cf87ebc7fafc3afc21cc7cfa6ae53b45e74f77f9456e3c62752", 194_788),
        )
    ),
    Source(
        "wordfreq",
        f"{GITHUB}/PrincetonML/SIF/master/auxiliary_data/enwiki_vocab_min200.txt",
        (("", "wordfreq/enwiki_vocab_min200.txt.gz", "gzip"),),
        "English Wikipedia unigram counts, min 200 (Arora et al. 2017)",
        sha256="472326d0b31161ecd316f10fdb548f4cd812b6ff0b7c030b6cc0cbaf5de8b7cd",
        size=2_398_218,
    ),
    Source(
        "glove50-4k",
        "https://nlp.stanford.edu/data/glove.6B.zip",
        (("", "wordvecs/glove50_4k.txt.gz", ""),),
        "GloVe 6B 50d (Pennington et al. 2014)",
        derived="restricted to 4,196 frequent words, word2vec text format",
    ),
    Source(
        "simlex",
        "https://fh295.github.io/SimLex-999.zip",
        (("SimLex-999/SimLex-999.txt", "wordsim/SimLex-999.txt", ""),),
        "SimLex-999 word similarity (Hill et al. 2015)",
    ),
    Source(
        "gutenberg",
        f"{NLTK}/gutenberg.zip",
        (("gutenberg/", "corpus/gutenberg/*.txt*", "gzip"),),
        "13 public-domain books (NLTK's Project Gutenberg selection)",
    ),
    Source(
        "movie-reviews",
        f"{NLTK}/movie_reviews.zip",
        (("movie_reviews/", "corpus/movie_reviews/*/*.txt", ""),),
        "2,000 movie reviews (Pang & Lee 2004, NLTK's copy)",
    ),
    Source(
        "state-union",
        f"{NLTK}/state_union.zip",
        (("state_union/", "corpus/state_union/*.txt", ""),),
        "State of the Union addresses (NLTK's copy)",
    ),
)

BY_NAME = {source.name: source for source in SOURCES}
# what ``parasent data fetch`` without names goes through: every source (a derived one that is
# missing is named with its original location, not fetched)
DEFAULT = tuple(source.name for source in SOURCES)
