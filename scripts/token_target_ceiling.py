"""How far the contextual recipe's per-token teacher targets could take a student, on STS 2016.

The `contextual` recipe's per-token term (`--teacher-tokens`, parasent/distillation/token_targets.py)
asks each token of a sentence for y_i = x_w + s_w (t_i - t_w) R: its row moved as the teacher
moves the word in this context. A student that met every target exactly would encode a sentence
as the mean of the y_i (the rows where a token has none). This script scores that mean on the
validation suite (STS 2016), beside the shipped default (the rows alone, moves at 0) and the
moves scaled by 0.5 and 1.5: the room the target leaves above what a trained student reaches.
The map R and the words' mean states t_w are fitted on the recipe's teacher text together with
the STS 2016 sentences (each of those needs its own state); a diagnostic of the target, never a
model and never a selection signal for one.

    PARASENT_DATA=/path/to/data python scripts/token_target_ceiling.py
    PARASENT_DATA=... python scripts/token_target_ceiling.py --layers 2 4 6 --max-sentences 15000

Runs the teacher's word-state pass over the texts its cache lacks (resumable, as a run's);
``--layers`` scores targets built from the teacher's lower layers' states instead (a pass of
its own, not cached).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from parasent.core.model import load
from parasent.data.registry.catalog import suite_datasets
from parasent.distillation.token_targets import TokenTargets, token_targets
from parasent.evaluation import evaluate
from parasent.support.paths import resolve_data_dir
from parasent.text.tokenized import Tokenized
from parasent.training.config import TrainConfig
from parasent.training.run import prepare_teacher
from parasent.training.text_stage import read_training_text

SUITE = "validation"


class FixedVectors:
    """Encodes by looking each sentence up (the evaluator asks for its sets' sentences only)."""

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors

    def encode(self, sentences: Sequence[str], batch_size: int = 0) -> np.ndarray:
        return np.stack([self.vectors[s] for s in sentences])


def suite_sentences(root: Path) -> list[str]:
    """Every sentence of the validation suite, read as the evaluator reads it."""
    sentences: set[str] = set()
    for record in suite_datasets(SUITE):
        for pair in record.read(root):
            sentences.update((pair.s1, pair.s2))
    return sorted(sentences)


def sentence_means(
    texts: Sequence[str],
    first: int,
    tokenized: Tokenized,
    targets: TokenTargets,
    rows: np.ndarray,
    scale: float,
) -> dict[str, np.ndarray]:
    """Each of ``texts[first:]`` as the mean of its tokens' rows, moved ``scale`` of the way to their targets."""
    out = {}
    for s in range(first, len(texts)):
        lo, hi = int(tokenized.offsets[s]), int(tokenized.offsets[s + 1])
        vectors = rows[tokenized.ids[lo:hi]].astype(np.float64)
        where = targets.row_of[lo:hi]
        has = where >= 0
        vectors[has] += scale * (targets.values[where[has]].astype(np.float64) - vectors[has])
        out[texts[s]] = vectors.mean(axis=0) if hi > lo else np.zeros(rows.shape[1])
    return out


def layer_states(teacher: Any, texts: Sequence[str], layers: Sequence[int]) -> dict[int, list[np.ndarray]]:
    """Each text's word states at each of the teacher's ``layers`` (0: its embeddings; its last:
    the states the recipe uses), from one pass over ``texts`` with every layer's output (not
    cached: a diagnostic's pass)."""
    import torch
    from tqdm.auto import tqdm

    from parasent.distillation.contextual import word_means
    from parasent.distillation.teacher import Teacher

    model = Teacher(teacher.path, max_length=teacher.max_length)
    model.model[0].auto_model.config.output_hidden_states = True
    forward = model._forward

    def stacked(features: dict[str, Any]) -> dict[str, Any]:  # every layer asked for, side by side
        out = forward(features)
        out["token_embeddings"] = torch.cat([out["all_layer_embeddings"][k] for k in layers], dim=-1)
        return out

    model._forward = stacked  # type: ignore[method-assign]
    states: dict[int, list[np.ndarray]] = {k: [] for k in layers}
    for start in tqdm(range(0, len(texts), 1024), desc="teacher (layers)"):
        part = list(texts[start : start + 1024])
        for text, tokens in zip(part, model.encode_tokens(part), strict=True):
            means = word_means(text, tokens.vectors, tokens.offsets)[1].astype(np.float16)
            for i, k in enumerate(layers):  # each layer's states are the width of the teacher's embedding
                states[k].append(means[:, i * model.dim : (i + 1) * model.dim])
    return states


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="the shared data (default: $PARASENT_DATA)")
    parser.add_argument("--scales", type=float, nargs="+", default=[0.0, 0.5, 1.0, 1.5])
    parser.add_argument("--layers", type=int, nargs="+", help="the teacher's layers' states instead (a pass)")
    parser.add_argument("--max-sentences", type=int, default=None, help="the first N teacher sentences only")
    args = parser.parse_args()
    root = resolve_data_dir(args.data_dir)
    config = TrainConfig.preset(recipe="contextual")
    side = prepare_teacher(config, root, read_training_text(config, root), progress=True, say=print)
    first = len(side.sentences[: args.max_sentences])
    texts = list(side.sentences[:first]) + suite_sentences(
        root
    )  # the guard keeps them out of the teacher text
    model = load(config.encoder.init_model or "default")
    rows = np.asarray(model.weights["embedding.weight"], dtype=np.float32)
    tokenized = model.tokenizer.encode_batch(texts)
    by_layer = (
        layer_states(side.teacher, texts, args.layers)
        if args.layers
        else {-1: side.teacher.word_states(texts)}
    )
    for layer, states in by_layer.items():
        targets = token_targets(model.tokenizer, texts, tokenized, states, rows)
        print(("" if layer < 0 else f"layer {layer}: ") + targets.describe())
        for scale in args.scales:
            means = sentence_means(texts, first, tokenized, targets, rows, scale)
            report = evaluate(FixedVectors(means), SUITE, root)
            print(
                f"moves x {scale:g}: {report.primary_metric} {report.aggregates[report.primary_metric]:.2f}"
            )


if __name__ == "__main__":
    main()
