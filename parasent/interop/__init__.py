"""parasent models inside other libraries: the MTEB adapter and the sentence-transformers module
class that wraps a parasent model (other libraries' model directories are read and written by
:mod:`parasent.core.model_formats`)."""
