"""Package-private helpers with no domain knowledge, used across subpackages.

``validation``   argument checks that name the argument (the public boundary's ``ValueError``/``TypeError``)
``ties``         near-maximum ties, so no decision hinges on the last bit of a floating-point sum
``registry``     the shared mechanics of the problem, classifier and strategy registries
``limits``       the size bounds every runner applies
``backends``     where tasks run (local processes or Dask), one BLAS thread per task, :class:`Execution`
``versions``     the versions of Python and the libraries recorded beside figures and summaries
"""
