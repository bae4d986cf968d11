"""The DCU-SEManiacs STS system (Hokamp & Arora 2016): lexical and embedding features and a
gradient-boosting ensemble predicting 0-5 similarity scores."""
