"""parasent's default model beside the static models a user would build instead from the same
teacher (``--teacher``: the default's own, all-MiniLM-L6-v2 unless it was rebuilt from
another), in one run:

  (a) parasent's default model (the shipped compact copy) and, with ``--full``, the
      full-precision model it was made from;
  (b) model2vec's ``distill`` of the teacher with its defaults (the teacher's WordPiece
      vocabulary, PCA to 256, SIF weights), and with parasent's vocabulary added;
  (c) tokenlearn (model2vec's teacher-regression trainer) on the same unlabelled sentences as
      parasent's distilled recipe (the recipe's teacher text, the same no-leakage filter),
      regressing onto the same teacher's sentence embeddings (parasent's teacher cache: the
      teacher's normalised mean-pooled embeddings, where tokenlearn's ``featurize`` would take
      the unnormalised mean without [CLS]/[SEP]; PCA to 256 and tokenlearn's 56,000-word
      vocabulary, its defaults);
  (d) the teacher itself through sentence-transformers;
  (e) parasent's default vectors through sentence-transformers' StaticEmbedding (``export``),
      the sentence-transformers static path.

For each: transfer mean (21 sets) and STS 2016 mean (Pearson x100, parasent's evaluator on the
vectors each library computes), encode sentences/s on the suite's unique sentences (best of
3; parasent at its default batch of 4,096, the others at 1,024, model2vec's default and
sentence-transformers' fastest static batch; the teacher: batch 64, once, on
``--teacher-sentences`` of them), and size on disk. Each case runs in its own process.

    pip install -e '.[peers]'                     # model2vec[distill], tokenlearn, the teacher
    python bench/bench_peers.py --full runs/default-full --work /tmp/peers
    python bench/bench_peers.py --teacher all-mpnet-base-v2 ...   # a default built from mpnet
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from harness import peak_rss_mb, run_case

HERE = Path(__file__).resolve()


def suite_sentences(data_dir: str | None) -> tuple[list[str], list[str]]:
    from parasent.evaluation.evaluator import SimilarityEvaluator

    return SimilarityEvaluator("transfer", data_dir).sentences, SimilarityEvaluator(
        "validation", data_dir
    ).sentences


def scores(data_dir: str | None, sentences: list[str], vectors) -> dict[str, float]:
    """Transfer and STS 2016 means of precomputed vectors (one row per sentence)."""
    from parasent.evaluation.evaluator import SimilarityEvaluator

    index = {s: i for i, s in enumerate(sentences)}

    class Precomputed:
        def encode(self, batch, batch_size: int = 0, **_):
            return vectors[[index[s] for s in batch]]

    return {
        suite: SimilarityEvaluator(suite, data_dir)(Precomputed()).primary
        for suite in ("transfer", "validation")
    }


def size_mb(path: Path) -> float:
    """Size of a model directory (a training run's ``model/``, not its checkpoints)."""
    path = path / "model" if (path / "model" / "config.json").is_file() else path
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


# --- building the peers (each in a subprocess) -------------------------------------------------
def case_model2vec(args: argparse.Namespace) -> dict:
    from model2vec.distill import distill

    from parasent.distillation.teacher import resolve_teacher_path

    vocabulary = None
    if args.vocab_from:
        import parasent

        vocabulary = [
            w for w in parasent.load(args.vocab_from).tokenizer.vocabulary() if not w.startswith("[")
        ]
    started = time.perf_counter()
    model = distill(str(resolve_teacher_path(args.teacher)), vocabulary=vocabulary, pca_dims=256)
    model.save_pretrained(args.out)
    return {"build_s": time.perf_counter() - started, "peak_rss_mb": peak_rss_mb()}


def case_tokenlearn(args: argparse.Namespace) -> dict:
    import numpy as np
    from model2vec.distill import distill
    from tokenlearn.train import train_model
    from tokenlearn.utils import create_vocab

    from parasent.data.training_text.pools import build_pool, protocol_exclusions
    from parasent.distillation.cache import CachedTeacher
    from parasent.distillation.teacher import resolve_teacher_path
    from parasent.distillation.unlabelled import unlabelled_sentences
    from parasent.support.paths import resolve_data_dir

    root = resolve_data_dir(args.data_dir)
    forbidden, forbidden_pairs = protocol_exclusions(root, "standard")
    pairs, _ = build_pool(root, "standard", forbidden=forbidden, forbidden_pairs=forbidden_pairs)
    from parasent.training.config import RECIPES

    recipe_text = RECIPES["distilled"]["teacher_text"]  # the same sentences as the default's
    texts, _ = unlabelled_sentences(recipe_text, root, pairs, forbidden, seed=1)
    targets = CachedTeacher(args.teacher).encode(texts, desc="teacher (sentences)")
    order = np.random.default_rng(1).permutation(len(texts))  # tokenlearn validates on its last 10%
    texts, targets = [texts[i] for i in order], targets[order]
    started = time.perf_counter()
    vocabulary = create_vocab(texts=texts, vocab_size=56_000)
    model = distill(
        str(resolve_teacher_path(args.teacher)), vocabulary=vocabulary, pca_dims=256, quantize_to="float32"
    )
    model = train_model(model, texts, targets, device="cpu", pca_dims=256)
    model.save_pretrained(args.out)
    return {"sentences": len(texts), "build_s": time.perf_counter() - started, "peak_rss_mb": peak_rss_mb()}


# --- scoring one model (each in a subprocess) --------------------------------------------------
def _encoder(kind: str, path: str, teacher: str = "auto"):
    if kind == "parasent":
        import parasent

        model = parasent.load(path)
        return lambda batch, size: model.encode(batch, batch_size=size)
    if kind == "model2vec":
        from model2vec import StaticModel

        model = StaticModel.from_pretrained(path)
        return lambda batch, size: model.encode(batch, batch_size=size, show_progress_bar=False)
    from sentence_transformers import SentenceTransformer

    from parasent.distillation.teacher import resolve_teacher_path

    model = SentenceTransformer(
        str(resolve_teacher_path(teacher)) if path == "teacher" else path, device="cpu"
    )
    return lambda batch, size: model.encode(batch, batch_size=size, convert_to_numpy=True)


def case_score(args: argparse.Namespace) -> dict:
    import numpy as np

    transfer, validation = suite_sentences(args.data_dir)
    sentences = list(dict.fromkeys(transfer + validation))
    encode = _encoder(args.kind, args.path, args.teacher)
    vectors = np.asarray(encode(sentences, args.batch_size), dtype=np.float32)
    timed = sentences[: args.limit] if args.limit else sentences
    rates = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        encode(timed, args.batch_size)
        rates.append(len(timed) / (time.perf_counter() - started))
    result = scores(args.data_dir, sentences, vectors)
    result.update(sentences_per_s=max(rates), timed_sentences=len(timed), peak_rss_mb=peak_rss_mb())
    if args.path != "teacher":
        result["size_mb"] = size_mb(Path(args.path))
    return result


def case_export(args: argparse.Namespace) -> dict:
    import parasent
    from parasent.core.compaction import words_only

    words_only(parasent.load(args.path)).export(args.out, format="sentence-transformers")
    return {"exported": args.out}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", choices=["model2vec", "tokenlearn", "score", "export"])
    parser.add_argument("--out")
    parser.add_argument("--vocab-from")
    parser.add_argument("--kind", choices=["parasent", "model2vec", "sentence-transformers"])
    parser.add_argument("--path")
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--data-dir")
    parser.add_argument("--model", default="default", help="parasent model (default: the shipped one)")
    parser.add_argument("--full", help="also the full-precision model the default was made from")
    parser.add_argument("--work", default="/tmp/parasent-peers", help="where the peers are built (kept)")
    parser.add_argument("--teacher-sentences", type=int, default=3000)
    parser.add_argument(
        "--teacher",
        default="auto",
        help="the teacher every peer is built from and scored beside: the default model's own "
        "(auto: all-MiniLM-L6-v2; all-mpnet-base-v2; a directory), so the comparison stays like for like",
    )
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=["m2v-default", "m2v-parasent-vocab", "tokenlearn"],
        help="leave out a peer (model2vec with parasent's 137,622 words encodes each padded to 128 "
        "tokens: over an hour on 2 cores)",
    )
    args = parser.parse_args()
    if args.case:
        cases = {
            "model2vec": case_model2vec,
            "tokenlearn": case_tokenlearn,
            "score": case_score,
            "export": case_export,
        }
        try:
            result = cases[args.case](args)
        except ImportError as error:  # a missing extra: one line, not a traceback
            raise SystemExit(
                f"bench_peers: {args.case}: {error} (pip install -e '.[peers]' for model2vec and "
                "tokenlearn, '.[bench]' for sentence-transformers)"
            ) from None
        print(json.dumps(result))
        return
    run(args)


def export_for_sentence_transformers(model_name: str, work: Path) -> tuple[Path, str]:
    """The default model as a sentence-transformers StaticEmbedding directory (kept in ``work``
    under the tokenizer's hash), and its table label. A model with word bigrams exports its
    word rows alone: StaticEmbedding averages one tokenizer's tokens, so its figures are those
    of the words-only model, and its speed that of the same word table."""
    from parasent.core.model import resolve_model_path

    model_dir = resolve_model_path(model_name)
    config = json.loads((model_dir / "config.json").read_text())
    path = work / f"sentence-transformers-{config['tokenizer'].get('sha256', 'x')[:12]}"
    if not path.is_dir():  # in a process of its own: this one's peak RSS is every case's start
        run_case(str(HERE), ["--case", "export", "--path", str(model_dir), "--out", str(path)])
    if config["tokenizer"].get("kind") == "word_bigrams":
        return path, "parasent default's word rows (no bigrams) via sentence-transformers' StaticEmbedding"
    return path, "parasent default via sentence-transformers' StaticEmbedding"


def run(args: argparse.Namespace) -> None:
    from parasent.core.model import resolve_model_path

    work = Path(args.work) / args.teacher.replace("/", "_")  # peers of another teacher are others
    work.mkdir(parents=True, exist_ok=True)
    data = ["--data-dir", args.data_dir] if args.data_dir else []
    default_path = str(resolve_model_path(args.model))
    teacher = ["--teacher", args.teacher]
    builds = {
        "m2v-default": ["--case", "model2vec", *teacher],
        "m2v-parasent-vocab": ["--case", "model2vec", "--vocab-from", default_path, *teacher],
        "tokenlearn": ["--case", "tokenlearn", *data, *teacher],
    }
    built = {}
    for name in args.skip:
        del builds[name]
    for name, argv in builds.items():
        if not (work / name / "config.json").is_file():
            built[name] = run_case(str(HERE), [*argv, "--out", str(work / name)])
            print(f"built {name}: {built[name]}", file=sys.stderr)
    st_path, st_label = export_for_sentence_transformers(args.model, work)
    own = ["--batch-size", "4096"]  # parasent's default batch size (model2vec's is 1024)
    cases = [("parasent default (shipped)", "parasent", default_path, own)]
    if args.full:
        cases.append(("parasent full precision", "parasent", args.full, own))
    peers = {
        "m2v-default": "model2vec distill, defaults",
        "m2v-parasent-vocab": "model2vec distill, parasent vocabulary",
        "tokenlearn": "tokenlearn, same sentences and teacher",
    }
    cases += [(label, "model2vec", str(work / name), []) for name, label in peers.items() if name in builds]
    cases += [
        (st_label, "sentence-transformers", str(st_path), []),
        (
            f"{args.teacher} (teacher)",
            "sentence-transformers",
            "teacher",
            ["--batch-size", "64", "--repeats", "1", "--limit", str(args.teacher_sentences), *teacher],
        ),
    ]
    print("| model | transfer (21) | STS 2016 | encode sent/s | size MB | peak RSS MB |")
    print("|---|---|---|---|---|---|")
    for label, kind, path, extra in cases:
        r = run_case(str(HERE), ["--case", "score", "--kind", kind, "--path", path, *data, *extra])
        size = f"{r['size_mb']:.1f}" if "size_mb" in r else "–"
        print(
            f"| {label} | {r['transfer']:.2f} | {r['validation']:.2f} | {r['sentences_per_s']:,.0f} | "
            f"{size} | {r['peak_rss_mb']:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
