"""The analyses of Wieting et al. (2016), Sec. 5-6, and Jiao et al. (2018), Sec. 5.3, each a
function returning a result with ``format_table()`` (and ``to_dict()``), run by
``parasent analyze <name>``: performance by sentence length, OOV / under-trained words,
learning curves, nearest neighbours and norms, norm-as-weight, error analysis; the paired
significance test lives in :mod:`parasent.evaluation.significance`."""
