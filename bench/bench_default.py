"""The default model side by side with what a user would otherwise pick, in one run.

On the unique sentences of the 21-set transfer suite: sentences/s, cold-start wall time
(a fresh process that imports, loads and encodes one sentence) and peak RSS for

  (a) parasent's default model (numpy inference),
  (b) the same vectors served by sentence-transformers' StaticEmbedding module (exported with
      ``parasent export``), at sentence-transformers' default batch size and at a large one,
  (c) the full all-MiniLM-L6-v2 transformer through sentence-transformers;

training pairs/s on the same standard-pool pairs and batch size of parasent (margin loss,
MAX negatives, sparse Adam; tokenization included) against sentence-transformers fitting a
StaticEmbedding with its in-batch MultipleNegativesRankingLoss (its trainer when
``datasets`` and ``accelerate`` are installed, else the same module, loss and optimizer in a
plain loop: a lower bound on its cost, labelled); and the transfer mean (Pearson x100) of (a),
(c), and plain averaging of the distilled vectors the default model started from.

Every case runs in its own process (own peak RSS, cold imports). When a CUDA GPU is present,
parasent's training and encoding are also measured on it.

    python bench/bench_default.py --model runs/default
    python bench/bench_default.py --model runs/default --teacher-sentences 3000   # quicker
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from harness import peak_rss_mb, run_case

HERE = Path(__file__).resolve()


def transfer_sentences(data_dir: str) -> list[str]:
    from parasent.evaluation.evaluator import SimilarityEvaluator

    return SimilarityEvaluator("transfer", data_dir).sentences


class Precomputed:
    """An 'encoder' returning vectors computed during the timed runs (for the evaluator)."""

    def __init__(self, sentences: list[str], vectors) -> None:
        self.index = {s: i for i, s in enumerate(sentences)}
        self.vectors = vectors

    def encode(self, sentences, batch_size: int = 0, **_):
        return self.vectors[[self.index[s] for s in sentences]]


def transfer_mean(data_dir: str, sentences: list[str], vectors) -> float:
    from parasent.evaluation.evaluator import SimilarityEvaluator

    return SimilarityEvaluator("transfer", data_dir)(Precomputed(sentences, vectors)).primary


# --- cases (each runs in a subprocess) ------------------------------------------------------
def case_cold(args: argparse.Namespace) -> dict:
    """Import, load and encode one sentence; the parent times the whole process."""
    if args.engine == "parasent":
        import parasent

        vector = parasent.load(args.model).encode(["A man is playing a guitar."])
    else:
        from sentence_transformers import SentenceTransformer

        vector = SentenceTransformer(args.model, device="cpu").encode(["A man is playing a guitar."])
    return {"dim": int(vector.shape[1]), "torch_imported": "torch" in sys.modules}


def case_encode(args: argparse.Namespace) -> dict:
    sentences = json.loads(Path(args.sentences).read_text())
    if args.limit:
        sentences = sentences[: args.limit]
    started = time.perf_counter()
    if args.engine == "parasent":
        import parasent

        model = parasent.load(args.model)

        def encode():
            return model.encode(sentences, batch_size=args.batch_size, device=args.device)
    else:
        import torch
        from sentence_transformers import SentenceTransformer

        device = args.device or "cpu"
        model = SentenceTransformer(args.model, device=device)

        def encode():
            with torch.inference_mode():
                return model.encode(sentences, batch_size=args.batch_size, convert_to_numpy=True)

    setup = time.perf_counter() - started
    rates, vectors = [], None
    for _ in range(args.repeats):
        started = time.perf_counter()
        vectors = encode()
        rates.append(len(sentences) / (time.perf_counter() - started))
    peak = peak_rss_mb()
    result = {
        "sentences_per_s": statistics.median(rates),
        "runs": rates,
        "sentences": len(sentences),
        "setup_s": setup,
        "peak_rss_mb": peak,
        "torch_imported": "torch" in sys.modules,
    }
    if not args.limit:
        result["transfer_mean"] = transfer_mean(args.data_dir, sentences, vectors)
    return result


def training_pairs(data_dir: str, count: int, seed: int = 1) -> list:
    import numpy as np

    from parasent.data.training_text.pools import build_pool

    pairs, _ = build_pool(data_dir, "standard")
    order = np.random.default_rng(seed).permutation(len(pairs))[:count]
    return [pairs[i] for i in order]


def train_parasent(args: argparse.Namespace, source, table, pairs: list, device: str) -> tuple[float, str]:
    """One epoch of the margin loss through the training stages; the time and how it ran."""
    import torch

    from parasent.distillation.provider import TeacherSide
    from parasent.training.config import TrainConfig
    from parasent.training.encoder_stage import new_encoder
    from parasent.training.features_stage import Features, Start
    from parasent.training.objective_stage import batch_source, build_margin_objective
    from parasent.training.optim import build_optimizer
    from parasent.training.text_stage import TrainingText
    from parasent.training.trainer import Trainer

    config = TrainConfig.from_flat(
        vectors=None, dim=table.shape[1], optimizer="adam", lambda_w=0.0, validation=None, device=device
    )
    features = Features(source.tokenizer, "words")
    encoder = new_encoder("word_averaging", {}, features, table.shape[1])
    encoder.set_embeddings(table)
    objective = build_margin_objective(config, encoder, features, Start(), TeacherSide())
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        data = batch_source(config, TrainingText(pairs=pairs), source.tokenizer)  # tokenization is timed
        trainer = Trainer(
            objective=objective,
            optimizer=build_optimizer(encoder, "adam"),
            data=data,
            config=config,
            out_dir=scratch,
            tokenizer=source.tokenizer,
            progress=False,
        )
        trainer.objective.to(trainer.device)
        for batch in data.batches(0, 1, args.train_batch, device=trainer.device):
            trainer.train_step(batch)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        elapsed = time.perf_counter() - started
    how = f"parasent Trainer, margin loss (MAX), SparseAdam, {device}"
    return elapsed, how


def train_sentence_transformers(
    args: argparse.Namespace, source, table, pairs: list, device: str
) -> tuple[float, str]:
    """One epoch of sentence-transformers on the same table; the time and how it ran."""
    import torch
    from sentence_transformers import SentenceTransformer, losses
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding
    from sentence_transformers.util import is_training_available

    module = StaticEmbedding(source.tokenizer.tokenizer, embedding_weights=table)
    model = SentenceTransformer(modules=[module], device=device)
    loss = losses.MultipleNegativesRankingLoss(model)
    anchors = [p.s1 for p in pairs]
    positives = [p.s2 for p in pairs]
    if is_training_available():
        from datasets import Dataset
        from sentence_transformers import SentenceTransformerTrainer, SentenceTransformerTrainingArguments

        dataset = Dataset.from_dict({"anchor": anchors, "positive": positives})
        with tempfile.TemporaryDirectory() as scratch:
            training_args = SentenceTransformerTrainingArguments(
                output_dir=scratch,
                num_train_epochs=1,
                per_device_train_batch_size=args.train_batch,
                learning_rate=1e-3,
                save_strategy="no",
                logging_strategy="no",
                report_to="none",
                disable_tqdm=True,
                use_cpu=device == "cpu",
                dataloader_num_workers=0,
            )
            trainer = SentenceTransformerTrainer(
                model=model, args=training_args, train_dataset=dataset, loss=loss
            )
            started = time.perf_counter()
            trainer.train()
            elapsed = time.perf_counter() - started
        how = "sentence-transformers trainer, StaticEmbedding, MultipleNegativesRankingLoss"
    else:
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        started = time.perf_counter()
        for start in range(0, len(pairs), args.train_batch):
            features = [
                model.preprocess(anchors[start : start + args.train_batch]),
                model.preprocess(positives[start : start + args.train_batch]),
            ]
            features = [{k: v.to(device) for k, v in f.items()} for f in features]
            optimizer.zero_grad()
            value = loss(features, None)
            value.backward()
            optimizer.step()
        elapsed = time.perf_counter() - started
        how = (
            "sentence-transformers StaticEmbedding + MultipleNegativesRankingLoss, plain loop "
            "(no datasets/accelerate: trainer overhead not counted)"
        )
    return elapsed, how


def case_train(args: argparse.Namespace) -> dict:
    import numpy as np
    import torch

    import parasent

    torch.manual_seed(0)
    source = parasent.load(args.model)
    table = np.array(source.weights["embedding.weight"], dtype=np.float32)
    pairs = training_pairs(args.data_dir, args.pairs)
    device = args.device or "cpu"
    train = train_parasent if args.engine == "parasent" else train_sentence_transformers
    elapsed, how = train(args, source, table, pairs, device)
    return {
        "pairs_per_s": len(pairs) / elapsed,
        "pairs": len(pairs),
        "seconds": elapsed,
        "how": how,
        "peak_rss_mb": peak_rss_mb(),
        "threads": torch.get_num_threads(),
    }


def case_plain(args: argparse.Namespace) -> dict:
    """Plain averaging of the distilled vectors the default model started from (rebuilt from
    its training options and the teacher cache), and of the same vectors without the frequency
    prior."""
    import parasent
    from parasent.core.model import SentenceModel
    from parasent.evaluation import evaluate
    from parasent.training.config import TrainConfig
    from parasent.training.features_stage import initial_vectors
    from parasent.training.run import prepare_teacher
    from parasent.training.text_stage import read_training_text

    model = parasent.load(args.model)
    training = TrainConfig.flatten(model.metadata.get("training", {}))
    if training.get("vectors") != "distilled":
        return {"error": "the model was not trained from distilled vectors"}
    root = Path(args.data_dir)
    out = {}
    for name, weighting in (("as distilled", training["distill_weighting"]), ("unweighted", "none")):
        config = TrainConfig.from_dict(training).replace(distill_weighting=weighting)
        quiet = {"say": lambda _: None}
        text = read_training_text(config, root, **quiet)
        teacher = prepare_teacher(config, root, text, progress=False, **quiet)
        vectors = initial_vectors(config, root, text, teacher, **quiet)
        out[name] = evaluate(SentenceModel.from_vectors(vectors), "transfer", args.data_dir).primary
        out["vocabulary"] = len(vectors)
    out["weighting"] = training["distill_weighting"]
    out["contextual"] = bool(training.get("distill_context"))
    return out


# --- driver -----------------------------------------------------------------------------------
def timed_case(argv: list[str]) -> tuple[dict, float]:
    """A case in its own process (bench/harness.py) and the wall time of that whole process."""
    started = time.perf_counter()
    result = run_case(str(HERE), argv)
    return result, time.perf_counter() - started


def cold_start(engine: str, model: str, repeats: int) -> tuple[float, dict]:
    walls, result = [], {}
    for _ in range(repeats):
        result, wall = timed_case(["--case", "cold", "--engine", engine, "--model", model])
        walls.append(wall)
    return min(walls), result


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default="runs/default", help="parasent's default model (run or model dir)")
    parser.add_argument("--teacher", default="auto", help="the full transformer (sentence-transformers dir)")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=4096, help="parasent encoding batch")
    parser.add_argument("--st-batch-sizes", type=int, nargs="+", default=[32, 1024])
    parser.add_argument("--teacher-batch", type=int, default=64)
    parser.add_argument(
        "--teacher-sentences",
        type=int,
        default=0,
        help="time the transformer on this many sentences (0 = all)",
    )
    parser.add_argument("--pairs", type=int, default=20000, help="training pairs (standard pool)")
    parser.add_argument("--train-batch", type=int, default=100)
    parser.add_argument("--json", help="also write every figure as JSON")
    # internal: one case
    parser.add_argument("--case", choices=["cold", "encode", "train", "plain"], help=argparse.SUPPRESS)
    parser.add_argument("--engine", help=argparse.SUPPRESS)
    parser.add_argument("--sentences", help=argparse.SUPPRESS)
    parser.add_argument("--limit", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--device", default=None, help=argparse.SUPPRESS)
    return parser.parse_args()


def encoding_rows(args, common: list[str], models: tuple[str, str, str], cuda: bool, figures: dict):
    """Rows (a), (b) per batch size, (c) and, with CUDA, (a) on the GPU; and their results."""
    model_dir, exported, teacher_dir = models
    rows: list[tuple[str, str, str, str, str]] = []

    def encode_row(label, engine, model, batch, device=None, limit=0, repeats=None):
        extra = ["--device", device] if device else []
        extra += ["--limit", str(limit)] if limit else []
        argv = ["--case", "encode", "--engine", engine, "--model", model, "--batch-size", str(batch)]
        argv += common + extra
        if repeats:
            argv[argv.index("--repeats") + 1] = str(repeats)
        result, _ = timed_case(argv)
        cold, cold_info = cold_start(engine, model, args.repeats) if device is None else (None, {})
        figures[label] = {**result, "cold_start_s": cold}
        rows.append(
            (
                label,
                f"{result['sentences_per_s']:,.0f}",
                f"{cold:.2f} s" if cold is not None else "-",
                f"{result['peak_rss_mb']:,.0f} MB",
                f"{result['transfer_mean']:.2f}" if "transfer_mean" in result else "-",
            )
        )
        return result

    a = encode_row(
        f"(a) parasent default model, numpy, batch {args.batch_size}", "parasent", model_dir, args.batch_size
    )
    st_rates = []
    for batch in args.st_batch_sizes:
        label = f"(b) same vectors, sentence-transformers StaticEmbedding, batch {batch}"
        st_rates.append(encode_row(label, "st", exported, batch)["sentences_per_s"])
    c = encode_row(
        f"(c) all-MiniLM-L6-v2, sentence-transformers, batch {args.teacher_batch}"
        + (f", {args.teacher_sentences} sentences" if args.teacher_sentences else ""),
        "st",
        teacher_dir,
        args.teacher_batch,
        limit=args.teacher_sentences,
        repeats=1,
    )
    if cuda:
        label = f"(a) parasent default model, torch on cuda, batch {args.batch_size}"
        encode_row(label, "parasent", model_dir, args.batch_size, device="cuda")
    return rows, a, st_rates, c


def training_rows(args, model_dir: str, devices: list[str], figures: dict):
    """One row per device and engine of the training case, and the rates."""
    train_rows = []
    train_rates = {}
    for device in devices:
        for engine, label in (("parasent", "parasent"), ("st", "sentence-transformers")):
            argv = ["--case", "train", "--engine", engine, "--model", model_dir, "--data-dir", args.data_dir]
            argv += ["--pairs", str(args.pairs), "--train-batch", str(args.train_batch), "--device", device]
            result, _ = timed_case(argv)
            train_rates[(engine, device)] = result["pairs_per_s"]
            figures[f"train {label} {device}"] = result
            train_rows.append(
                (f"{result['how']}", f"{result['pairs_per_s']:,.0f}", f"{result['peak_rss_mb']:,.0f} MB")
            )
    return train_rows, train_rates


def print_encoding(rows, sentences, cuda, figures, plain, a, st_rates, c) -> None:
    width = max(len(r[0]) for r in rows)
    print(
        f"Encoding the {len(sentences):,} unique sentences of the transfer suite ({'CUDA present' if cuda else 'CPU only'}; "
        f"OMP_NUM_THREADS={figures['threads']})"
    )
    head = f"{'path':<{width}}  {'sentences/s':>12}  {'cold start':>10}  {'peak RSS':>9}  {'transfer':>8}"
    print(head)
    print("-" * len(head))
    for row in rows:
        print(f"{row[0]:<{width}}  {row[1]:>12}  {row[2]:>10}  {row[3]:>9}  {row[4]:>8}")
    if "error" not in plain:
        print(
            f"plain averaging of the distilled vectors ({plain['weighting']}-weighted, "
            f"{'contextual means where seen, ' if plain['contextual'] else ''}{plain['vocabulary']:,} words): "
            f"transfer {plain['as distilled']:.2f}; unweighted: {plain['unweighted']:.2f}"
        )
    print(
        f"encoding speed-up of (a) over (b): {a['sentences_per_s'] / max(st_rates):.1f}x over its fastest batch size, "
        f"{a['sentences_per_s'] / min(st_rates):.1f}x over its slowest; over (c): {a['sentences_per_s'] / c['sentences_per_s']:.0f}x"
    )
    if "transfer_mean" in a and "transfer_mean" in c:
        print(
            f"transfer mean: default model {a['transfer_mean']:.2f}, teacher {c['transfer_mean']:.2f} "
            f"(gap {c['transfer_mean'] - a['transfer_mean']:.2f})"
        )


def print_training(args, train_rows, train_rates, devices) -> None:
    print(
        f"Training: {args.pairs:,} standard-pool pairs, batch {args.train_batch}, one epoch, tokenization included"
    )
    width = max(len(r[0]) for r in train_rows)
    print(f"{'path':<{width}}  {'pairs/s':>9}  {'peak RSS':>9}")
    for row in train_rows:
        print(f"{row[0]:<{width}}  {row[1]:>9}  {row[2]:>9}")
    for device in devices:
        print(
            f"training speed-up on {device}: {train_rates[('parasent', device)] / train_rates[('st', device)]:.1f}x"
        )


def main() -> None:
    args = parse_args()
    from parasent.support.paths import resolve_data_dir

    args.data_dir = str(resolve_data_dir(args.data_dir))
    if args.case:
        case = {"cold": case_cold, "encode": case_encode, "train": case_train, "plain": case_plain}[args.case]
        print(json.dumps(case(args)))
        return

    import torch

    from parasent.core.compaction import words_only
    from parasent.core.model import load
    from parasent.distillation.teacher import resolve_teacher_path

    model_dir = str(Path(args.model))
    teacher_dir = str(resolve_teacher_path(args.teacher))
    cuda = torch.cuda.is_available()
    figures: dict = {"threads": os.environ.get("OMP_NUM_THREADS", "default"), "cuda": cuda}
    devices = ["cpu"] + (["cuda"] if cuda else [])
    with tempfile.TemporaryDirectory() as scratch:
        # a model with word bigrams: StaticEmbedding gets its word rows (same table, same speed)
        exported = words_only(load(model_dir)).export(Path(scratch) / "st-static")
        sentences_file = Path(scratch) / "sentences.json"
        sentences = transfer_sentences(args.data_dir)
        sentences_file.write_text(json.dumps(sentences))
        common = [
            "--data-dir",
            args.data_dir,
            "--sentences",
            str(sentences_file),
            "--repeats",
            str(args.repeats),
        ]
        models = (model_dir, str(exported), teacher_dir)
        rows, a, st_rates, c = encoding_rows(args, common, models, cuda, figures)
        plain, _ = timed_case(["--case", "plain", "--model", model_dir, "--data-dir", args.data_dir])
        figures["plain_averaging"] = plain
        train_rows, train_rates = training_rows(args, model_dir, devices, figures)
    print_encoding(rows, sentences, cuda, figures, plain, a, st_rates, c)
    print()
    print_training(args, train_rows, train_rates, devices)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
