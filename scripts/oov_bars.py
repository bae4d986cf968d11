"""Whether a model meets the out-of-vocabulary bars of the default model (docs/default-model.md,
"Text it does not know"), on the pairs of tests/test_default_model_text.py: no unrelated pair
of unknown text at 0.999 or more, their mean at most 0.6, misspelt pairs at least 0.70. A
candidate within MARGIN of a bar is refused: the test would hinge on float rounding.

    python scripts/oov_bars.py MODEL_DIR     # prints the figures; exit 1 when a bar is missed
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_default_model_text import RESPELT, UNRELATED_UNKNOWN  # noqa: E402

from parasent import load  # noqa: E402

MARGIN = 0.001


def main() -> int:
    model = load(sys.argv[1])
    unrelated = np.array([model.similarity_pairwise(a, b) for a, b in UNRELATED_UNKNOWN])
    respelt = np.array([model.similarity_pairwise(a, b) for a, b in RESPELT])
    met = (
        unrelated.max() < 0.999 - MARGIN
        and unrelated.mean() <= 0.6 - MARGIN
        and respelt.mean() >= 0.7 + MARGIN
    )
    print(
        f"{sys.argv[1]}: unrelated unknown max {unrelated.max():.4f} mean {unrelated.mean():.4f}; "
        f"misspelt mean {respelt.mean():.4f}; bars {'met' if met else 'missed'}"
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
