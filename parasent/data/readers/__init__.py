"""The readers of the data files: one module per format (STS, SICK, PIT, labelled pairs, PPDB,
labelled texts, word frequencies), the typed records they stream (``records``), and the texts
of a corpus a user hands a command (``text_input``)."""
