"""The similarity datasets of the standard protocol, declared as small metadata records.

Names are ``sts<year>/<set>``, ``sick2014/test`` and ``twitter2015/test``. The *transfer*
suite is the 21 test sets of the data MANIFEST (STS 2012-2015, SICK test, Twitter PIT-2015
test); *validation* is STS 2016, the only sets used for model selection.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from parasent.data.pit import read_pit2015
from parasent.data.records import ScoredPair
from parasent.data.sick import read_sick
from parasent.data.sts import read_sts, read_sts_official


@dataclass(frozen=True)
class SimilarityDataset:
    """A scored pair set: where its files are (relative to the data directory) and how to read them."""

    name: str
    group: str
    layout: str  # "sts" | "sts_official" | "sick" | "pit"
    files: tuple[str, ...]

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

_TRANSFER = [n for n in DATASETS if n.startswith(("sts2012", "sts2013", "sts2014", "sts2015"))]
SUITES: dict[str, list[str]] = {
    "transfer": _TRANSFER + ["sick2014/test", "twitter2015/test"],
    "validation": [n for n in DATASETS if n.startswith("sts2016")],
    **{f"sts{y}": [n for n in DATASETS if n.startswith(f"sts{y}/")] for y in _STS_SETS},
    "sick": ["sick2014/test"],
    "twitter": ["twitter2015/test"],
}


def suite_datasets(suite: str) -> list[SimilarityDataset]:
    """The datasets of a suite, or of a single dataset name."""
    if suite in SUITES:
        return [DATASETS[n] for n in SUITES[suite]]
    if suite in DATASETS:
        return [DATASETS[suite]]
    known = ", ".join(list(SUITES) + ["<dataset name>"])
    raise KeyError(f"unknown suite {suite!r} (known: {known})")
