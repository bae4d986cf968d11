"""The numpy core: the model, its directory format, what encode returns, search and indexes,
model cards and compaction. Needs numpy, tokenizers and safetensors alone."""
