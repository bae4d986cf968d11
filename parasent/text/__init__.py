"""Text processing: tokenization and vocabularies (torch-free)."""

from parasent.text.tokenized import Tokenized
from parasent.text.tokenizer import PAD, UNK, WordTokenizer, pre_tokenize
from parasent.text.vocab import build_vocabulary, count_words

__all__ = ["PAD", "UNK", "Tokenized", "WordTokenizer", "build_vocabulary", "count_words", "pre_tokenize"]
