"""The names a run's options may take for its objectives, without torch: what a configuration
checks and a parser offers (``parasent head --help`` builds without loading torch)."""

NEGATIVE_STRATEGIES = ("max", "mix", "rand")  # Wieting et al. 2016, Sec. 3: in-batch negatives
PULL_MODES = ("lazy", "exact")  # how the lambda_w pull towards the initial rows is applied
