"""Word vectors of a model: nearest neighbours and the largest and smallest norms
(Wieting et al. 2016, Sec. 6, Table 8).

As in the paper, the search is restricted to the most common words of the training data
("the 10,000 most common tokens in PPDB XL", so that neighbours are not under-trained
vectors); ``candidates`` is that list. Neighbours are sorted by cosine similarity.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from parasent.core.inference import normalize_rows
from parasent.core.model_spec import NamedModel
from parasent.core.stored_weights import EMBEDDING_KEY
from parasent.support.tables import format_rows
from parasent.text.tokenizer import PAD, UNK


def word_table(named: NamedModel) -> np.ndarray:
    """The model's word embedding matrix (rows by token id), for any encoder."""
    return np.asarray(named.model.weights[EMBEDDING_KEY], dtype=np.float32)


def common_words(counts: Counter[str], limit: int | None) -> list[str]:
    """The ``limit`` most frequent words (ties alphabetically), specials excluded."""
    ranked = sorted((w for w in counts if w not in (PAD, UNK)), key=lambda w: (-counts[w], w))
    return ranked if limit is None else ranked[:limit]


def _rows(named: NamedModel, words: Sequence[str]) -> tuple[list[str], np.ndarray]:
    tokenizer = named.model.tokenizer
    kept = [(w, tokenizer.token_to_id(w)) for w in words]
    kept = [(w, i) for w, i in kept if i is not None]
    return [w for w, _ in kept], np.array([i for _, i in kept], dtype=np.int64)


def nearest_neighbours(
    named: NamedModel, words: Sequence[str], candidates: Sequence[str], k: int = 7
) -> dict[str, list[tuple[str, float]] | None]:
    """For each word, the ``k`` candidates of highest cosine (itself excluded); None if unknown."""
    table = word_table(named)
    names, rows = _rows(named, candidates)
    unit = normalize_rows(table[rows])
    out: dict[str, list[tuple[str, float]] | None] = {}
    for word in words:
        index = named.model.tokenizer.token_to_id(word)
        if index is None:
            out[word] = None
            continue
        query = normalize_rows(table[index : index + 1])[0]
        scores = unit @ query
        order = [i for i in np.argsort(-scores, kind="stable") if names[i] != word][:k]
        out[word] = [(names[i], float(scores[i])) for i in order]
    return out


def extreme_norms(
    named: NamedModel, candidates: Sequence[str], k: int = 10
) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """The ``k`` candidates with the largest and the smallest L2 norm."""
    names, rows = _rows(named, candidates)
    norms = np.linalg.norm(word_table(named)[rows], axis=1)
    order = np.argsort(-norms, kind="stable")
    largest = [(names[i], float(norms[i])) for i in order[:k]]
    smallest = [(names[i], float(norms[i])) for i in order[::-1][:k]]
    return largest, smallest


@dataclass
class WordReport:
    candidates: int
    neighbours: dict[str, dict[str, list[tuple[str, float]] | None]]  # model -> word -> list
    norms: dict[str, tuple[list[tuple[str, float]], list[tuple[str, float]]]]

    def format_table(self, markdown: bool = False) -> str:
        models = list(self.neighbours)
        words = list(next(iter(self.neighbours.values()))) if models else []

        def show(entry: list[tuple[str, float]] | None) -> str:
            return "(not in vocabulary)" if entry is None else ", ".join(w for w, _ in entry)

        parts = [
            format_rows(
                ["word", *(f"{m} nearest neighbours" for m in models)],
                [[w, *(show(self.neighbours[m][w]) for m in models)] for w in words],
                title=f"nearest neighbours by cosine among the {self.candidates} most common training words",
                markdown=markdown,
            )
        ]
        for model, (largest, smallest) in self.norms.items():
            parts.append(
                format_rows(
                    ["rank", "largest L2 norm", "norm", "smallest L2 norm", "norm "],
                    [
                        [i + 1, a[0], a[1], b[0], b[1]]
                        for i, (a, b) in enumerate(zip(largest, smallest, strict=False))
                    ],
                    title=f"{model}: word vector norms among the same words",
                    markdown=markdown,
                )
            )
        return "\n\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"candidates": self.candidates, "neighbours": self.neighbours, "norms": self.norms}


def word_analysis(
    models: Sequence[NamedModel],
    words: Sequence[str],
    candidates: Sequence[str],
    *,
    k: int = 7,
    norms: int = 10,
) -> WordReport:
    return WordReport(
        len(candidates),
        {m.label: nearest_neighbours(m, words, candidates, k) for m in models},
        {m.label: extreme_norms(m, candidates, norms) for m in models},
    )
