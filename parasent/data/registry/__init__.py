"""The data registry: one record shape for every data set (``record``), the declarations of the
shared data's sets, suites, pools and corpora (``catalog``) with their files' sha256
(``checksums``), and the reader each layout names (``layouts``)."""
