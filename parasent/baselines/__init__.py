"""Baselines trained outside parasent's own objectives (word2vec through gensim)."""
