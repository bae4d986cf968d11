from parasent.evaluation.datasets import DATASETS, SUITES, suite_datasets, suite_metric


def test_ppdb_sets_are_registered_with_spearman_and_a_label():
    assert SUITES["ppdb"] == ["ppdb2015/ppdb", "ppdb2015/wiki"]
    assert SUITES["ppdb-dev"] == ["ppdb2015/ppdb-dev"] and SUITES["ppdb-test"] == ["ppdb2015/ppdb-test"]
    dev, test = DATASETS["ppdb2015/ppdb-dev"], DATASETS["ppdb2015/ppdb-test"]
    assert (dev.options["part"], test.options["part"]) == (
        "dev",
        "test",
    ) and dev.files == test.files == DATASETS["ppdb2015/ppdb"].files
    assert all(DATASETS[n].main_metric == "spearman" and DATASETS[n].description for n in SUITES["ppdb"])
    assert all(DATASETS[n].sha256[DATASETS[n].files[0]] for n in SUITES["ppdb"])  # one record shape
    # the STS suites keep Pearson; the PPDB sets never enter them
    assert suite_metric(suite_datasets("transfer")) == "pearson"
    assert suite_metric(suite_datasets("ppdb")) == "spearman"
    assert suite_metric(suite_datasets("ppdb") + suite_datasets("sick")) == "pearson"
    assert not any(n.startswith("ppdb") for n in SUITES["transfer"] + SUITES["validation"])


def test_ppdb_split_halves_partition_the_sample(mini_data_dir):
    every = DATASETS["ppdb2015/ppdb"].load(mini_data_dir)
    dev = DATASETS["ppdb2015/ppdb-dev"].load(mini_data_dir)
    test = DATASETS["ppdb2015/ppdb-test"].load(mini_data_dir)
    assert dev and test and sorted(dev + test, key=repr) == sorted(every, key=repr)
