"""Root pytest configuration: Hypothesis draws the same examples on every `make test` run.

`make test` (scripts/run-tests.sh) selects the derandomized profile "ci" whoever runs it, so
that a commit passes or fails the same way on every run; `make test-random` runs the property
tests with fresh random examples, to look for new failures (HYPOTHESIS_PROFILE=dev). A plain
`pytest` run uses "ci" under CI=true and "dev" otherwise.
"""

import os

from hypothesis import settings

# The same examples on every run, and no flaky deadlines on a shared 2-core box.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI")
                                                                else "dev"))
