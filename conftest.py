"""pytest's root configuration, loaded for the tests and for the chapters (nbval) alike.

Every kernel nbval starts inherits this environment: one BLAS/OpenMP thread, so that sums add in
one order whatever the machine's core count and stored outputs compare exactly. The Makefile
exports the same; this covers a plain `pytest` run too.
"""

import os

for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(variable, "1")
