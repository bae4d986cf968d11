"""Getting the public data sets: where each comes from (``sources``), resumable verified
downloads (``download``), and ``parasent data fetch`` / ``list`` (``fetch``)."""
