"""Distillation from a sentence-transformers teacher: static word vectors (each word encoded
by the teacher alone, optionally PCA-reduced and SIF/Zipf-weighted), a disk cache of teacher
sentence embeddings, and the linear post-processing folded into word vectors.

Everything that needs the teacher imports ``sentence-transformers`` lazily
(``pip install parasent[distill]``); the rest of parasent never does.
"""
