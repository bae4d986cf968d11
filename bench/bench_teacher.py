"""Teacher pass speed (the contextual pass of the distilled recipe): sentences/s of the
all-MiniLM-L6-v2 token embeddings on a fixed sample of the unlabelled text, for

- ``before``: sentence-transformers' ``encode(output_value="token_embeddings")`` in batches of
  64 (it sorts by characters within the call) plus a second tokenization for the offsets, as
  parasent did before;
- ``after``: :meth:`parasent.distillation.teacher.Teacher.encode_tokens`: one tokenization,
  texts sorted by token count, batches of up to 4,096 padded tokens, and the torch threads of
  :func:`~parasent.distillation.teacher.teacher_threads` (the idle cores; before: one per core).

Rounds alternate (before, after, before, after, ...) so that a shared machine's load weighs on
both alike; the table gives each round and the median.

    python bench/bench_teacher.py --sentences 3000 --rounds 2
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np


def sample_sentences(data_dir: str, n: int, seed: int = 1) -> list[str]:
    from parasent.data.training_text.corpus import read_corpus

    documents, _ = read_corpus(data_dir, "standard")
    sentences = sorted({s.strip() for d in documents for s in d.sentences if s.strip()})
    pick = np.random.default_rng(seed).choice(len(sentences), size=min(n, len(sentences)), replace=False)
    return [sentences[i] for i in np.sort(pick)]


def before(teacher, texts: list[str]) -> int:
    """The former path: sentence-transformers' encode, then offsets from a second tokenization."""
    tokens = teacher.model.encode(
        texts, batch_size=64, output_value="token_embeddings", show_progress_bar=False
    )
    tokenizer = teacher.model.tokenizer
    count = 0
    for start in range(0, len(texts), 256):
        encoded = tokenizer(
            texts[start : start + 256],
            return_offsets_mapping=True,
            truncation=True,
            max_length=teacher.model.max_seq_length,
        )
        for i, _ in enumerate(encoded["offset_mapping"]):
            count += len(tokens[start + i].float().cpu().numpy())
    return count


def after(teacher, texts: list[str]) -> int:
    return sum(len(tokens) for tokens, _ in teacher.encode_tokens(texts))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-dir", default=os.environ.get("PARASENT_DATA", "../shared/data"))
    parser.add_argument("--sentences", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    import torch

    from parasent.distillation.cache import TEACHER_MAX_LENGTH
    from parasent.distillation.teacher import Teacher, teacher_threads

    texts = sorted(sample_sentences(args.data_dir, args.sentences), key=len)  # as the cache orders them
    teacher = Teacher("auto", device="cpu", max_length=TEACHER_MAX_LENGTH)
    print(
        f"{len(texts)} sentences of the running-text corpus; torch {torch.__version__}, "
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"
    )
    rates: dict[str, list[float]] = {"before": [], "after": []}
    tokens = {}
    for round_ in range(args.rounds):
        for name, run in (("before", before), ("after", after)):
            threads = os.cpu_count() if name == "before" else teacher_threads()
            torch.set_num_threads(threads)
            began = time.perf_counter()
            tokens[name] = run(teacher, texts)
            seconds = time.perf_counter() - began
            rates[name].append(len(texts) / seconds)
            print(
                f"round {round_ + 1} {name:<6} {len(texts) / seconds:8.1f} sentences/s  "
                f"({seconds:.1f} s, {threads} thread(s), load {os.getloadavg()[0]:.1f})",
                flush=True,
            )
    assert tokens["before"] == tokens["after"], "the two paths disagree on the tokens"
    b, a = statistics.median(rates["before"]), statistics.median(rates["after"])
    print(f"median: before {b:.1f} sentences/s, after {a:.1f} sentences/s ({a / b:.2f}x)")


if __name__ == "__main__":
    main()
