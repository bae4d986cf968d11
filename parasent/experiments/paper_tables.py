"""The papers' tables in docs/, one record each: the runs behind a table and how it is written.

A :class:`Step` is a list of ``parasent`` command lines that fill one run directory (``{run}``;
``{out}`` is the root of all steps, so a step can read another's run, e.g. ``{out}/recipe-pp``).
A :class:`PaperTable` names the steps it needs, the doc and block it is written to, and a
``render`` that turns the steps' outputs into markdown. :mod:`parasent.experiments.regenerate`
runs the steps (resumably, through one run log) and writes the blocks.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parasent.errors import DataNotFoundError
from parasent.support.regular_files import (
    MAX_LOG_BYTES,
    MAX_RECORD_BYTES,
    read_regular_json,
    read_regular_text,
)
from parasent.support.tables import markdown_table


@dataclass(frozen=True)
class Step:
    """One run directory and the ``parasent`` command lines that fill it, in order."""

    key: str
    commands: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class PaperTable:
    """A table of docs/: the block ``name`` of ``doc``, written by ``render(out)`` from ``steps``."""

    name: str
    doc: str  # relative to the repository's docs/
    paper: str  # the table of the paper it reproduces (or extends)
    steps: tuple[str, ...]  # keys of STEPS, run in registry order
    render: Callable[[Path], str]


def _score(path: Path) -> float:
    """The primary figure of a ``parasent evaluate --json`` report."""
    report = read_regular_json(path)
    return float(report["aggregates"][report["primary_metric"]])


def _epochs(run: Path) -> tuple[int, int, float]:
    """(best epoch, epochs trained, best validation figure) from a training run's log."""
    records = [
        json.loads(line)
        for line in read_regular_text(run / "log.jsonl", max_bytes=MAX_LOG_BYTES).splitlines()
        if line
    ]
    epochs = [r for r in records if r.get("event") == "epoch" and r.get("validation")]
    best = max(epochs, key=lambda r: (next(iter(r["validation"].values())), -r["epoch"]))
    return int(best["epoch"]), max(r["epoch"] for r in epochs), float(next(iter(best["validation"].values())))


def _train(run: str, *options: str) -> tuple[str, ...]:
    return ("train", "--recipe", "paper", *options, "--out", run, "--quiet")


def _evaluate(model: str, suite: str, json_path: str) -> tuple[str, ...]:
    return ("evaluate", "--model", model, "--suite", suite, "--json", json_path, "--overwrite")


# -- the fidelity table: the paper recipe's options at the paper's epoch budget ------------------

FIDELITY_EPOCHS, FIDELITY_PATIENCE = 50, 10
FIDELITY_ROWS: dict[str, tuple[str, tuple[str, ...]]] = {
    "before": ("before: lazy pull on every row (the previous defaults)", ("--pull", "lazy", "--pull-rows", "all")),
    "exact-all": ("exact pull on every row", ("--pull", "exact", "--pull-rows", "all")),
    "exact-initial": ("exact pull on the initial vectors' rows", ("--pull", "exact")),
    "default": ("**after: lazy pull on the initial vectors' rows (default)**", ()),
    "paper-vocabulary": ("the paper's vocabulary (GloVe-4k words + [UNK])", ("--vocabulary", "initial")),
}  # fmt: skip


def _fidelity_step(row: str, options: tuple[str, ...]) -> Step:
    budget = ("--epochs", str(FIDELITY_EPOCHS), "--patience", str(FIDELITY_PATIENCE), "--seed", "1")
    return Step(
        f"fidelity-{row}",
        (_train("{run}", *budget, *options), _evaluate("{run}", "transfer", "{run}/transfer.json")),
    )


def render_fidelity(out: Path) -> str:
    head = ["PARAGRAM-PHRASE, paper recipe", "options", "STS 2016 (best epoch)", "transfer", "epochs trained"]
    rows = []
    for row, (label, options) in FIDELITY_ROWS.items():
        run = out / f"fidelity-{row}"
        best, trained, validation = _epochs(run)
        shown = f"`{' '.join(options)}`" if options else "(none)"
        rows.append(
            [label, shown, f"{validation:.2f} ({best})", f"{_score(run / 'transfer.json'):.2f}", str(trained)]
        )
    return markdown_table(head, rows)


# -- Table 6: frozen features, PP and its learned projections -----------------------------------

TABLE6_MODELS: dict[str, tuple[str, ...]] = {
    "pp": ("--encoder", "word_averaging"),
    "proj1200": ("--encoder", "projection", "--encoder-option", "output_dim=1200"),
    "proj2400": ("--encoder", "projection", "--encoder-option", "output_dim=2400"),
}
TABLE6_HEADS: dict[str, tuple[str, ...]] = {
    "rel": ("--task", "sick-relatedness", "--hidden", "300"),
    "ent": ("--task", "sick-entailment", "--batch-size", "100"),
    "sst-adam": ("--task", "sst-binary", "--optimizer", "adam"),
    "sst-adagrad": ("--task", "sst-binary", "--optimizer", "adagrad"),
}


def _table6_steps() -> list[Step]:
    steps = []
    for model, options in TABLE6_MODELS.items():
        commands: list[tuple[str, ...]] = [
            _train("{run}/model-run", *options, "--epochs", "3", "--seed", "1")
        ]
        for head, head_options in TABLE6_HEADS.items():
            commands.append(
                ("head", "train", *head_options, "--setting", "features", "--init", "{run}/model-run")
                + ("--lambda-s", "1e-6", "--seed", "1", "--out", f"{{run}}/{head}", "--quiet")
            )
        steps.append(Step(f"table6-{model}", tuple(commands)))
    return steps


def _test(run: Path) -> dict[str, Any]:
    return read_regular_json(run / "results.json")


def render_table6(out: Path) -> str:
    rel, ent, sst = [], [], []
    for model in TABLE6_MODELS:
        run = out / f"table6-{model}"
        test = _test(run / "rel")["test"]
        rel.append(f"{test['pearson']:.2f} / {test['spearman']:.2f} / {test['mse']:.3f}")
        ent.append(f"{_test(run / 'ent')['test']['accuracy']:.2f}")
        adam, adagrad = _test(run / "sst-adam"), _test(run / "sst-adagrad")
        chosen = (
            adam if adam["dev"]["accuracy"] >= adagrad["dev"]["accuracy"] else adagrad
        )  # on dev (Sec. 4.4.2)
        sst.append(
            f"**{chosen['test']['accuracy']:.2f}** ({adam['dev']['accuracy']:.2f} / {adagrad['dev']['accuracy']:.2f})"
        )
    return markdown_table(
        ["task (test), frozen features", "PP, 50 d", "projection to 1200", "projection to 2400"],
        [
            ["SICK relatedness r / rho / MSE", *rel],
            ["SICK entailment accuracy", *ent],
            ["SST binary accuracy (dev: Adam / AdaGrad)", *sst],
            [
                "(the paper, 300 d / 1200 / 2400: SICK r, entailment, SST)",
                "82.15, 80.2, 79.7",
                "82.85, 80.1, 78.8",
                "84.94, 83.1, 79.4",
            ],  # fmt: skip
        ],
    )


# -- tables whose command writes the markdown itself --------------------------------------------


def _file(relative: str) -> Callable[[Path], str]:
    def render(out: Path) -> str:
        return read_regular_text(out / relative, max_bytes=MAX_RECORD_BYTES).strip()

    return render


def _markdown_output(relative: str) -> Callable[[Path], str]:
    """The first markdown table a command printed (its output file), without its other lines."""

    def render(out: Path) -> str:
        lines = read_regular_text(out / relative, max_bytes=MAX_RECORD_BYTES).splitlines()
        start = next((i for i, line in enumerate(lines) if line.startswith("|")), len(lines))
        stop = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
        if start == stop:
            raise DataNotFoundError(f"{out / relative}: no markdown table in the command's output")
        return "\n".join(lines[start:stop])

    return render


def render_errors(out: Path) -> str:
    """``analyze errors``' table of Jiao et al.'s pairs with the paper's PP prediction beside it."""
    lines = _markdown_output("errors/command-1.out")(out).splitlines()
    if len(lines) != len(JIAO_PP) + 2:
        raise DataNotFoundError(
            f"{out}/errors/command-1.out: {len(lines) - 2} pairs, not Jiao et al.'s {len(JIAO_PP)}"
        )
    pairs = [line.split("|")[2].strip() for line in lines[2:]]
    if pairs != JIAO_PAIRS.split(","):
        raise DataNotFoundError(
            f"{out}/errors/command-1.out: pairs {pairs}, not Jiao et al.'s in their order"
        )
    cells = [" PP in Jiao et al. |", "---:|", *(f" {value:.2f} |" for value in JIAO_PP)]
    return "\n".join(line + cell for line, cell in zip(lines, cells, strict=True))


TABLE3_VARIANTS = ("pp", "proj", "dan", "rnn", "irnn", "lstm_no_og", "lstm_og")

# -- the paper recipe's headline row -------------------------------------------------------------


def render_recipe(out: Path) -> str:
    run = out / "recipe-pp"
    best, trained, _ = _epochs(run)
    return markdown_table(
        ["model", "transfer mean (21 sets, Pearson x100)", "STS 2016 (validation)"],
        [
            [
                "averaged GloVe-4k vectors",
                f"{_score(run / 'glove-transfer.json'):.2f}",
                f"{_score(run / 'glove-validation.json'):.2f}",
            ],
            [
                f"PARAGRAM-PHRASE trained from them ({trained} epochs, best at epoch {best})",
                f"{_score(run / 'transfer.json'):.2f}",
                f"{_score(run / 'validation.json'):.2f}",
            ],
        ],
    )


# -- the supervised heads (Wieting et al. 2016, Sec. 4.4), settings chosen by scripts/tune_heads.py --

HEAD_RUNS: dict[str, tuple[str, ...]] = {
    "rel-scratch": ("--task", "sick-relatedness", "--setting", "scratch", "--batch-size", "50", "--hidden", "150", "--lambda-s", "1e-6", "--lambda-w", "1e-7"),
    "rel-universal": ("--task", "sick-relatedness", "--setting", "universal", "--init", "{out}/recipe-pp", "--batch-size", "100"),
    "rel-features": ("--task", "sick-relatedness", "--setting", "features", "--init", "{out}/recipe-pp", "--hidden", "300", "--lambda-s", "1e-6"),
    "rel-features-glove": ("--task", "sick-relatedness", "--setting", "features", "--init", "vectors:{glove}", "--hidden", "300", "--lambda-s", "1e-6"),
    "ent-scratch": ("--task", "sick-entailment", "--setting", "scratch"),
    "ent-universal": ("--task", "sick-entailment", "--setting", "universal", "--init", "{out}/recipe-pp", "--batch-size", "50"),
    "ent-features": ("--task", "sick-entailment", "--setting", "features", "--init", "{out}/recipe-pp", "--batch-size", "100", "--lambda-s", "1e-6"),
    "ent-features-glove": ("--task", "sick-entailment", "--setting", "features", "--init", "vectors:{glove}", "--batch-size", "100", "--lambda-s", "1e-6"),
    "sst-scratch": ("--task", "sst-binary", "--setting", "scratch", "--batch-size", "50", "--lambda-s", "1e-4", "--lambda-w", "1e-7"),
    "sst-universal": ("--task", "sst-binary", "--setting", "universal", "--init", "{out}/recipe-pp", "--optimizer", "adam", "--batch-size", "100", "--lambda-s", "1e-3", "--lambda-w", "1e-5"),
    "sst-features": ("--task", "sst-binary", "--setting", "features", "--init", "{out}/recipe-pp", "--optimizer", "adam", "--lambda-s", "1e-6"),
    "sst-features-glove": ("--task", "sst-binary", "--setting", "features", "--init", "vectors:{glove}", "--optimizer", "adam", "--lambda-s", "1e-6"),
}  # fmt: skip


def _heads_step() -> Step:
    commands = [
        ("head", "train", *(o.replace("{glove}", GLOVE) for o in options), "--seed", "1", "--out", f"{{run}}/{name}", "--quiet")
        for name, options in HEAD_RUNS.items()
    ]  # fmt: skip
    commands += [
        _evaluate("{out}/recipe-pp", "sick", "{run}/cosine-pp.json"),
        (
            "evaluate",
            "--vectors",
            GLOVE,
            "--suite",
            "sick",
            "--json",
            "{run}/cosine-glove.json",
            "--overwrite",
        ),
    ]
    return Step("heads", tuple(commands))


def render_heads(out: Path) -> str:
    run = out / "heads"

    def cell(name: str) -> str:
        test = _test(run / name)["test"]
        if "pearson" in test:
            return f"{test['pearson']:.2f} / {test['spearman']:.2f} / {test['mse']:.3f}"
        return f"{test['accuracy']:.2f}"

    rows = []
    for task, label in (("rel", "SICK relatedness r / rho / MSE"), ("ent", "SICK entailment accuracy"), ("sst", "SST binary accuracy")):  # fmt: skip
        cells = [
            cell(f"{task}-{setting}") for setting in ("scratch", "universal", "features", "features-glove")
        ]
        cosine = (
            f"{_score(run / 'cosine-pp.json'):.2f} / {_score(run / 'cosine-glove.json'):.2f} (r)"
            if task == "rel"
            else ""
        )
        rows.append([label, *cells, cosine])
    header = ["task (test)", "scratch, GloVe-4k init", "universal, from PP", "features: PP", "features: averaged GloVe-4k", "cosine of PP / GloVe-4k"]  # fmt: skip
    return markdown_table(header, rows)


# -- the analyses (Wieting et al. 2016, Table 7, Figure 1, Sec. 6; Jiao et al. 2018, Table 6) -------

JIAO_PAIRS = (
    "sts2015/answers-forums#93,sts2016/plagiarism#56,sts2015/images#150,sts2015/images#226,"
    "sts2014/images#50,sts2014/images#72,sts2015/images#205,sts2015/images#9"
)
# PARAGRAM-PHRASE's prediction for each of those pairs in Jiao et al. (2018), Table 6 (0-5)
JIAO_PP = (3.14, 4.79, 4.61, 4.74, 3.89, 4.13, 2.61, 3.27)
ANALYSIS_MODELS = (
    "PP={out}/recipe-pp",
    "CSE={out}/compare20/cse/seed-1",
)


GLOVE = "wordvecs/glove50_4k.txt.gz"
SIAMESE = "{out}/kenter-table1"
STEPS: dict[str, Step] = {
    step.key: step
    for step in (
        *(_fidelity_step(row, options) for row, (_, options) in FIDELITY_ROWS.items()),
        *_table6_steps(),
        Step(
            "table3",
            (
                ("compare", "--ppdb-table", "--variants", *TABLE3_VARIANTS)
                + ("--epochs", "3", "--seeds", "3", "--out", "{run}", "--quiet"),
            ),
        ),
        Step(
            "recipe-pp",
            (
                _train("{run}"),
                _evaluate("{run}", "validation", "{run}/validation.json"),
                _evaluate("{run}", "transfer", "{run}/transfer.json"),
                (
                    "evaluate",
                    "--vectors",
                    GLOVE,
                    "--suite",
                    "validation",
                    "--json",
                    "{run}/glove-validation.json",
                    "--overwrite",
                ),
                (
                    "evaluate",
                    "--vectors",
                    GLOVE,
                    "--suite",
                    "transfer",
                    "--json",
                    "{run}/glove-transfer.json",
                    "--overwrite",
                ),
            ),
        ),
        _heads_step(),
        Step("table2", (("compare", "--out", "{run}", "--quiet"),)),
        Step(
            "compare20",
            (
                ("compare", "--variants", "pp", "proj", "dan", "cse", "charagram")
                + ("--epochs", "20", "--seeds", "3", "--out", "{run}", "--quiet"),
            ),
        ),
        Step(
            "length",
            (
                ("analyze", "length", *ANALYSIS_MODELS, "LSTM (no o.g.)={out}/table2/lstm_no_og/seed-1")
                + (
                    "LSTM (o.g.)={out}/table2/lstm_og/seed-1",
                    f"averaged GloVe-4k=vectors:{GLOVE}",
                    "--markdown",
                ),
            ),
        ),
        Step("learning-curve", (("analyze", "learning-curve", "--out", "{run}/curve", "--markdown"),)),
        Step("norm-weights", (("analyze", "norm-weights", "{out}/recipe-pp", "--markdown"),)),
        Step(
            "errors",
            (
                ("analyze", "errors", *ANALYSIS_MODELS, f"averaged GloVe-4k=vectors:{GLOVE}")
                + ("--index", JIAO_PAIRS, "--markdown"),
            ),
        ),
        Step(
            "kenter-table1",
            (
                ("train", "--objective", "siamese-cbow", "--out", "{run}/siamese-cbow", "--quiet"),
                ("word2vec", "--overwrite", "--arch", "skipgram", "--out", "{run}/w2v-skipgram", "--quiet"),
                ("word2vec", "--overwrite", "--arch", "cbow", "--out", "{run}/w2v-cbow", "--quiet"),
                ("word2vec", "--overwrite", "--arch", "cbow", "--sample", "1e-3", "--epochs", "20")
                + ("--out", "{run}/w2v-cbow-tuned", "--quiet"),
                ("compare-models", "w2v skipgram={run}/w2v-skipgram", "w2v CBOW={run}/w2v-cbow")
                + ("Siamese CBOW={run}/siamese-cbow", "w2v CBOW tuned={run}/w2v-cbow-tuned")
                + (
                    "--reference",
                    "w2v CBOW",
                    "--suite",
                    "transfer",
                    "--markdown",
                    "--json",
                    "{run}/table1.json",
                    "--overwrite",
                ),
            ),
        ),
        Step(
            "dcu",
            (
                ("sts-system", "--model", "{out}/recipe-pp", "--out", "{run}/system")
                + ("--sweep", "3:4.5:0.1", "--markdown", "--quiet"),
            ),
        ),
    )
}

TABLES: dict[str, PaperTable] = {
    table.name: table
    for table in (
        PaperTable(
            "recipe",
            "paper-wieting2016.md",
            "Wieting et al. (2016), the PARAGRAM-PHRASE recipe",
            ("recipe-pp",),
            render_recipe,
        ),
        PaperTable(
            "heads",
            "paper-wieting2016.md",
            "Wieting et al. (2016), Sec. 4.4 (Tables 4-5)",
            ("recipe-pp", "heads"),
            render_heads,
        ),  # fmt: skip
        PaperTable(
            "length",
            "paper-wieting2016.md",
            "Wieting et al. (2016), Table 7",
            ("recipe-pp", "table2", "compare20", "length"),
            _markdown_output("length/command-1.out"),
        ),
        PaperTable(
            "learning-curve",
            "paper-wieting2016.md",
            "Wieting et al. (2016), Figure 1",
            ("learning-curve",),
            _markdown_output("learning-curve/command-1.out"),
        ),
        PaperTable(
            "norm-weights",
            "paper-wieting2016.md",
            "Wieting et al. (2016), Sec. 6",
            ("recipe-pp", "norm-weights"),
            _markdown_output("norm-weights/command-1.out"),
        ),
        PaperTable(
            "errors",
            "paper-wieting2016.md",
            "Jiao et al. (2018), Table 6",
            ("recipe-pp", "compare20", "errors"),
            render_errors,
        ),
        PaperTable(
            "fidelity",
            "paper-deviations.md",
            "Wieting et al. (2016), Eq. 1: the recipe's options at the paper's epoch budget",
            tuple(f"fidelity-{row}" for row in FIDELITY_ROWS),
            render_fidelity,
        ),
        PaperTable(
            "table6",
            "paper-deviations.md",
            "Wieting et al. (2016), Table 6",
            tuple(f"table6-{model}" for model in TABLE6_MODELS),
            render_table6,
        ),
        PaperTable(
            "table3",
            "paper-table3.md",
            "Wieting et al. (2016), Table 3",
            ("table3",),
            _file("table3/table3.md"),
        ),
        PaperTable(
            "table2",
            "paper-encoders-comparison.md",
            "Wieting et al. (2016), Table 2",
            ("table2",),
            _file("table2/table.md"),
        ),
        PaperTable(
            "compare20",
            "paper-encoders-comparison.md",
            "Wieting et al. (2016), Table 2 at 20 epochs",
            ("compare20",),
            _file("compare20/table.md"),
        ),
        PaperTable(
            "kenter-table1",
            "paper-kenter2016-siamese-cbow.md",
            "Kenter et al. (2016), Table 1",
            ("kenter-table1",),
            _markdown_output("kenter-table1/command-5.out"),
        ),
        PaperTable(
            "dcu",
            "paper-hokamp2016-dcu-sts.md",
            "Hokamp & Arora (2016), STS 2016",
            ("recipe-pp", "dcu"),
            _markdown_output("dcu/command-1.out"),
        ),
    )
}
