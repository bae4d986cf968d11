"""The similarity datasets of the standard protocol, declared as small metadata records.

Names are ``sts<year>/<set>``, ``sick2014/test`` and ``twitter2015/test``. The *transfer*
suite is the 21 test sets of the data MANIFEST (STS 2012-2015, SICK test, Twitter PIT-2015
test); *validation* is STS 2016, the only sets used for model selection.

The phrase task of Pavlick et al. (2015) is ``ppdb2015/ppdb`` (26,456 rated PPDB pairs) and
``ppdb2015/wiki`` (13,954), with the seeded halves ``ppdb2015/ppdb-dev`` (selection under the
ppdb protocol) and ``ppdb2015/ppdb-test`` (reporting) of :mod:`parasent.data.ppdb_task`; its
headline is Spearman's rho, as in Wieting et al. (2016), Table 3.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from parasent.data.pit import read_pit2015
from parasent.data.ppdb_task import PPDB_SAMPLE, WIKI_SAMPLE, read_ppdb_scored
from parasent.data.records import ScoredPair
from parasent.data.sick import read_sick
from parasent.data.sts import read_sts, read_sts_official


@dataclass(frozen=True)
class SimilarityDataset:
    """A scored pair set: where its files are (relative to the data directory) and how to read them."""

    name: str
    group: str
    layout: str  # "sts" | "sts_official" | "sick" | "pit" | "ppdb"
    files: tuple[str, ...]
    part: str | None = None  # "ppdb": one half of the seeded dev/test split
    metric: str = "pearson"  # the headline correlation of a suite made of these sets
    label: str = ""  # what the set is, for tables and JSON

    def load(self, data_dir: str | Path) -> list[ScoredPair]:
        paths = [Path(data_dir) / f for f in self.files]
        if self.layout == "sts":
            return list(read_sts(paths[0]))
        if self.layout == "sts_official":
            return list(read_sts_official(paths[0], paths[1]))
        if self.layout == "sick":
            return [ScoredPair(p.s1, p.s2, p.relatedness) for p in read_sick(paths[0])]
        if self.layout == "pit":
            return [ScoredPair(p.s1, p.s2, p.degree) for p in read_pit2015(paths[0], paths[1])]
        if self.layout == "ppdb":
            return read_ppdb_scored(paths[0], self.part)
        raise ValueError(f"unknown layout {self.layout!r}")


def _sts(year: int, name: str) -> SimilarityDataset:
    return SimilarityDataset(
        f"sts{year}/{name}", f"sts{year}", "sts", (f"sts/semeval/{year}/{name}.test.tsv",)
    )


_STS_SETS = {
    2012: ["MSRpar", "MSRvid", "OnWN", "SMTeuroparl", "SMTnews"],
    2013: ["FNWN", "OnWN", "headlines"],
    2014: ["OnWN", "deft-forum", "deft-news", "headlines", "images", "tweet-news"],
    2015: ["answers-forums", "answers-students", "belief", "headlines", "images"],
    2016: ["answer-answer", "headlines", "plagiarism", "postediting", "question-question"],
}

DATASETS: dict[str, SimilarityDataset] = {}
for _year, _names in _STS_SETS.items():
    for _name in _names:
        if (_year, _name) == (2012, "MSRvid"):
            # MSRvid 2012 ships in the official SemEval layout (input + gold files).
            DATASETS["sts2012/MSRvid"] = SimilarityDataset(
                "sts2012/MSRvid",
                "sts2012",
                "sts_official",
                ("sts/msrvid2012/STS.input.MSRvid.test.txt", "sts/msrvid2012/STS.gs.MSRvid.test.txt"),
            )
        else:
            DATASETS[f"sts{_year}/{_name}"] = _sts(_year, _name)
DATASETS["sick2014/test"] = SimilarityDataset(
    "sick2014/test", "sick2014", "sick", ("sick2014/SICK_test_annotated.txt",)
)
DATASETS["twitter2015/test"] = SimilarityDataset(
    "twitter2015/test", "twitter2015", "pit", ("sts/pit2015/test.data", "sts/pit2015/test.label")
)
for _name, _file, _part, _label in [
    ("ppdb", PPDB_SAMPLE, None, "PPDB 2.0 human ratings (Pavlick et al. 2015), all 26,456 pairs"),
    ("ppdb-dev", PPDB_SAMPLE, "dev", "PPDB ratings, seeded dev half (13,250 pairs): selection"),
    ("ppdb-test", PPDB_SAMPLE, "test", "PPDB ratings, seeded test half (13,206 pairs): report"),
    ("wiki", WIKI_SAMPLE, None, "PPDB ratings of Wikipedia phrases (Pavlick et al. 2015), 13,954 pairs"),
]:
    DATASETS[f"ppdb2015/{_name}"] = SimilarityDataset(
        f"ppdb2015/{_name}", "ppdb2015", "ppdb", (_file,), _part, "spearman", _label
    )

_TRANSFER = [n for n in DATASETS if n.startswith(("sts2012", "sts2013", "sts2014", "sts2015"))]
SUITES: dict[str, list[str]] = {
    "transfer": _TRANSFER + ["sick2014/test", "twitter2015/test"],
    "validation": [n for n in DATASETS if n.startswith("sts2016")],
    **{f"sts{y}": [n for n in DATASETS if n.startswith(f"sts{y}/")] for y in _STS_SETS},
    "sick": ["sick2014/test"],
    "twitter": ["twitter2015/test"],
    "ppdb": ["ppdb2015/ppdb", "ppdb2015/wiki"],
    "ppdb-dev": ["ppdb2015/ppdb-dev"],
    "ppdb-test": ["ppdb2015/ppdb-test"],
}


def suite_metric(specs: list[SimilarityDataset]) -> str:
    """The headline correlation of a set of datasets: theirs when they agree, else Pearson."""
    metrics = {spec.metric for spec in specs}
    return metrics.pop() if len(metrics) == 1 else "pearson"


def suite_datasets(suite: str) -> list[SimilarityDataset]:
    """The datasets of a suite, or of a single dataset name."""
    if suite in SUITES:
        return [DATASETS[n] for n in SUITES[suite]]
    if suite in DATASETS:
        return [DATASETS[suite]]
    known = ", ".join(list(SUITES) + ["<dataset name>"])
    raise KeyError(f"unknown suite {suite!r} (known: {known})")
