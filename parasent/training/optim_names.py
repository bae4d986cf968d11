"""The optimizers and rate schedules a run may name, and their default rates, without torch:
what a configuration checks and a parser offers (``parasent head --help`` builds without
loading torch; :mod:`parasent.training.optim` builds them)."""

OPTIMIZERS = ("adagrad", "adam", "sgd", "adadelta")
DEFAULT_LEARNING_RATES = {"adagrad": 0.05, "adam": 0.001, "sgd": 0.1, "adadelta": 1.0}
LR_SCHEDULES = ("constant", "linear")
