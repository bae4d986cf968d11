import json
import re
from pathlib import Path

import pytest

from parasent.errors import DataNotFoundError, OptionError
from parasent.experiments import paper_tables, regenerate
from parasent.experiments.paper_tables import PaperTable, Step
from parasent.experiments.regenerate import doc_blocks, plan, select, write_block

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_every_block_in_docs_has_its_record_and_every_record_its_block():
    blocks = {name: doc.name for doc in DOCS.glob("*.md") for name in doc_blocks(doc)}
    assert blocks == {name: table.doc for name, table in paper_tables.TABLES.items()}
    for table in paper_tables.TABLES.values():
        assert set(table.steps) <= set(paper_tables.STEPS), table.name


def test_write_block_replaces_the_block_and_nothing_else(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("before\n<!-- paper-table:t -->\nold\n<!-- /paper-table:t -->\nafter\n")
    write_block(doc, "t", "| a |\n|---|")
    assert doc.read_text() == "before\n<!-- paper-table:t -->\n| a |\n|---|\n<!-- /paper-table:t -->\nafter\n"
    with pytest.raises(DataNotFoundError, match=r"doc.md: no block <!-- paper-table:other -->"):
        write_block(doc, "other", "x")
    with pytest.raises(DataNotFoundError, match="no such doc"):
        write_block(tmp_path / "missing.md", "t", "x")


def test_unknown_table_names_are_one_error_naming_the_known_ones():
    with pytest.raises(OptionError, match="no paper table nope .known: recipe, heads, "):
        select(["nope"])
    assert [t.name for t in select(["table6", "recipe"])] == ["recipe", "table6"]  # registry order


def test_a_step_shared_by_two_tables_runs_once():
    steps = plan(select(["recipe", "dcu"]))
    assert [s.key for s in steps] == ["recipe-pp", "dcu"]


@pytest.fixture
def fake_registry(monkeypatch):
    steps = {
        "a": Step("a", (("train", "--out", "{run}"), ("evaluate", "--json", "{run}/score.json"))),
        "b": Step("b", (("evaluate", "--model", "{out}/a", "--json", "{run}/score.json"),)),
    }

    def render(out):
        return f"| score | {json.loads((out / 'b' / 'score.json').read_text())['value']} |"

    monkeypatch.setattr(regenerate, "STEPS", steps)
    return PaperTable("fake", "doc.md", "a test table", ("a", "b"), render)


def test_regenerate_runs_each_step_once_resumes_a_cut_step_and_writes_the_block(tmp_path, fake_registry):
    (tmp_path / "docs").mkdir()
    doc = tmp_path / "docs" / "doc.md"
    doc.write_text("x\n<!-- paper-table:fake -->\n<!-- /paper-table:fake -->\n")
    calls = []

    def run_command(argv, output):
        calls.append(list(argv))
        if argv[0] == "train":
            assert output.name == "command-1.out"
            Path(argv[argv.index("--out") + 1], "checkpoint.safetensors").write_text("state")
        if argv[0] == "evaluate" and len(calls) == 2:
            raise KeyboardInterrupt  # killed during step a's second command
        if argv[0] == "evaluate":
            Path(argv[-1]).write_text(json.dumps({"value": 7}))

    out = tmp_path / "runs"
    with pytest.raises(KeyboardInterrupt):
        regenerate.regenerate(out, [fake_registry], tmp_path / "docs", run_command, commit="c0ffee1234")
    said: list[str] = []
    written = regenerate.regenerate(
        out, [fake_registry], tmp_path / "docs", run_command, commit="c0ffee1234", say=said.append
    )
    assert any(f"follow each in {out / 'a'}/command-N.out" in line for line in said)  # where its progress is
    assert calls[2] == ["train", "--out", str(out / "a"), "--resume"]  # the cut step continues its run
    assert calls[4] == ["evaluate", "--model", str(out / "a"), "--json", str(out / "b" / "score.json")]
    assert len(calls) == 5
    text = doc.read_text()
    assert "| score | 7 |" in text and re.search(r"on commit c0ffee1; its steps took [\d.]+ min", text)
    assert written[0].commits == ("c0ffee1234",)
    regenerate.regenerate(out, [fake_registry], tmp_path / "docs", run_command, commit="other")
    assert len(calls) == 5  # both steps reused from the log


def test_renderers_read_the_runs(tmp_path):
    for row in paper_tables.FIDELITY_ROWS:
        run = tmp_path / f"fidelity-{row}"
        run.mkdir()
        epochs = [{"event": "epoch", "epoch": e, "validation": {"validation_mean_pearson": v}} for e, v in ((0, 10.0), (1, 50.0), (2, 40.0))]  # fmt: skip
        (run / "log.jsonl").write_text("\n".join(json.dumps(r) for r in epochs) + "\n")
        (run / "transfer.json").write_text(json.dumps({"primary_metric": "m", "aggregates": {"m": 45.678}}))
    table = paper_tables.render_fidelity(tmp_path)
    assert table.count("| 50.00 (1) | 45.68 | 2 |") == len(paper_tables.FIDELITY_ROWS)
    assert "`--pull exact --pull-rows all`" in table


def test_the_errors_table_gets_the_papers_prediction_beside_each_pair(tmp_path):
    (tmp_path / "errors").mkdir()
    pairs = paper_tables.JIAO_PAIRS.split(",")
    rows = [f"| {i} | {pair} | 4.00 | 0.50 |" for i, pair in enumerate(pairs, 1)]
    head = ["$ parasent analyze errors ...", "| # | pair | PP | gold |", "|---|---|---|---|"]
    output = [*head, *rows, "", "note"]
    (tmp_path / "errors" / "command-1.out").write_text("\n".join(output))
    table = paper_tables.render_errors(tmp_path).splitlines()
    assert table[0] == "| # | pair | PP | gold | PP in Jiao et al. |"
    assert table[2] == f"| 1 | {pairs[0]} | 4.00 | 0.50 | 3.14 |"
    assert len(table) == len(paper_tables.JIAO_PP) + 2
    (tmp_path / "errors" / "command-1.out").write_text("\n".join(output[:5]))  # two pairs only
    with pytest.raises(DataNotFoundError, match="not Jiao et al.'s 8"):
        paper_tables.render_errors(tmp_path)
    swapped = [*head, rows[1], rows[0], *rows[2:]]  # the paper's figures beside other pairs
    (tmp_path / "errors" / "command-1.out").write_text("\n".join(swapped))
    with pytest.raises(DataNotFoundError, match="in their order"):
        paper_tables.render_errors(tmp_path)


def test_every_step_command_line_is_one_the_command_line_accepts(tmp_path):
    from parasent.cli import build_parser
    from parasent.experiments.regenerate import _command_line

    for step in paper_tables.STEPS.values():
        for command in step.commands:
            argv = _command_line(command, tmp_path / step.key, tmp_path)
            build_parser(argv[0]).parse_args(argv)  # exits (SystemExit) on an unknown option or value


def test_the_tables_page_lists_every_table_once():
    page = (DOCS / "paper-tables.md").read_text()
    listed = re.findall(r"^\| `([\w-]+)` \|", page, flags=re.MULTILINE)
    assert listed == list(paper_tables.TABLES)
