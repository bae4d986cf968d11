"""parasent models inside other libraries: the MTEB adapter, LangChain's and LlamaIndex's
embeddings (in process), and the sentence-transformers module class that wraps a parasent model (other libraries' model directories are read and written by
:mod:`parasent.core.model_formats`)."""
