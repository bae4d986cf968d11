"""Training checkpoints as one safetensors file (tensors) with JSON state in its metadata.

No pickle: optimizer state dicts are split into their tensors (stored by path) and the rest
(numbers, lists, strings) as JSON. A checkpoint is written to a temporary file and renamed
over the previous one, so a run killed mid-write leaves the previous checkpoint intact.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from safetensors import safe_open
from safetensors.torch import save_file

from parasent.errors import CheckpointError, DataNotFoundError
from parasent.support.path_names import native_path
from parasent.support.regular_files import exists, regular_size
from parasent.support.staging import staged_file

if TYPE_CHECKING:
    from parasent.training.config import RunOptions, TrainConfig

_TENSOR = "__tensor__"
_INTKEYS = "__intkeys__"
_METADATA_KEY = "parasent_checkpoint"


def flatten_state(obj: Any, prefix: str, tensors: dict[str, torch.Tensor]) -> Any:
    """Replace every tensor in a nested structure by a reference, collecting tensors by path."""
    if isinstance(obj, torch.Tensor):
        tensors[prefix] = obj.detach().cpu().contiguous()
        return {_TENSOR: prefix}
    if isinstance(obj, dict):
        int_keys = all(isinstance(k, int) for k in obj) and len(obj) > 0
        out = {str(k): flatten_state(v, f"{prefix}.{k}", tensors) for k, v in obj.items()}
        if int_keys:
            out[_INTKEYS] = True
        return out
    if isinstance(obj, list | tuple):
        return [flatten_state(v, f"{prefix}.{i}", tensors) for i, v in enumerate(obj)]
    if isinstance(obj, float | int | str | bool) or obj is None:
        return obj
    raise TypeError(f"cannot store {type(obj).__name__} at {prefix} in a checkpoint")


def unflatten_state(obj: Any, tensors: dict[str, torch.Tensor]) -> Any:
    if isinstance(obj, dict):
        if set(obj) == {_TENSOR}:
            return tensors[obj[_TENSOR]]
        int_keys = obj.get(_INTKEYS, False)
        return {
            (int(k) if int_keys else k): unflatten_state(v, tensors) for k, v in obj.items() if k != _INTKEYS
        }
    if isinstance(obj, list):
        return [unflatten_state(v, tensors) for v in obj]
    return obj


def save_checkpoint(path: str | Path, state: dict[str, Any]) -> None:
    """Write ``state`` (nested dicts of tensors and JSON values) atomically to ``path``."""
    path = Path(path)
    tensors: dict[str, torch.Tensor] = {}
    flat = flatten_state(state, "state", tensors)
    # safetensors refuses tensors that share storage: copy the second and later sharers.
    storages: set[int] = set()
    for key, tensor in tensors.items():
        storage = tensor.untyped_storage().data_ptr()
        if tensor.numel() and storage in storages:
            tensors[key] = tensor.clone()
        storages.add(storage)
    needs = sum(t.numel() * t.element_size() for t in tensors.values())
    # a full disk, a kill: the previous checkpoint stays as it was (and no temporary file)
    with staged_file(path, needs_bytes=needs) as tmp:
        save_file(tensors, native_path(tmp), metadata={_METADATA_KEY: json.dumps(flat)})


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    return unflatten_state(*_read_checkpoint(path, tensors=True))


def checkpoint_config(path: str | Path) -> dict[str, Any]:
    """The options a checkpoint's run was started with, read from its header alone (no tensor
    is loaded): what ``parasent train --out RUN --resume`` continues with."""
    return _read_checkpoint(path, tensors=False)[0]["config"]


def resumed_options(path: str | Path, typed: dict[str, Any]) -> TrainConfig:
    """The options a resumed training run continues with: its own, read from its checkpoint at
    ``path`` (whatever the recipe says today), with ``typed`` (flat names) on top; any change
    beyond those a resumed run may make (``RESUMABLE_CHANGES``: ``--epochs``, ``--patience``, how
    often it checkpoints and logs, its device and teacher cache) is refused by name."""
    from parasent.training.config import TrainConfig

    original = _named_as(TrainConfig.from_dict(checkpoint_config(path)), typed)
    resumed = original.replace(**typed) if typed else original
    refuse_changes(path, resumed, original)
    if "pair_files" not in typed:
        _reachable_pairs(resumed.data.pair_files)
    if "init_model" not in typed and resumed.encoder.init_model:
        _reachable_start(resumed.encoder.init_model)
    return resumed


def _reachable_start(init_model: str) -> None:
    """The model a run continues, named relative to where it started and not found from here:
    said with what to do, before any data is read (it failed later as "not a model directory")."""
    from parasent.core.model import resolve_model_path

    if resolve_model_path(init_model).exists():
        return
    where = (
        "it was moved or removed"
        if Path(init_model).is_absolute()
        else "the run named it from the folder it started in; resume there"
    )
    raise DataNotFoundError(
        f"{init_model}: no model there from here ({where}); or name it with --init-model (the run checks "
        "that it is the model it began from, by its digest)"
    )


def _reachable_pairs(specs: list[list[str]]) -> None:
    """A pairs file the run recorded as it was named, relative to where it started, and not found
    from here: said with what to do, before any data is read."""
    missing = next((spec[0] for spec in specs if not exists(spec[0])), None)
    if missing is None:
        return
    where = (
        "it was moved or removed"
        if Path(missing).is_absolute()
        else "the run named it from the folder it started in; resume there"
    )
    raise DataNotFoundError(
        f"{missing}: no such file from here ({where}); or name it with --pairs, at the same file name (the run "
        "checks that it reads the same pairs)"
    )


def _named_as(original: Any, given: dict[str, Any]) -> Any:
    """The run's own options ``original`` with the inputs that ``given`` (flat names) names
    otherwise (:func:`_respelled`) named as given: the same run, its inputs reached from here."""
    own = original.flat()
    respelled = {key: value for key, value in given.items() if _respelled(key, value, own.get(key))}
    return original.replace(**respelled) if respelled else original


def _respelled(key: str, given: Any, own: Any) -> bool:
    """Whether ``given`` names what the run's own option ``own`` named, otherwise spelled: the
    same model (a loaded model's directory for ``"default"``; where the run's own name reaches
    nothing from here, a directory of the same name, which the resumed run checks by its digest),
    or pairs files of the same names
    and formats named from another folder or moved (their contents must still be the run's: the
    resumed run checks them against the checkpoint's data fingerprint; another file name is
    another input, refused here by name)."""
    from parasent.core.model import resolve_model_path

    if key == "init_model" and isinstance(given, str) and isinstance(own, str):
        if not resolve_model_path(own).exists():  # named from where the run began: the same name, and
            return Path(given).name == Path(own).name  # the digest (when recorded) decides
        return resolve_model_path(given).resolve() == resolve_model_path(own).resolve()
    if key == "pair_files" and isinstance(given, list) and isinstance(own, list):
        return [[Path(spec[0]).name, *spec[1:]] for spec in given] == [
            [Path(spec[0]).name, *spec[1:]] for spec in own
        ]
    return False


def _read_checkpoint(path: str | Path, *, tensors: bool) -> tuple[Any, dict[str, torch.Tensor]]:
    """The checkpoint's JSON state (tensors as references) and, with ``tensors``, its tensors."""
    path = Path(path)
    if not exists(path):
        raise CheckpointError(f"{path}: no checkpoint to resume from")
    regular_size(path)  # a FIFO or a device is refused, never opened
    try:
        with safe_open(native_path(path), framework="pt") as handle:
            metadata = handle.metadata() or {}
            loaded = {key: handle.get_tensor(key) for key in handle.keys()} if tensors else {}
    except Exception as exc:  # safetensors raises its own error types
        raise CheckpointError(f"{path}: unreadable checkpoint ({exc})") from exc
    if _METADATA_KEY not in metadata:
        raise CheckpointError(f"{path}: not a parasent checkpoint")
    return json.loads(metadata[_METADATA_KEY]), loaded


def load_resumable_checkpoint(path: str | Path, config: RunOptions) -> dict[str, Any]:
    """The checkpoint at ``path``, if ``config`` (a training run's or a supervised head's options)
    describes the same run as the one it was written by; only such options as --epochs may differ."""
    checkpoint = load_checkpoint(path)
    original = type(config).from_dict(checkpoint["config"])
    if hasattr(original, "replace"):  # a training run's inputs may be named otherwise on resume
        original = _named_as(original, config.flat())
    refuse_changes(path, config, original)
    return checkpoint


def refuse_changes(path: str | Path, config: RunOptions, original: RunOptions) -> None:
    """Refuse a resume whose options differ from the run's own (``original``) beyond those a
    resumed run may change, naming each option by its flag, with why where that is not plain."""
    changed = config.resume_compatible(original)
    if changed:
        flags = getattr(config, "FLAGS", {})
        named = [f"{name} ({flags.get(name, '--' + name.replace('_', '-'))})" for name in changed]
        hints = "".join(f"; {RESUME_HINTS[name]}" for name in changed if name in RESUME_HINTS)
        named_free = [
            flags.get(name, "--" + name.replace("_", "-")) for name in sorted(config.RESUMABLE_CHANGES)
        ]
        free = ", ".join(flag for flag in named_free if flag)  # a Python-only option's flag is "": not said
        raise CheckpointError(
            f"{path}: --resume with different option(s) {', '.join(named)}; "
            f"resume with the original options (only {free} may change){hints}"
        )


# Why an option cannot change on resume, where the plain refusal would leave the user guessing.
RESUME_HINTS = {
    "blend_within": "the blend is made once, over the best epoch's model, and replaces it (the trained "
    "composition is not kept): to blend otherwise, train again (another --out, or --overwrite)",
}
