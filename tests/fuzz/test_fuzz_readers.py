"""Every data reader on seeded mutations of a valid file: the only exceptions allowed are
parasent's own errors, every error names the file, and no input hangs.

CI runs ``PARASENT_FUZZ_N`` (default 150) inputs per reader; the full run is
``PARASENT_FUZZ_N=10000 python -m pytest -q tests/fuzz -s`` (docs/robustness.md).
"""

from __future__ import annotations

import pytest

from parasent.data.readers.pairs import read_labelled_pairs, read_text_pairs
from parasent.data.readers.pit import read_pit2015
from parasent.data.readers.ppdb import read_ppdb_human, read_ppdb_lexical, read_ppdb_phrasal
from parasent.data.readers.sentiment import read_labelled_sentences
from parasent.data.readers.sick import read_sick
from parasent.data.readers.sts import read_sts, read_sts_official
from parasent.data.readers.wordfreq import read_word_frequencies
from parasent.data.registry import layouts
from parasent.data.training_text.corpus import read_document
from parasent.errors import ParasentError
from parasent.text.word_vectors import read_word_vectors
from tests.fuzz.mutate import FUZZ_N, Tally, inputs

STS = b"4.2\tA man is playing a guitar.\tA man plays the guitar.\n0.5\tA dog runs.\tThe cat sleeps.\n\tunscored\tpair\n"
PIT_DATA = (
    b"4\tTopic\tthe game was great\tgreat game tonight\t(3, 2)\tO O\tO O\n"
    b"5\tOther\tI love it\tnot my thing\t(0, 5)\tO\tO\n"
)
PIT_LABEL = b"true\t0.8\nfalse\t0.0\n"
SICK = (
    b"pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"
    b"1\tA boy runs.\tA kid runs.\t4.5\tENTAILMENT\n2\tA cat.\tA car.\t1.2\tNEUTRAL\n"
)
SAMPLES = {
    "sts": (STS, lambda p: list(read_sts(p))),
    "sts-lenient": (STS, lambda p: list(read_sts(p, lenient=True))),
    "pit": (PIT_DATA, lambda p: list(read_pit2015(p))),
    "pit-lenient": (PIT_DATA, lambda p: list(read_pit2015(p, lenient=True))),
    "ppdb-human": (
        b"4.2\t[NP]\tthe car\tthe automobile\t4,5,4,4,4\n1.0\t[VP]\trun\twalk\t1,1,1\n",
        lambda p: list(read_ppdb_human(p)),
    ),
    "ppdb-lexical": (b"car automobile\nbig large\n", lambda p: list(read_ppdb_lexical(p))),
    "ppdb-phrasal": (
        b"[NP] ||| the car ||| the automobile ||| PPDB2.0Score=3.2 p(e|f)=0.5 ||| 0-0 1-1 ||| Equivalence\n"
        b"[VP] ||| run ||| walk ||| Score=1 ||| 0-0\n",
        lambda p: list(read_ppdb_phrasal(p, lenient=True)),
    ),
    "labelled-pairs": (
        b"1\tA man.\tA guy.\t7\t8\n0\tA cat.\tA dog.\n",
        lambda p: list(read_labelled_pairs(p)),
    ),
    "text-pairs": (b"A man.\tA guy.\nA cat.\tA kitten.\n", lambda p: list(read_text_pairs(p, lenient=True))),
    "sentiment": (b"a fine film .\t1\nawful .\t0\n", lambda p: list(read_labelled_sentences(p, classes=2))),
    "sick": (SICK, lambda p: list(read_sick(p))),
    "vectors": (b"3 4\nthe 0.1 0.2 0.3 0.4\ncar 1 2 3 4\ndog -1 0 1e-3 2\n", lambda p: read_word_vectors(p)),
    "vectors-no-header": (b"the 0.1 0.2\ncar 1 2\n", lambda p: read_word_vectors(p, lenient=True)),
    "wordfreq": (b"the 1000\ncar 20\nThe 5\n", lambda p: read_word_frequencies(p)),
    "corpus-wrapped": (
        b'It was Mr. Smith. He came\nhome late.\n\nThe end! Or "not"? Yes.\n',
        lambda p: read_document(p, "wrapped"),
    ),
    "corpus-paragraphs": (
        b"First one. Second one.\nDr. Who came. U.S. law.\n",
        lambda p: read_document(p, "paragraphs"),
    ),
    "corpus-sentences": (b"one sentence .\nanother one .\n", lambda p: read_document(p, "sentences")),
    "unlabelled-tsv": (
        b"id\tq1\tq2\n1\tHow?\tWhy?\n",
        lambda p: list(layouts._tsv_columns([p], (1, 2), True)),
    ),
    "unlabelled-wikisplit": (b"A and B.\tA. <::::> B.\n", lambda p: list(layouts._wikisplit([p]))),
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_reader_survives_mutations(tmp_path, name):
    sample, read = SAMPLES[name]
    path = tmp_path / f"{name}.txt"
    path.write_bytes(sample)
    read(path)  # the sample itself is valid
    tally = Tally(name)
    for index, data in inputs(sample, seed=hash(name) % 10_000 + 1):
        path.write_bytes(data)
        tally.check(index, lambda: read(path), str(path), (ParasentError,))
    print(tally.report())
    assert tally.inputs == FUZZ_N
    assert not tally.failures, "\n".join(tally.failures[:10])


@pytest.mark.parametrize("which", ["input", "gold"])
def test_parallel_sts_files_survive_mutations(tmp_path, which):
    """The official layout: two parallel files, either one mutated."""
    inputs_path, gold_path = tmp_path / "STS.input.x.txt", tmp_path / "STS.gs.x.txt"
    sample_input, sample_gold = b"A man.\tA guy.\nA cat.\tA dog.\nX.\tY.\n", b"4.5\n1\n\n"
    inputs_path.write_bytes(sample_input)
    gold_path.write_bytes(sample_gold)
    target = inputs_path if which == "input" else gold_path
    tally = Tally(f"sts-official-{which}")
    for index, data in inputs(sample_input if which == "input" else sample_gold, seed=11 + len(which)):
        target.write_bytes(data)
        lenient = index % 2 == 0
        tally.check(
            index,
            lambda lenient=lenient: list(read_sts_official(inputs_path, gold_path, lenient=lenient)),
            str(tmp_path),
            (ParasentError,),
        )
    print(tally.report())
    assert not tally.failures, "\n".join(tally.failures[:10])


def test_pit_label_file_survives_mutations(tmp_path):
    data, labels = tmp_path / "test.data", tmp_path / "test.label"
    data.write_bytes(PIT_DATA)
    tally = Tally("pit-label")
    for index, mutant in inputs(PIT_LABEL, seed=23):
        labels.write_bytes(mutant)
        tally.check(index, lambda: list(read_pit2015(data, labels)), str(tmp_path), (ParasentError,))
    print(tally.report())
    assert not tally.failures, "\n".join(tally.failures[:10])
