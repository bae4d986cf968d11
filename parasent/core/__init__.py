"""The numpy core: the model, its directory format, what encode returns, top-k search, model
cards and compaction. Needs numpy, tokenizers and safetensors alone. The corpus tools built on
it (indexes, mining, dedup) are :mod:`parasent.corpus`, above it."""
