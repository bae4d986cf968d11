import json

import pytest

from parasent.cli import main
from parasent.commands.paper_tables import command_runner
from parasent.errors import ParasentError


def test_list_names_every_table_and_its_commands(capsys):
    assert main(["paper-tables", "--list", "--only", "fidelity"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("fidelity: Wieting et al. (2016), Eq. 1")
    assert (
        "[fidelity-default] parasent train --recipe paper --epochs 50 --patience 10 --seed 1 --out {run}"
        in out
    )


def test_an_unknown_table_is_one_line(capsys):
    assert main(["paper-tables", "--only", "tabel3"]) == 2
    assert "no paper table tabel3" in capsys.readouterr().err


def test_the_runner_runs_parasent_on_the_data_dir_and_names_the_output_of_a_failure(mini_data_dir, tmp_path):
    run = command_runner(str(mini_data_dir))
    report = tmp_path / "validation.json"
    argv = ["evaluate", "--vectors", "wordvecs/mini16.txt.gz", "--suite", "validation", "--json", str(report)]
    run(argv, tmp_path / "command-1.out")
    assert json.loads(report.read_text())["primary_metric"]
    assert (tmp_path / "command-1.out").read_text().startswith("$ parasent evaluate --vectors")
    with pytest.raises(
        ParasentError, match=r"parasent evaluate failed \(exit 2; .*command-2.out\): parasent: "
    ):
        run(
            ["evaluate", "--vectors", "wordvecs/none.txt.gz", "--suite", "validation"],
            tmp_path / "command-2.out",
        )
