"""docs/architecture.md stays true: its layer table is ``LAYERS``, its exception table is
``parasent/errors.py`` (and no exception class lives elsewhere), its featurizer kinds are the
ones a model directory may name."""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

import parasent
from parasent import errors
from parasent.text.featurizers import KINDS
from tests.test_layers import LAYERS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(parasent.__file__).parent
PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _table(header: str) -> list[list[str]]:
    """The rows of the markdown table whose header line starts with ``header``, as cells."""
    lines = PAGE[PAGE.index(header) :].splitlines()[2:]
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def _names(cell: str) -> set[str]:
    return {name.rstrip("/") for name in re.findall(r"`([^`]+)`", cell)}


def test_the_layer_table_is_LAYERS():
    rows = _table("| layer | parts |")
    assert [int(row[0]) for row in rows] == list(range(len(LAYERS)))
    for row, layer in zip(rows, LAYERS, strict=True):
        assert _names(row[1]) == layer, f"layer {row[0]}: the page says {row[1]}, LAYERS says {sorted(layer)}"


def test_every_layer_is_a_folder_or_a_module_of_the_package():
    for part in set().union(*LAYERS):
        assert (PACKAGE / part).is_dir() or (PACKAGE / f"{part}.py").is_file(), part


def test_the_package_root_holds_at_most_ten_modules():
    modules = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(modules) <= 10, modules


def _exception_classes_of_errors_module() -> set[str]:
    return {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__ == errors.__name__
    }


def test_the_exception_table_is_errors_py():
    documented = set().union(*(_names(row[0]) for row in _table("| exception | raised for |")))
    assert documented == _exception_classes_of_errors_module()


def test_no_exception_class_is_defined_outside_errors_py():
    known = _exception_classes_of_errors_module() | {
        name
        for name, value in vars(builtins).items()
        if isinstance(value, type) and issubclass(value, BaseException)
    }
    elsewhere = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = {
                    base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
                    for base in node.bases
                }
                if bases & known:
                    elsewhere.append(f"{path.relative_to(PACKAGE.parent)}: class {node.name}")
    assert not elsewhere, elsewhere


def test_the_featurizer_kinds_are_the_ones_a_model_may_name():
    documented = set().union(*(_names(row[0]) for row in _table("| featurizer kind |")))
    assert documented == set(KINDS)


# --- the walks and the claims: every name the page gives exists where it says ---------------

PATH_REF = re.compile(
    r"(?<![\w/.])((?:parasent/|tests/|scripts/|bench/)?(?:\w+/)*\w+\.py)(?::([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?))?"
)
MODULE_REF = re.compile(r"^(parasent(?:\.\w+)*)")
QUALIFIED = re.compile(r"^([A-Za-z_]\w*)\.([A-Za-z_]\w*)(?:\(.*\))?$")
IDENTIFIER = re.compile(r"^([A-Za-z_]\w*)(?:\(.*\))?$")
FILE_SUFFIXES = {"json", "jsonl", "safetensors", "md", "stale", "py"}


class _Index:
    """What each module of the package defines: top-level names, and ``Class.member``."""

    def __init__(self) -> None:
        self.top: dict[Path, set[str]] = {}
        self.members: dict[Path, set[str]] = {}
        self.anywhere: set[str] = set()
        self.bases: dict[str, set[str]] = {}
        for path in sorted(PACKAGE.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            top, members = set(), set()
            for node in tree.body:
                top |= _defined(node)
                if isinstance(node, ast.ClassDef):
                    self.bases.setdefault(node.name, set()).update(getattr(b, "id", "") for b in node.bases)
                    for item in node.body:
                        members |= {f"{node.name}.{name}" for name in _defined(item)}
            self.top[path], self.members[path] = top, members
            for node in ast.walk(tree):
                self.anywhere |= _defined(node)
                if isinstance(node, ast.arg):
                    self.anywhere.add(node.arg)
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                    self.anywhere.add(node.attr)
                if (
                    isinstance(node, ast.Constant)
                    and isinstance(node.value, str)
                    and node.value.isidentifier()
                ):
                    self.anywhere.add(node.value)  # a registry's key, an environment variable
            self.anywhere |= {path.stem, path.parent.name}

    def defines(self, path: Path, name: str) -> bool:
        return name in self.top.get(path, set()) or name in self.members.get(path, set())

    def stems(self, stem: str) -> list[Path]:
        return [path for path in self.top if path.stem == stem]

    def classes(self, name: str) -> list[Path]:
        return [
            path for path, members in self.members.items() if any(m.startswith(f"{name}.") for m in members)
        ]

    def has_member(self, owner: str, member: str, seen: frozenset[str] = frozenset()) -> bool:
        """``owner.member`` defined by the class or one of its bases (by name)."""
        if any(f"{owner}.{member}" in members for members in self.members.values()):
            return True
        bases = self.bases.get(owner, set()) - seen
        return any(self.has_member(base, member, seen | {owner}) for base in bases)


def _defined(node: ast.AST) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    targets = (
        node.targets
        if isinstance(node, ast.Assign)
        else [node.target]
        if isinstance(node, ast.AnnAssign)
        else []
    )
    return {t.id for t in targets if isinstance(t, ast.Name)}


INDEX = _Index()


def _code_spans() -> list[str]:
    return re.findall(r"`([^`\n]+)`", PAGE)


def _missing_path_refs(text: str) -> list[str]:
    missing = []
    for match in PATH_REF.finditer(text):
        file, name = match.groups()
        path = (
            ROOT / file if file.startswith(("parasent/", "tests/", "scripts/", "bench/")) else PACKAGE / file
        )
        if not path.is_file():
            missing.append(f"{match.group(0)}: no file {path.relative_to(ROOT)}")
        elif name and not INDEX.defines(path, name):
            missing.append(f"{match.group(0)}: {file} defines no {name}")
    return missing


def _missing_module_ref(span: str) -> str | None:
    """``parasent.a.b.Name``: the longest prefix that is a module, then a name it defines."""
    words = MODULE_REF.match(span).group(1).split(".")
    for cut in range(len(words), 0, -1):
        base = PACKAGE.parent.joinpath(*words[:cut])
        path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
        if path.is_file():
            rest = words[cut:]
            if rest and not INDEX.defines(path, ".".join(rest[:2]) if len(rest) > 1 else rest[0]):
                return f"{span}: {'.'.join(words[:cut])} defines no {'.'.join(rest)}"
            return None
    return f"{span}: no module {'.'.join(words)}"


def _missing_qualified(owner: str, member: str) -> str | None:
    """``module.name`` or ``Class.member``; an owner that is neither (a variable) is not checked."""
    if member in FILE_SUFFIXES:
        return None
    modules, classes = INDEX.stems(owner), INDEX.classes(owner)
    if not modules and not classes:
        return None
    in_module = any(
        member in INDEX.top[path] or any(m.endswith(f".{member}") for m in INDEX.members[path])
        for path in modules
    )
    in_class = bool(classes) and INDEX.has_member(owner, member)
    return None if in_module or in_class else f"{owner}.{member}: defined nowhere in the package"


def _missing_span(span: str) -> str | None:
    if MODULE_REF.match(span):
        return _missing_module_ref(span)
    qualified = QUALIFIED.match(span)
    if qualified:
        return _missing_qualified(*qualified.groups())
    identifier = IDENTIFIER.match(span)
    if identifier:
        name = identifier.group(1)
        code_like = (
            "_" in name.strip("_") or name.startswith("_") or re.fullmatch(r"[A-Z][a-z]+[A-Z]\w*", name)
        )
        if code_like and name not in INDEX.anywhere and not hasattr(builtins, name) and name not in EXTERNAL:
            return f"{span}: defined nowhere in the package"
    return None


#: Names the page gives that belong to other libraries or to the command line.
EXTERNAL = {"map_batches", "normalize_embeddings", "truncate_dim", "min_count", "convert_to_tensor"}


def test_every_file_and_name_the_page_gives_exists():
    """The walks, the stages and the claims name files (``core/output.py:finish``), modules
    (``parasent.core.model_formats.FORMATS``), members (``SentenceModel._chunks``,
    ``inference.average_one``) and functions (``batch_source``): each must be there, so a
    renamed or moved one fails here until the page follows."""
    missing = _missing_path_refs(PAGE)
    for span in _code_spans():
        if not PATH_REF.search(span):
            problem = _missing_span(span)
            if problem:
                missing.append(problem)
    assert not missing, "\n".join(missing)


def test_a_stale_name_is_found():
    assert _missing_path_refs("`core/output.py:finish_up`") and _missing_path_refs("`core/outputs.py`")
    assert _missing_span("SentenceModel._chunk") and _missing_span("parasent.core.model_formats.FORMAT")
    assert _missing_span("inference.average_once") and _missing_span("build_featurez")
    assert not _missing_span("SentenceModel._chunks") and not _missing_span("inference.average_one")


def _paragraph(start: str) -> str:
    at = PAGE.index(start)
    return PAGE[at : PAGE.find("\n\n", at)]


def _imports_torch(tree: ast.AST) -> list[ast.AST]:
    return [
        node
        for node in ast.walk(tree)
        if (isinstance(node, ast.Import) and any(a.name.split(".")[0] == "torch" for a in node.names))
        or (
            isinstance(node, ast.ImportFrom)
            and not node.level
            and (node.module or "").split(".")[0] == "torch"
        )
    ]


def test_torch_is_imported_below_the_training_side_only_where_the_page_says():
    from tests.test_layers import _layer

    paragraph = _paragraph("torch is imported by")
    named = {m.group(1) for m in PATH_REF.finditer(paragraph) if not m.group(1).startswith("tests/")}
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        part = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        if part in ("encoders", "__init__") or _layer(part) >= _layer("objectives"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if _imports_torch(tree):
            found.add(str(path.relative_to(PACKAGE)))
    assert found == named, f"the page names {sorted(named)}, torch is imported in {sorted(found)}"


def test_the_protocols_the_page_names_are_the_file_s():
    paragraph = _paragraph("The trainer sees the protocols of")
    tree = ast.parse((PACKAGE / "training" / "protocols.py").read_text(encoding="utf-8"))
    protocols = {
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef) and any(getattr(b, "id", "") == "Protocol" for b in node.bases)
    }
    named = _names(paragraph)
    assert protocols <= named, f"protocols.py defines {sorted(protocols)}; the page names {sorted(named)}"
    assert "BatchSource" in named and INDEX.defines(PACKAGE / "training" / "batching.py", "BatchSource")


def test_a_new_command_is_everything_the_page_says():
    """Every table of ``cli.py`` keyed by the command names is one a new command must join."""
    from parasent import cli

    names = set(cli.COMMANDS)
    tables = {
        attr
        for attr, value in vars(cli).items()
        if attr.isupper() and isinstance(value, (list, dict)) and set(value) == names
    }
    bullet = _paragraph("- A new command:")
    assert tables and tables <= _names(bullet), f"cli.py lists the commands in {sorted(tables)}"


def test_assemble_runs_the_stages_in_the_page_s_order():
    block = PAGE[PAGE.index("## The stages of a training run") :]
    block = block[block.index("```") + 3 :]
    block = block[: block.index("```")]
    stages = [
        match.group(2)
        for line in block.splitlines()
        if re.match(r"\s+\d+\. ", line)
        for match in [PATH_REF.search(line)]
        if match and match.group(2)
    ]
    source = ast.get_source_segment(
        (PACKAGE / "training" / "run.py").read_text(encoding="utf-8"),
        next(
            node
            for node in ast.parse((PACKAGE / "training" / "run.py").read_text(encoding="utf-8")).body
            if isinstance(node, ast.FunctionDef) and node.name == "assemble"
        ),
    )
    called = [name for name in stages if f"{name}(" in source]
    assert len(called) >= 6, f"the page's stages {stages}; called by assemble: {called}"
    assert called == sorted(called, key=lambda name: source.index(f"{name}(")), called


# --- what the page claims, checked against the code -----------------------------------------


def _stage_block() -> str:
    block = PAGE[PAGE.index("## The stages of a training run") :]
    block = block[block.index("```") + 3 :]
    return block[: block.index("```")]


def _page_stages() -> dict[str, int]:
    """Each function or class the stage block names (``training/run.py:begin_run``) -> its number."""
    numbers: dict[str, int] = {}
    number = None
    for line in _stage_block().splitlines():
        start = re.match(r"\s+(\d+)\. ", line)
        number = int(start.group(1)) if start else number
        for match in PATH_REF.finditer(line):
            if number is not None and match.group(2):
                numbers.setdefault(match.group(2).split(".")[0], number)
    return numbers


def _code_stages() -> dict[str, int]:
    """The same from the numbered list of ``parasent/training/run.py``'s docstring."""
    doc = ast.get_docstring(ast.parse((PACKAGE / "training" / "run.py").read_text(encoding="utf-8")))
    numbers: dict[str, int] = {}
    number = None
    for line in doc.splitlines():
        start = re.match(r"(\d+)\. ", line)
        number = int(start.group(1)) if start else number
        for name in re.findall(r":(?:func|class|meth):`~?([\w.]+)`", line):
            if number is not None:
                numbers.setdefault(name.split(".")[-1], number)
    return numbers


def test_the_stages_are_numbered_as_the_code_numbers_them():
    page, code = _page_stages(), _code_stages()
    common = sorted(set(page) & set(code))
    assert len(common) >= 6, f"the page's stages {page}, the code's {code}"
    differ = [
        f"{name}: page {page[name]}, training/run.py {code[name]}"
        for name in common
        if page[name] != code[name]
    ]
    assert not differ, differ
    for path in sorted((PACKAGE / "training").glob("*_stage.py")):
        said = re.match(r"Stage (\d+)", ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "")
        named = {page[n] for n in page if INDEX.defines(path, n)}
        if said:
            assert int(said.group(1)) in named, f"{path.name} says stage {said.group(1)}; the page: {named}"


def test_the_page_lists_the_recipes_of_the_registry():
    from parasent.training.config import AUTO_RECIPE, RECIPES

    sentence = PAGE[PAGE.index("the recipe —") :]
    listed = re.findall(r"`([^`]+)`", sentence[: sentence.index(" — ", len("the recipe —"))])
    assert set(listed) == {AUTO_RECIPE, *RECIPES}, listed


def _layer_row(part: str) -> str:
    return next(row[2] for row in _table("| layer | parts |") if part in _names(row[1]))


def test_the_layer_table_names_every_module_of_the_folders_it_lists():
    """The rows that enumerate a folder's modules (the leaf helpers, the core, the corpus tools, the teacher)
    name each of them, so a module added or moved there shows on the page."""
    missing = []
    for part in ("support", "core", "corpus", "distillation"):
        row = _names(_layer_row(part))
        for path in sorted((PACKAGE / part).iterdir()):
            name = path.stem if path.suffix == ".py" else path.name
            if name.startswith("_") or not (path.suffix == ".py" or (path / "__init__.py").is_file()):
                continue
            if name not in row:
                missing.append(f"{part}/{path.name}")
    assert not missing, f"the layer table does not name {missing}"


def _functions_importing_torch(tree: ast.Module) -> set[str]:
    """``function`` or ``Class.method`` of each import of torch inside a function."""
    found = set()
    for node in tree.body:
        functions = [node] if isinstance(node, ast.FunctionDef) else []
        if isinstance(node, ast.ClassDef):
            functions = [item for item in node.body if isinstance(item, ast.FunctionDef)]
        for function in functions:
            if _imports_torch(function):
                owner = f"{node.name}." if isinstance(node, ast.ClassDef) else ""
                found.add(owner + function.name)
    return found


def test_the_page_names_each_function_that_imports_torch_below_the_training_side():
    paragraph = _paragraph("torch is imported by")
    named = _names(paragraph)
    unnamed = []
    for match in PATH_REF.finditer(paragraph):
        path = PACKAGE / match.group(1)
        if match.group(1).startswith("tests/") or not path.is_file():
            continue
        for function in _functions_importing_torch(ast.parse(path.read_text(encoding="utf-8"))):
            if function not in named:
                unnamed.append(f"{match.group(1)}: {function}")
    assert not unnamed, f"torch is imported in functions the page does not name: {unnamed}"


def test_the_torch_free_claim_names_the_test_that_checks_it():
    flat = " ".join(PAGE.split())
    sentence = flat[flat.index("need numpy, tokenizers and safetensors alone") :]
    named = re.search(r"`(tests/[\w/]+\.py)`", sentence[: sentence.index(")")]).group(1)
    assert named != "tests/test_architecture_doc.py"
    doc = ast.get_docstring(ast.parse((ROOT / named).read_text(encoding="utf-8"))) or ""
    assert "torch" in doc, f"{named} does not say it checks the install without torch"


def test_a_name_given_with_its_file_is_defined_there():
    """``(`initial_matrix`: `training/encoder_stage.py`, ...)``: the name is the file's."""
    wrong = [
        f"{name}: {file} defines no {name}"
        for name, file in re.findall(r"`([A-Za-z_]\w*)`: `((?:\w+/)+\w+\.py)`", PAGE)
        if not INDEX.defines(ROOT / file if file.startswith("parasent/") else PACKAGE / file, name)
    ]
    assert not wrong, wrong


def test_no_command_module_imports_another_and_the_helpers_are_named():
    from parasent import cli
    from tests.test_layers import _all_imports

    commands = {f"parasent.commands.{name.replace('-', '_')}" for name in cli.COMMANDS}
    crossing = [
        f"{found.where}:{found.line} imports {found.name}"
        for found in _all_imports()
        if found.module in commands and found.name in commands and found.name != found.module
    ]
    assert not crossing, crossing
    helpers = {
        f"commands/{path.name}"
        for path in (PACKAGE / "commands").glob("*.py")
        if not path.name.startswith("_") and f"parasent.commands.{path.stem}" not in commands
    }
    named = {
        m.group(1)
        for m in PATH_REF.finditer(_paragraph("- **Commands**"))
        if m.group(1).startswith("commands/")
    }
    assert helpers == named, (
        f"the helpers of the command modules are {sorted(helpers)}; the page: {sorted(named)}"
    )


def test_the_stages_the_supervised_heads_share_are_the_ones_the_page_gives():
    stages = set(_page_stages())
    source = (PACKAGE / "supervised" / "run.py").read_text(encoding="utf-8")
    called = {name for name in stages if re.search(rf"\b{name}\(", source)}
    sentence = PAGE[PAGE.index("The supervised") :]
    claimed = _names(sentence[: sentence.index("\n\n")]) & stages
    assert called == claimed, (
        f"supervised/run.py calls the stage functions {sorted(called)}; the page: {sorted(claimed)}"
    )


def test_pyproject_names_only_paths_that_exist():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    paths = re.findall(r"(?<![\w/.:])((?:parasent|tests|scripts|bench|docs)/[\w/.-]*\w)", text)
    assert paths, "pyproject.toml names no path of the checkout"
    missing = [path for path in paths if not (ROOT / path).exists()]
    assert not missing, f"pyproject.toml names {missing}, which do not exist"
