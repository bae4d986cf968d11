"""The data, grouped by role: the registry of every data set (``registry/``), the readers of
their files and of a user's corpus (``readers/``), downloading the public ones (``fetching/``),
and the text a training run reads (``training_text/``)."""
