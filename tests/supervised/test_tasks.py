import numpy as np
import pytest

from parasent.data.readers.sick import ENTAILMENT_LABELS
from parasent.errors import DataFormatError, DataNotFoundError
from parasent.supervised.tasks import TASKS, load_examples, task_by_name


def test_registry():
    assert set(TASKS) == {"sick-relatedness", "sick-entailment", "sst-binary"}
    assert task_by_name("sick-relatedness").metrics == ("pearson", "spearman", "mse")
    with pytest.raises(KeyError, match="unknown task"):
        task_by_name("mnli")


def test_load_every_split(task_data_dir):
    relatedness = load_examples(TASKS["sick-relatedness"], "train", task_data_dir)
    assert len(relatedness.sides) == 2 and len(relatedness) == 300
    assert relatedness.targets.dtype == np.float64 and relatedness.targets.min() >= 1
    entailment = load_examples(TASKS["sick-entailment"], "dev", task_data_dir)
    assert entailment.targets.dtype == np.int64 and set(entailment.targets) <= {0, 1, 2}
    assert ENTAILMENT_LABELS[entailment.targets[0]] in ENTAILMENT_LABELS
    sst = load_examples(TASKS["sst-binary"], "test", task_data_dir)
    assert len(sst.sides) == 1 and set(sst.targets) == {0, 1}
    small = relatedness.subsample(50, seed=1)
    assert len(small) == 50 and small.sides[0][0] in relatedness.sides[0]
    assert relatedness.subsample(None, 1) is relatedness


def test_bad_files_name_path_and_line(tmp_path):
    (tmp_path / "sst2").mkdir()
    (tmp_path / "sst2/sentiment-dev.tsv").write_text("fine film\t1\nodd film\t3\n")
    with pytest.raises(DataFormatError, match=r"sentiment-dev.tsv:2: label 3 is not in 0..1"):
        load_examples(TASKS["sst-binary"], "dev", tmp_path)
    with pytest.raises(DataNotFoundError, match="sst-binary test split"):
        load_examples(TASKS["sst-binary"], "test", tmp_path)
    with pytest.raises(KeyError, match="unknown split"):
        load_examples(TASKS["sst-binary"], "validation", tmp_path)


def test_many_classes_of_a_few_texts_get_a_word_before_training():
    """10,000 classes of 3 texts trained 130 s to 0.08% without a word."""
    from parasent.supervised.tasks import sparse_classes_note

    note = sparse_classes_note(np.repeat(np.arange(10_000), 3), 10_000)
    assert note.startswith("warning: 10,000 classes with 3.0 training texts each on average")
    assert sparse_classes_note(np.repeat(np.arange(10), 5), 10) is None
    assert sparse_classes_note(np.array([0, 1, 1]), 2) is None  # two classes: a held-out figure says enough


def test_a_users_labelled_file_may_be_a_pipe(tmp_path):
    """`head train --data <(zcat f.gz)` was refused as a FIFO while `mine <(...)` read it."""
    import os
    import threading

    from parasent.supervised.tasks import file_examples

    pipe = tmp_path / "texts"
    os.mkfifo(pipe)
    lines = "".join(
        f"text {i} is {'good' if i % 2 else 'bad'}\t{'pos' if i % 2 else 'neg'}\n" for i in range(20)
    )

    def feed():
        with open(pipe, "w") as handle:
            handle.write(lines)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    examples, classes = file_examples(pipe)
    writer.join(5)
    assert classes == ("neg", "pos") and len(examples.targets) == 20
