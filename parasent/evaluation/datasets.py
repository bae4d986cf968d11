"""The similarity datasets of the standard protocol, as the evaluator sees them.

Names are ``sts<year>/<set>``, ``sick2014/test`` and ``twitter2015/test``. The *transfer*
suite is the 21 test sets of the data MANIFEST (STS 2012-2015, SICK test, Twitter PIT-2015
test); *validation* is STS 2016, the only sets used for model selection. The records are
declared with every other data set in :mod:`parasent.data.catalog` (one registry shape);
this module names them for the evaluation code.
"""

from __future__ import annotations

from parasent.data.catalog import SIMILARITY, SUITES, suite_datasets
from parasent.data.registry import DataRecord

#: A similarity dataset is a record of kind ``similarity`` whose layout yields scored pairs.
SimilarityDataset = DataRecord
DATASETS = SIMILARITY

__all__ = ["DATASETS", "SUITES", "SimilarityDataset", "suite_datasets"]
