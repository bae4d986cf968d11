"""The text a training run reads: pools of paraphrase pairs and the no-leakage rule (``pools``,
``leakage``), running text as documents (``corpus``), unlabelled sentences (``unlabelled``), and
pair files tokenized once into memory-mapped shards (``prepare``, ``shards``)."""
