"""The data, grouped by role: the registry of every data set (``registry/``), the readers of
their files (``readers/``), downloading the public ones (``fetching/``), the text a training run
reads (``training_text/``), and the texts of a corpus a user hands a command (``text_input``,
the import path the documentation gives)."""
