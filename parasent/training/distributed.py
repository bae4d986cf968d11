"""Data-parallel training with ``torch.distributed`` (launched by ``torchrun``).

``torchrun --nproc_per_node N -m parasent train ...`` starts N processes that train one
model: gloo on CPU, nccl on GPUs. Every process holds a full replica; at each step:

- **data**: the global batch ``N * batch_size`` is the batch a single process would take at
  that step of the epoch (same seeded order); process ``r`` gathers only its slice ``r`` of
  it (from memory, or from the memory-mapped shards of ``--prepared``);
- **loss**: each process encodes its slice; with ``--negatives-across-ranks`` the unit
  vectors of every slice and their sentence ids are all-gathered in one packed buffer
  (differentiably: the gradient of a negative taken from another process flows back to that
  process through one all-reduce in the backward pass) so that MAX chooses among the global
  batch exactly as one process would. The loss is normalised by the global batch size, so
  that the sum of the processes' gradients is the single-process gradient; the lambda_w pull
  runs on the rows of the global batch (every process reads the global batch's token ids, so
  it knows them without an exchange), divided by N in each process;
- **gradients**: one all-reduce of one flat buffer per step (:class:`PackedGradientSync`):
  the word embedding's sparse gradient on the global batch's rows (each process scatters its
  own rows into them; all-reducing it dense would cost O(vocabulary)), the dense gradients
  (composition parameters), the loss and the stop flags. O(touched rows * dim), independent
  of the vocabulary size. Every process then takes the same optimizer step on the same
  gradient, and the replicas stay identical.

A step is three collectives with cross-rank negatives (the gather, its backward, the sync),
one without: a word-averaging step takes milliseconds, and each collective is a meeting of
every process, so their number, not their bytes, is the cost that matters.

Process 0 alone writes the log, checkpoints and the model; every process resumes from the
checkpoint. A stop request (a signal to any process) is agreed on at every step with the
loss all-reduce, so all processes stop after the same step.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from parasent.distillation.cache import Ranks
from parasent.encoders.batch import TokenBatch
from parasent.objectives.margin import hinge_loss, margin_loss, select_negatives
from parasent.training.batching import BatchSource

if TYPE_CHECKING:
    from parasent.training.config import TrainConfig


@dataclass(frozen=True)
class World:
    rank: int
    size: int

    @property
    def is_writer(self) -> bool:
        return self.rank == 0


# A share of a teacher pass can take hours (a large teacher text, one share resumed and the other
# not): the processes wait that long for each other at the barriers, not gloo's default 30 minutes.
BARRIER_TIMEOUT = timedelta(hours=48)


def launched() -> bool:
    """Whether this process was started by torchrun (or any launcher setting WORLD_SIZE > 1)."""
    return int(os.environ.get("WORLD_SIZE", "1")) > 1


def voice(say: Callable[[str], None]) -> Callable[[str], None]:
    """``say`` where this process reports a run's lines, else silence: process 0 alone under
    torchrun (every process reads the same data and would say the same), every process otherwise."""
    return say if not launched() or int(os.environ.get("RANK", "0")) == 0 else _silent


def _silent(_line: str) -> None:
    """What a process other than torchrun's first says: nothing."""


def rank_device(device: str, local_rank: int) -> str:
    """The device of a process: on CUDA each process takes the GPU of its ``LOCAL_RANK``."""
    return f"cuda:{local_rank}" if device == "cuda" else device


def join_ranks() -> Ranks | None:
    """This process's place in a shared teacher pass under torchrun (None when not launched by
    it): a gloo group, whatever the device, since the processes exchange nothing but barriers
    (the sums go through files)."""
    if not launched():
        return None
    if not dist.is_initialized():
        dist.init_process_group("gloo", timeout=BARRIER_TIMEOUT)
    return Ranks(dist.get_rank(), dist.get_world_size(), dist.barrier)


def init_world(device: torch.device) -> tuple[World, torch.device]:
    """Join the process group of the launcher (gloo on CPU, nccl on CUDA); on CUDA each process
    takes the GPU of its ``LOCAL_RANK``. Returns the world and the device to train on."""
    if not dist.is_initialized():
        backend = "nccl" if device.type == "cuda" else "gloo"
        dist.init_process_group(backend)
    if device.type == "cuda":
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
        torch.cuda.set_device(device)
    return World(dist.get_rank(), dist.get_world_size()), device


def leave(*, finished: bool = True) -> None:
    """Leave the process group at the end of a run (nothing when there is none): a process
    that exits with its group still open can abort in gloo's teardown ("terminate called
    without an active exception") when its peers have gone first. After a finished run the
    processes first wait for each other (the writer saves the model while the others are
    done), so none tears down while a peer still uses the group; after a failure they do not
    wait, since a failed peer never arrives."""
    if dist.is_available() and dist.is_initialized():
        if finished:
            dist.barrier()
        dist.destroy_process_group()


def gather_sizes(count: int, device: torch.device) -> list[int]:
    sizes = [torch.zeros(1, dtype=torch.long, device=device) for _ in range(dist.get_world_size())]
    dist.all_gather(sizes, torch.tensor([count], dtype=torch.long, device=device))
    return [int(s) for s in sizes]


def gather_padded(tensor: torch.Tensor, sizes: list[int]) -> torch.Tensor:
    """Rows of ``tensor`` from every process, concatenated in rank order (no gradient)."""
    longest = max(sizes)
    padded = tensor.new_zeros((longest, *tensor.shape[1:]))
    padded[: tensor.shape[0]] = tensor
    parts = [torch.empty_like(padded) for _ in sizes]
    dist.all_gather(parts, padded.contiguous())
    return torch.cat([part[:size] for part, size in zip(parts, sizes, strict=True)])


def global_rows(batch: Any) -> torch.Tensor:
    """The sorted embedding rows of every sentence of a (global) batch: the rows its step's
    gradient and the lambda_w pull touch, the same in every process without an exchange."""
    return torch.unique(torch.cat([batch.left.ids, batch.right.ids]))


class _GatherPool(torch.autograd.Function):
    """The unit vectors ``(n, 2, dim)`` of both sides and the sentence ids ``(n, 2)`` of every
    process's slice in one all-gather (the ids bit-cast to float32 and packed beside the
    vectors; slice sizes are known to every process, so no sizes are exchanged); the backward
    all-reduces the gradient of the gathered vectors once and keeps this process's rows."""

    @staticmethod
    def forward(ctx, vectors: torch.Tensor, ids: torch.Tensor, sizes: list[int]):  # type: ignore[override]
        ctx.sizes, ctx.rank = sizes, dist.get_rank()
        count, width = vectors.shape[0], vectors.shape[1] * vectors.shape[2]
        id_words = ids.contiguous().view(torch.float32).view(count, -1)  # 2 int64 -> 4 float32, bit for bit
        packed = vectors.new_zeros((max(sizes), width + id_words.shape[1]))
        packed[:count, :width] = vectors.reshape(count, width)
        packed[:count, width:] = id_words
        parts = [torch.empty_like(packed) for _ in sizes]
        dist.all_gather(parts, packed)
        gathered = torch.cat([part[:size] for part, size in zip(parts, sizes, strict=True)])
        pool_ids = gathered[:, width:].contiguous().view(torch.int64)
        ctx.mark_non_differentiable(pool_ids)
        return gathered[:, :width].reshape(-1, *vectors.shape[1:]), pool_ids

    @staticmethod
    def backward(ctx, grad: torch.Tensor, _ids: torch.Tensor):  # type: ignore[override]
        grad = grad.contiguous().clone()
        dist.all_reduce(grad)
        start = sum(ctx.sizes[: ctx.rank])
        return grad[start : start + ctx.sizes[ctx.rank]], None, None


class RankSlices(BatchSource):
    """A batch source's batches cut into ``world.size`` slices; this process reads slice ``rank``.

    Batch ``b`` of an epoch is the single-process batch ``b`` of size ``world.size * batch_size``
    (from ``rows_of_batch`` of the source); its slices follow
    ``numpy.array_split``. Each batch carries ``global_size`` and ``offset`` (its first row
    in the global batch) for the loss.
    """

    def __init__(self, data: Any, world: World) -> None:
        self.data = data
        self.world = world

    def __len__(self) -> int:
        return len(self.data)

    def __getattr__(self, name: str) -> Any:
        if name == "data":
            raise AttributeError(name)
        return getattr(self.data, name)

    def num_batches(self, batch_size: int) -> int:
        return self.data.num_batches(batch_size * self.world.size)

    def fingerprint(self) -> str:
        return f"{self.data.fingerprint()}-world{self.world.size}"

    def vocabulary_rows(self) -> np.ndarray:
        return self.data.vocabulary_rows()

    def batch_at(
        self, epoch: int, seed: int, batch_size: int, index: int, device: torch.device | str | None = None
    ) -> Any:
        """This process's slice of the single-process batch ``index`` of size ``world.size * batch_size``."""
        rows = self.data.rows_of_batch(epoch, seed, batch_size * self.world.size, index)
        parts = np.array_split(rows, self.world.size)
        batch = self.data.batch(parts[self.world.rank], device)
        batch.global_size = len(rows)
        batch.sizes = [len(p) for p in parts]
        batch.offset = sum(batch.sizes[: self.world.rank])
        batch.global_rows = global_rows(self.data.batch(rows, device))
        return batch


class DistributedMarginLoss(nn.Module):
    """The margin loss of one process's slice, scaled so that the processes' gradients sum to
    the single-process gradient (see the module docstring); wraps a
    :class:`~parasent.objectives.margin.MarginLoss` (whose state it shares)."""

    def __init__(self, margin: nn.Module, world: World, across_ranks: bool) -> None:
        super().__init__()
        self.margin = margin
        self.encoder = margin.encoder
        self.world = world
        self.across_ranks = across_ranks
        self.step_rows: torch.Tensor | None = None  # the rows of this step's gradient (None: unknown)

    def forward(
        self, batch: Any, step: int, generator: torch.Generator | None = None
    ) -> tuple[torch.Tensor, dict]:
        margin, size = self.margin, len(batch.left)
        g = self.encoder(TokenBatch.concat([batch.left, batch.right]))
        g1, g2 = g[:size], g[size:]
        if self.across_ranks:
            loss, stats = self._global_max(g1, g2, batch, generator)
        elif size:
            local, stats = margin_loss(
                g1, g2, delta=margin.delta, negatives=margin.negatives,
                ids1=batch.left_ids, ids2=batch.right_ids, generator=generator,
            )  # fmt: skip
            loss = local * (size / batch.global_size)
        else:  # an empty slice (a last batch smaller than the number of processes)
            loss, stats = g.sum() * 0.0, {}
        self.step_rows = None if margin.pull.weight and margin.pull.mode == "exact" else batch.global_rows
        if margin.pull.weight:
            pull = margin.pull(self.encoder.embedding.weight, batch.global_rows, step)
            loss = loss + pull / self.world.size
            stats["pull"] = float(pull.detach())
        if margin.composition.weight:
            penalty = margin.composition().to(loss.device)
            loss = loss + penalty / self.world.size
            stats["composition_l2"] = float(penalty.detach())
        return loss, stats

    def _global_max(
        self, g1: torch.Tensor, g2: torch.Tensor, batch: Any, generator: torch.Generator | None
    ) -> tuple[torch.Tensor, dict]:
        """MAX (or MIX/RAND) among the sentences of every process's slice: the global batch."""
        n1, n2 = F.normalize(g1, dim=1, eps=1e-8), F.normalize(g2, dim=1, eps=1e-8)
        sizes = batch.sizes
        ids = torch.stack([batch.left_ids, batch.right_ids], dim=1).to(torch.int64)
        vectors, all_ids = _GatherPool.apply(torch.stack([n1, n2], dim=1), ids, sizes)
        pool = torch.cat([vectors[:, 0], vectors[:, 1]])
        pool_ids = torch.cat([all_ids[:, 0], all_ids[:, 1]])
        total = sum(sizes)
        mine = torch.arange(len(n1), device=n1.device) + batch.offset
        forbidden = (
            (torch.arange(total, device=n1.device).repeat(2).unsqueeze(0) == mine.unsqueeze(1))
            | (pool_ids.unsqueeze(0) == batch.left_ids.unsqueeze(1))
            | (pool_ids.unsqueeze(0) == batch.right_ids.unsqueeze(1))
        )
        strategy = self.margin.negatives
        t1, has1 = select_negatives(n1.detach(), pool.detach(), forbidden, strategy, generator)
        t2, has2 = select_negatives(n2.detach(), pool.detach(), forbidden, strategy, generator)
        if not len(n1):  # an empty slice still takes part in the gradient's all-reduce
            return pool.sum() * 0.0, {}
        loss, stats = hinge_loss(n1, n2, pool, (t1, t2, has1, has2), self.margin.delta)
        return loss * (len(n1) / total), stats

    # checkpoints hold the margin loss's own state, as a single process writes it
    def state_dict(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return self.margin.state_dict(*args, **kwargs)

    def load_state_dict(self, state_dict: Any, strict: bool = True, assign: bool = False) -> Any:
        return self.margin.load_state_dict(state_dict, strict=strict, assign=assign)


class PackedGradientSync:
    """After ``backward``, in one all-reduce of one flat buffer: the embedding's sparse
    gradient on the step's rows (the global batch's rows, which every process knows: each
    process scatters its own rows into them, zeros elsewhere), every dense gradient, the
    step's loss and the stop requests. Returns the global loss and whether to stop. A step
    whose rows are not known (the ``exact`` lambda_w pull touches every pulled row) takes the
    all-gather path of :class:`GradientSync`."""

    def __init__(self, sparse: nn.Parameter, objective: Any, world: World) -> None:
        self.sparse = sparse
        self.objective = objective
        self.fallback = GradientSync([sparse], world)

    def __call__(self, parameters: list[nn.Parameter], loss: torch.Tensor, stop: bool) -> tuple[float, bool]:
        rows = getattr(self.objective, "step_rows", None)
        if rows is None:
            return self.fallback(parameters, loss, stop)
        sparse, dense = self.sparse, [p for p in parameters if p is not self.sparse]
        width = sparse.shape[1]
        sizes = [len(rows) * width, *(p.numel() for p in dense), 2]
        buffer = sparse.new_zeros(sum(sizes))
        block = buffer[: sizes[0]].view(len(rows), width)
        if sparse.grad is not None:
            grad = sparse.grad.coalesce()
            block[torch.searchsorted(rows, grad.indices()[0])] = grad.values()
        offset = sizes[0]
        for p, size in zip(dense, sizes[1:-1], strict=True):
            if p.grad is not None:
                buffer[offset : offset + size] = p.grad.reshape(-1)
            offset += size
        buffer[-2], buffer[-1] = loss.to(buffer.dtype), 1.0 if stop else 0.0
        dist.all_reduce(buffer)
        sparse.grad = torch.sparse_coo_tensor(  # rows: sorted and unique, built here (no check)
            rows.unsqueeze(0), block, sparse.shape, is_coalesced=True, check_invariants=False
        )
        offset = sizes[0]
        for p, size in zip(dense, sizes[1:-1], strict=True):
            p.grad = buffer[offset : offset + size].view_as(p).clone()
            offset += size
        return float(buffer[-2]), bool(buffer[-1] > 0)


class GradientSync:
    """After ``backward``: the gradients of every process summed (sparse ones by all-gather of
    touched rows), and the step's loss and stop requests agreed on. Returns the global loss."""

    def __init__(self, sparse: list[nn.Parameter], world: World) -> None:
        self.sparse = {id(p) for p in sparse}
        self.world = world

    def __call__(self, parameters: list[nn.Parameter], loss: torch.Tensor, stop: bool) -> tuple[float, bool]:
        for p in parameters:
            if id(p) in self.sparse:
                p.grad = self._sparse_sum(p)
            else:
                if p.grad is None:
                    p.grad = torch.zeros_like(p)
                dist.all_reduce(p.grad)
        agreed = torch.tensor([float(loss), 1.0 if stop else 0.0], dtype=torch.float64, device=loss.device)
        dist.all_reduce(agreed)
        return float(agreed[0]), bool(agreed[1] > 0)

    def _sparse_sum(self, p: nn.Parameter) -> torch.Tensor:
        if p.grad is None:
            rows, values = p.new_zeros(0, dtype=torch.long), p.new_zeros((0, *p.shape[1:]))
        else:
            grad = p.grad.coalesce()
            rows, values = grad.indices()[0], grad.values()
        sizes = gather_sizes(len(rows), p.device)
        rows, values = gather_padded(rows, sizes), gather_padded(values, sizes)
        # rows: gathered from coalesced gradients of this parameter's shape (no check)
        return torch.sparse_coo_tensor(rows.unsqueeze(0), values, p.shape, check_invariants=False).coalesce()


def distribute(
    config: TrainConfig, data: Any, objective: nn.Module
) -> tuple[Any, nn.Module, World, torch.device]:
    """Join the launcher's process group and wrap a run's batch source and margin objective
    for it (the hook of the training assembly when :func:`launched`)."""
    from parasent.objectives.margin import MarginLoss
    from parasent.support.validation import resolve_device

    if not isinstance(objective, MarginLoss) or hasattr(data, "groups"):
        raise ValueError(
            "distributed training runs the margin loss on pairs (no teacher, no Siamese CBOW, no --megabatch)"
        )
    world, device = init_world(torch.device(resolve_device(config.device)))
    return (
        RankSlices(data, world),
        DistributedMarginLoss(objective, world, config.objective.negatives_across_ranks),
        world,
        device,
    )


def attach(trainer: Any, world: World, device: torch.device) -> None:
    """Make ``trainer`` one process of ``world``: process 0 writes and validates, every
    process syncs gradients, loss and stop requests at each step."""
    trainer.is_writer = world.is_writer
    trainer.device = device
    trainer.gradient_sync = PackedGradientSync(trainer.encoder.embedding.weight, trainer.objective, world)
    if not world.is_writer:
        trainer.validator = None
        trainer.progress = False
