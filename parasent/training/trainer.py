"""The one training loop: any objective module over any batch source, with validation-based
model selection, atomic checkpoints, exact resumption and a JSONL log.

Randomness is derived from ``(seed, epoch, batch)`` at every step (epoch order, negative
sampling, dropout), so a run resumed from a checkpoint at any step reproduces the batches
and draws of an uninterrupted run: same seed, same result.
"""

from __future__ import annotations

import json
import signal
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from tqdm.auto import tqdm

from parasent.core.model import SentenceModel
from parasent.core.model_card import BLEND_KEY, UNFINISHED_KEY, mark_finished
from parasent.encoders.base import TorchEncoderModel
from parasent.errors import CheckpointError, ParasentError, ParasentWarning, TrainingInterrupted
from parasent.support.paths import portable
from parasent.support.regular_files import check_regular_or_absent
from parasent.support.runlock import new_run_id, run_lock
from parasent.support.staging import recover_directory
from parasent.support.validation import resolve_device
from parasent.training.batching import BatchSource
from parasent.training.checkpoint import load_checkpoint, save_checkpoint
from parasent.training.optim import OptimizerSet, clip_grad_norm
from parasent.training.protocols import Evaluator, LoopOptions, Objective
from parasent.training.run_directory import CHECKPOINT_FILE, MODEL_DIR, drop_previous_model, set_aside_model

if TYPE_CHECKING:
    from parasent.text.featurizers import Featurizer

LOG_FILE = "log.jsonl"
CHECKPOINT_FORMAT = 1


@dataclass
class TrainState:
    epoch: int = 0  # the epoch in progress (0-based)
    batch: int = 0  # the next batch of that epoch
    step: int = 0  # optimizer steps taken
    best_score: float | None = None
    best_epoch: int | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    # the epoch in progress's loss so far (its sum over ``epoch_batches`` batches), checkpointed so
    # that a resumed epoch reports the mean over all its batches, not those after the restart
    epoch_loss: float = 0.0
    epoch_batches: int = 0


def selection_noise(report: Any, best_report: Any) -> float:
    """What an epoch's figure must beat the best by under ``--selection clears-noise``: the
    standard error of ``report``'s figure less ``best_report``'s on the same pairs, where the
    report can pair them (a user's pairs, scored pair by pair:
    :meth:`parasent.evaluation.file_pairs.PairsReport.difference_error`), so that a few hundred
    held-out pairs never trade the start for a gain that is noise; 0 otherwise (a suite's
    figure, nothing to pair with)."""
    pairing = getattr(report, "difference_error", None)
    noise = pairing(best_report) if pairing is not None and best_report is not None else None
    return noise or 0.0


def step_seed(seed: int, epoch: int, batch: int) -> int:
    return int(np.random.SeedSequence([seed, epoch, batch]).generate_state(1, dtype=np.uint64)[0] >> 1)


class Trainer:
    """Runs an :class:`~parasent.training.protocols.Objective` over the batches of ``data`` (a
    :class:`~parasent.training.batching.BatchSource`, whose ``fingerprint()`` a resumed run must
    match) for ``config.epochs`` (:class:`~parasent.training.protocols.LoopOptions`).

    ``validator`` (an :class:`~parasent.training.protocols.Evaluator`) maps an
    encoder-with-``encode`` to a report whose primary metric selects the best epoch, whose
    model is saved to ``out_dir/model``. ``model_files(dir)`` writes extra files into that
    model directory, atomically with it (a supervised head).
    With ``validate_initial`` (continuing a trained model) the starting point is scored and saved
    first, as epoch 0, so that the run keeps it unless an epoch beats it. ``export(encoder,
    metadata=)`` makes the model that is validated and saved where the encoder alone is not one
    (a fine-tuning run's rows merged into the model it continues, :mod:`parasent.training.row_subset`).
    """

    def __init__(
        self,
        *,
        objective: Objective,
        optimizer: OptimizerSet,
        data: BatchSource,
        config: LoopOptions,
        out_dir: str | Path,
        tokenizer: Featurizer,
        validator: Evaluator | Callable[[Any], Any] | None = None,
        metadata: dict[str, Any] | None = None,
        on_step: Callable[[Trainer], None] | None = None,
        progress: bool = True,
        model_files: Callable[[Path], None] | None = None,
        validate_initial: bool = False,
        export: Callable[..., SentenceModel] | None = None,
    ) -> None:
        self.objective = objective
        self.encoder = objective.encoder
        self.optimizer = optimizer
        self.data = data
        self.config = config
        self.out_dir = Path(out_dir)
        self.tokenizer = tokenizer
        self.validator = validator
        self.metadata = dict(metadata or {})
        self.on_step = on_step
        self.progress = progress
        self.model_files = model_files
        self.validate_initial = validate_initial
        self.export = export
        self.finishes_run = True  # the end of fit() is the run's end (its model then is its result)
        self.device = torch.device(resolve_device(config.device))
        self.state = TrainState()
        self._stop_requested: str | None = None
        self._stop_exit = 130  # the command line's exit code for the stop: 143 after SIGTERM
        # Under torch.distributed (parasent.training.distributed): only the writer process logs and
        # writes; gradient_sync sums the processes' gradients and agrees on the loss and on stops.
        self.is_writer = True
        self.gradient_sync: Callable[..., tuple[float, bool]] | None = None
        self._stop_agreed = False
        self._fingerprint = data.fingerprint()
        self.run_id = new_run_id()  # in every log record: runs that shared a directory stay apart
        self.kept_model: Path | None = None  # an earlier run's model, kept until this run finishes
        self._best_report: Any = None  # the best epoch's report: a later one is paired with it

    # paths ----------------------------------------------------------------------------
    @property
    def checkpoint_path(self) -> Path:
        return self.out_dir / CHECKPOINT_FILE

    @property
    def model_path(self) -> Path:
        return self.out_dir / MODEL_DIR

    @property
    def log_path(self) -> Path:
        return self.out_dir / LOG_FILE

    # control --------------------------------------------------------------------------
    def request_stop(self, reason: str = "stop requested") -> None:
        """Finish the current step, write a checkpoint and raise :class:`TrainingInterrupted`."""
        self._stop_requested = reason

    def _log(self, record: dict[str, Any]) -> None:
        if not self.is_writer:
            return
        check_regular_or_absent(self.log_path)  # a FIFO would block the run
        with open(self.log_path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"run": self.run_id, **record}) + "\n")

    # checkpoints ----------------------------------------------------------------------
    def save_checkpoint(self) -> None:
        if not self.is_writer:
            return
        save_checkpoint(
            self.checkpoint_path,
            {
                "format": CHECKPOINT_FORMAT,
                "config": self.config.to_dict(),
                "train_state": asdict(self.state),
                "objective": self.objective.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "tokenizer": self.tokenizer.tokenizer.to_str(),
                "tokenizer_config": self.tokenizer.config(),
                "data_fingerprint": self._fingerprint,
                "metadata": self.metadata,
                # a source with its own state (mega-batch negatives of the group in progress)
                "data_state": self.data.state_dict() if hasattr(self.data, "state_dict") else {},
            },
        )

    def restore(self, checkpoint: dict[str, Any]) -> None:
        if checkpoint.get("format") != CHECKPOINT_FORMAT:
            raise CheckpointError(
                f"{self.checkpoint_path}: checkpoint format {checkpoint.get('format')} is not {CHECKPOINT_FORMAT}"
            )
        if checkpoint["data_fingerprint"] != self._fingerprint:
            raise CheckpointError(
                f"{self.checkpoint_path}: the training pairs differ from those of the checkpointed run "
                "(different data directory, pool or files? or a run begun before 2026-11-29, whose leakage guard "
                "did not yet cover the domain test splits); start a new run instead of --resume"
            )
        self.objective.load_state_dict(checkpoint["objective"])
        self.optimizer.load_state_dict(checkpoint["optimizer"])
        self.state = TrainState(**checkpoint["train_state"])
        if hasattr(self.data, "load_state_dict"):
            self.data.load_state_dict(checkpoint.get("data_state") or {})

    def _unfinished(self, epoch: int) -> dict[str, Any]:
        """The record a model saved during the run carries until the run ends (core/model_card.py)."""
        command = "parasent head train" if getattr(self.config, "KIND", "") == "head" else "parasent train"
        return {UNFINISHED_KEY: {"epoch": epoch, "epochs": self.config.epochs, "command": command}}

    def save_model(self, extra: dict[str, Any]) -> None:
        if not self.is_writer:
            return
        # no absolute path of this machine in a model that may be shared (the checkpoint keeps them)
        metadata = portable({**self.metadata, "training": self.config.to_dict(), **extra})
        self.as_model(metadata).save(self.model_path, extra_files=self.model_files)

    def as_model(self, metadata: dict[str, Any] | None = None) -> Any:
        """What the encoder is as a model: validated (anything with ``encode``) and saved."""
        if self.export is not None:
            return self.export(self.encoder, metadata=metadata)
        if metadata is None:
            return TorchEncoderModel(self.encoder, self.tokenizer, self.device)
        return SentenceModel.from_encoder(self.tokenizer, self.encoder, metadata=metadata)

    # the loop -------------------------------------------------------------------------
    def fit(self, *, resume: bool = False) -> TrainState:
        """Train to ``config.epochs``, holding the run directory's lock (one writer at a time)."""
        with run_lock(self.out_dir) as run_id:
            self.run_id = run_id
            recover_directory(self.model_path)  # a save killed between its renames
            if not resume and self.is_writer:
                self.kept_model = set_aside_model(self.out_dir)
                # the replaced run's checkpoint: a --resume after this run dies before its first
                # checkpoint must not bring that run back in its place
                self.checkpoint_path.unlink(missing_ok=True)
            with warnings.catch_warnings():  # the run reads its own model, unfinished until it ends
                warnings.simplefilter("ignore", ParasentWarning)
                state = self._fit(resume=resume)
            if self.is_writer:
                drop_previous_model(self.out_dir)
                if self.finishes_run:  # else the step that follows training marks it (training/run.py)
                    mark_finished(self.model_path)
            return state

    def _fit(self, *, resume: bool = False) -> TrainState:
        self.objective.to(self.device)
        if resume:
            self.restore(load_checkpoint(self.checkpoint_path))
            self._log(
                {
                    "event": "resume",
                    "epoch": self.state.epoch + 1,  # counted from 1, as the step and epoch records are
                    "batch": self.state.batch,
                    "step": self.state.step,
                }
            )
            self._best_report = self._best_model_report()
        else:
            self._log({"event": "start", "config": self.config.to_dict(), "pairs": len(self.data)})
            if self.validate_initial and self.validator is not None:
                self._validate_start()
        handlers = self._install_signal_handlers()
        try:
            while self.state.epoch < self.config.epochs and not self._out_of_patience():
                self._run_epoch()
        finally:
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
        if not self.model_path.exists():
            self.save_model({"epoch": self.state.epoch, "validation": None})
        return self.state

    def _best_model_report(self) -> Any:
        """A resumed run's best epoch scored again, for ``--selection clears-noise`` to pair the
        next epochs with (a report is not checkpointed); None without one to score."""
        if getattr(self.config, "selection", "best") != "clears-noise" or self.validator is None:
            return None
        if not (self.model_path / "config.json").is_file():
            return None
        model = SentenceModel.load(self.model_path)
        if BLEND_KEY in model.metadata:  # the blend of the best epoch, not it: nothing to pair with
            return None
        return self.validator(model)

    def _out_of_patience(self) -> bool:
        """Whether ``config.patience`` epochs have passed since the best validation figure: the
        run stops there (logged), keeping the best epoch's model, as it would at ``epochs``."""
        patience, state = self.config.patience, self.state
        if patience is None or state.best_epoch is None or state.epoch - state.best_epoch < patience:
            return False
        record = {"event": "patience", "epoch": state.epoch, "best_epoch": state.best_epoch}
        self._log(record)
        if self.progress:
            tqdm.write(
                f"no better validation figure for {patience} epochs: stopped after epoch {state.epoch}"
            )
        return True

    def _validate_start(self) -> None:
        report = self.validator(self.as_model())
        state = self.state
        state.best_score, state.best_epoch = report.primary, 0
        self._best_report = report
        record = {
            "event": "epoch",
            "epoch": 0,
            "step": 0,
            "validation": {report.primary_metric: report.primary, **report.log_values()},
            "best": True,
        }
        self.save_model({"epoch": 0, "validation": report.primary, **self._unfinished(0)})
        state.history.append(record)
        self._log(record)
        if self.progress:
            error = getattr(report, "standard_error", None)
            rule = (
                ": a later epoch must gain more"
                if getattr(self.config, "selection", "best") == "clears-noise"
                else ""
            )
            noise = "" if error is None else f" +- {error:.2f} (its standard error{rule})"
            tqdm.write(f"start: {report.primary_metric} {report.primary:.2f}{noise}")

    def _install_signal_handlers(self) -> dict[int, Any]:
        previous: dict[int, Any] = {}

        def handle(signum: int, _frame: Any) -> None:
            self.request_stop(f"received {signal.Signals(signum).name}")
            self._stop_exit = 128 + signum  # the shell's code for the signal: 130 SIGINT, 143 SIGTERM

        try:
            for signum in (signal.SIGINT, signal.SIGTERM):
                previous[signum] = signal.signal(signum, handle)
        except ValueError:  # not in the main thread: no handlers, stop only by request
            pass
        return previous

    def trainable_parameters(self) -> list[torch.nn.Parameter]:
        """Every trainable parameter of the objective: the encoder's, and a head's if it has one."""
        return [p for p in self.objective.parameters() if p.requires_grad]

    def train_step(
        self, batch: Any, parameters: list[torch.nn.Parameter] | None = None
    ) -> tuple[float, dict[str, Any]]:
        """One optimizer step on ``batch`` with the randomness of ``(seed, epoch, batch)``."""
        config, state = self.config, self.state
        if parameters is None:
            parameters = self.trainable_parameters()
        seed = step_seed(config.seed, state.epoch, state.batch)
        generator = torch.Generator().manual_seed(seed)
        torch.manual_seed(seed)
        self.optimizer.zero_grad()
        loss, stats = self.objective(batch, state.step + 1, generator)
        if not torch.isfinite(loss):
            kept = (
                f"the last checkpoint ({self.checkpoint_path}) is intact"
                if self.checkpoint_path.is_file()
                else "no checkpoint was written yet: nothing of the run is kept"
            )
            raise ParasentError(
                f"loss became {float(loss.detach())} at epoch {state.epoch + 1}, batch {state.batch + 1}; "
                f"lower the learning rate (now {config.learning_rate}) or set --clip; {kept}"
            )
        loss.backward()
        value = float(loss.detach())
        if self.gradient_sync is not None:
            value, self._stop_agreed = self.gradient_sync(
                parameters, loss.detach(), bool(self._stop_requested)
            )
        if config.clip:
            stats["grad_norm"] = clip_grad_norm(parameters, config.clip)
        self.optimizer.step()
        state.step += 1
        state.batch += 1
        return value, stats

    def _run_epoch(self) -> None:
        config, state = self.config, self.state
        epoch = state.epoch
        total = self.data.num_batches(config.batch_size)
        parameters = self.trainable_parameters()
        self.objective.train()
        started, pairs_seen = time.perf_counter(), 0
        if not state.batch:  # a new epoch (a resumed one keeps the loss of its batches so far)
            state.epoch_loss, state.epoch_batches = 0.0, 0
        bar = tqdm(
            total=total,
            initial=state.batch,
            desc=f"epoch {epoch + 1}/{config.epochs}",
            unit="batch",
            disable=None if self.progress else True,  # on a terminal only: a log or a pipe gets no bar lines
            mininterval=1.0,
            leave=False,
        )
        batches = self.data.batches(
            epoch, config.seed, config.batch_size, start=state.batch, device=self.device
        )
        for batch in batches:
            loss, stats = self.train_step(batch, parameters)
            pairs_seen += len(batch)
            state.epoch_loss += loss
            state.epoch_batches += 1
            bar.update(1)
            if state.step % config.log_every == 0:
                elapsed = time.perf_counter() - started
                bar.set_postfix(loss=f"{state.epoch_loss / state.epoch_batches:.4f}")
                self._log(
                    {
                        "event": "step",
                        "epoch": epoch + 1,
                        "step": state.step,
                        "loss": state.epoch_loss / state.epoch_batches,
                        "pairs_per_s": pairs_seen / max(elapsed, 1e-9),
                        **stats,
                    }
                )
            if self.on_step is not None:
                self.on_step(self)
            if self._stop_requested if self.gradient_sync is None else self._stop_agreed:
                self._stop_requested = self._stop_requested or "stop requested in another process"
                bar.close()
                self._stop()
            if config.checkpoint_every and state.step % config.checkpoint_every == 0:
                self.save_checkpoint()
        bar.close()
        elapsed = time.perf_counter() - started
        record: dict[str, Any] = {
            "event": "epoch",
            "epoch": epoch + 1,
            "step": state.step,
            "loss": state.epoch_loss / max(state.epoch_batches, 1),
            "seconds": elapsed,
            "pairs_per_s": pairs_seen / max(elapsed, 1e-9),
        }
        self._end_epoch(record)

    def _stop(self) -> None:
        """Checkpoint, log and raise after a requested stop."""
        state = self.state
        self.save_checkpoint()
        self._log(
            {
                "event": "interrupted",
                "reason": self._stop_requested,
                "epoch": state.epoch + 1,
                "step": state.step,
            }
        )
        kept = self.kept_model
        kept_note = f" (the earlier run's model stays in {kept} until this run finishes)" if kept else ""
        raise TrainingInterrupted(
            f"{self._stop_requested}: stopped at epoch {state.epoch + 1}, batch {state.batch}; "
            f"checkpoint written to {self.checkpoint_path}; continue with --resume{kept_note}",
            exit_code=self._stop_exit,
        )

    def _end_epoch(self, record: dict[str, Any]) -> None:
        """Validate (the best epoch's model is saved), log the epoch and checkpoint the next one."""
        config, state = self.config, self.state
        epoch, elapsed = state.epoch, record["seconds"]
        improved = True
        if self.validator is not None:
            report = self.validator(self.as_model())
            score = report.primary
            record["validation"] = {report.primary_metric: score, **report.log_values()}
            noisy = getattr(config, "selection", "best") == "clears-noise"  # a head's config has none
            margin = selection_noise(report, self._best_report) if noisy else 0.0
            improved = state.best_score is None or score > state.best_score + margin
            within_noise = not improved and state.best_score is not None and score > state.best_score
            if improved:
                state.best_score, state.best_epoch = score, epoch + 1
                self._best_report = report
            record["best"] = improved
            if self.progress:
                kept = f" (within the noise, +-{margin:.2f}: epoch {state.best_epoch} kept)"
                noise = kept if within_noise else ""
                tqdm.write(
                    f"epoch {epoch + 1}/{config.epochs}: loss {record['loss']:.4f}, "
                    f"{report.primary_metric} {score:.2f}{' (best)' if improved else ''}{noise}, {elapsed:.1f}s"
                )
        else:
            state.best_epoch = epoch + 1
            if self.progress:  # no validation: the last epoch is the model, and its loss the only figure
                tqdm.write(f"epoch {epoch + 1}/{config.epochs}: loss {record['loss']:.4f}, {elapsed:.1f}s")
        if improved:  # unfinished until the run ends (training/run.py drops the record then)
            self.save_model(
                {"epoch": epoch + 1, "validation": state.best_score, **self._unfinished(epoch + 1)}
            )
        state.history.append(record)
        self._log(record)
        state.epoch += 1
        state.batch = 0
        self.save_checkpoint()
