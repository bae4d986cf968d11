"""The readers of the data files: one module per format (STS, SICK, PIT, labelled pairs, PPDB,
labelled texts, word frequencies) and the typed records they stream (``records``)."""
