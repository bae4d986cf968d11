"""Experiments over many training runs: the hyperparameter grid search and the architecture
comparison of the papers (Wieting et al. 2016 Table 2, Jiao et al. 2018 Table 1, the
CHARAGRAM supplement's Table 1)."""
