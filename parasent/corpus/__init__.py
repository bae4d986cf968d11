"""The corpus tools, built on the model: saved indexes, approximate graphs, exact neighbour
lists by blocks, paraphrase mining, exact copies, semantic deduplication, communities, the
files mining and dedup write, and a file encoded by several processes. They import the numpy
core (:mod:`parasent.core`); the core never imports them."""
