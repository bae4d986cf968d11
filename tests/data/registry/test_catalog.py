from dataclasses import replace

import pytest

from parasent.data.registry import KINDS, DataRecord, Registry, file_digest, verify
from parasent.data.registry.catalog import (
    CORPORA,
    POOLS,
    SIMILARITY,
    SUITES,
    TASK_DATA,
    TEXT_GROUPS,
    all_records,
    suite_datasets,
    suite_metric,
)
from parasent.data.registry.layouts import LAYOUTS
from parasent.errors import DataNotFoundError


def test_every_record_is_complete_and_readable_by_its_layout():
    records = all_records()
    assert {r.kind for r in records} == set(KINDS)
    for record in records:
        assert record.layout in LAYOUTS, record.name
        assert record.files and set(record.sha256) == set(record.files), record.name
        assert all(len(d) == 64 for d in record.sha256.values()), f"{record.name}: sha256 missing"
        assert record.citation or record.kind in ("corpus", "text"), record.name


def test_suites_groups_and_pools_name_declared_records():
    assert len(SUITES["transfer"]) == 21 and all(n in SIMILARITY for s in SUITES.values() for n in s)
    assert [r.name for r in suite_datasets("sts2016/headlines")] == ["sts2016/headlines"]
    assert all(r.split == "validation" for r in suite_datasets("validation"))
    assert set(POOLS) == {"standard", "sts2012-train"} and set(CORPORA) >= {"standard"}
    assert set(TEXT_GROUPS) == {"extended", "captions", "sts-train", "labelled-all"}
    assert {r.split for r in TASK_DATA.values()} == {"train", "dev", "test"}


def test_registry_lookup_names_what_is_known_and_refuses_duplicates():
    registry = Registry("pool", {"standard": 1})
    with pytest.raises(KeyError, match=r"unknown pool 'x' \(known: standard\)"):
        registry["x"]
    with pytest.raises(ValueError, match="declared twice"):
        registry.add("standard", 2)
    with pytest.raises(ValueError, match="unknown kind"):
        DataRecord("x", "nonsense", "sts", ("a",))


def test_digest_of_a_file_and_of_a_glob(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.txt").write_text("one\n")
    (tmp_path / "d" / "b.txt").write_text("two\n")
    record = DataRecord("x", "corpus", "sentences", ("d/a.txt", "d/*.txt"))
    record = replace(record, sha256={f: file_digest(tmp_path, f) for f in record.files})
    assert verify(record, tmp_path) == []
    assert record.sha256["d/a.txt"] != record.sha256["d/*.txt"]
    (tmp_path / "d" / "b.txt").write_text("changed\n")  # the glob's digest covers every file
    assert [line.split(":")[1].strip() for line in verify(record, tmp_path)] == ["d/*.txt"]
    with pytest.raises(DataNotFoundError, match="no files match"):
        replace(record, files=("e/*.txt",)).paths(tmp_path)


@pytest.mark.data
def test_declared_sha256_match_the_shared_data(shared_data_dir):
    problems = [line for record in all_records() for line in verify(record, shared_data_dir)]
    assert not problems, "\n".join(problems)


@pytest.mark.data
def test_every_record_reads_from_the_shared_data(shared_data_dir):
    for record in all_records():
        first = next(iter(record.read(shared_data_dir)))
        assert first, record.name


@pytest.mark.data
def test_mteb_sts_groups_hold_the_pairs_of_mteb_tasks(shared_data_dir):
    from parasent.data.registry.catalog import MTEB_STS_TASKS, suite_datasets

    pairs: dict[str, int] = {}
    for record in suite_datasets("mteb-sts"):
        pairs[record.group] = pairs.get(record.group, 0) + sum(1 for _ in record.read(shared_data_dir))
    assert set(pairs) == set(MTEB_STS_TASKS)
    assert pairs == {
        "sick2014": 9927,
        "sts2012": 3108,
        "sts2013": 1500,
        "sts2014": 3750,
        "sts2015": 3000,
        "sts2016": 1186,
    }


def test_ppdb_sets_are_registered_with_spearman_and_a_label():
    assert SUITES["ppdb"] == ["ppdb2015/ppdb", "ppdb2015/wiki"]
    assert SUITES["ppdb-dev"] == ["ppdb2015/ppdb-dev"] and SUITES["ppdb-test"] == ["ppdb2015/ppdb-test"]
    dev, test = SIMILARITY["ppdb2015/ppdb-dev"], SIMILARITY["ppdb2015/ppdb-test"]
    assert (dev.options["part"], test.options["part"]) == (
        "dev",
        "test",
    ) and dev.files == test.files == SIMILARITY["ppdb2015/ppdb"].files
    assert all(SIMILARITY[n].main_metric == "spearman" and SIMILARITY[n].description for n in SUITES["ppdb"])
    assert all(SIMILARITY[n].sha256[SIMILARITY[n].files[0]] for n in SUITES["ppdb"])  # one record shape
    # the STS suites keep Pearson; the PPDB sets never enter them
    assert suite_metric(suite_datasets("transfer")) == "pearson"
    assert suite_metric(suite_datasets("ppdb")) == "spearman"
    assert suite_metric(suite_datasets("ppdb") + suite_datasets("sick")) == "pearson"
    assert not any(n.startswith("ppdb") for n in SUITES["transfer"] + SUITES["validation"])


def test_ppdb_split_halves_partition_the_sample(mini_data_dir):
    every = SIMILARITY["ppdb2015/ppdb"].load(mini_data_dir)
    dev = SIMILARITY["ppdb2015/ppdb-dev"].load(mini_data_dir)
    test = SIMILARITY["ppdb2015/ppdb-test"].load(mini_data_dir)
    assert dev and test and sorted(dev + test, key=repr) == sorted(every, key=repr)
